#!/usr/bin/env bash
# The suite's own cost: runs the nightly as sites run it (ci/acceptance.sh,
# setup, ReFrame, summary, report page and verdict) while
# ci/bench/process_timeline.py records when each of its processes ran,
# then prints its wall time against the benchmark programs' own run time,
# the ratio (goal <= 1.3) and where the rest goes: job scripts around the
# programs (launcher, spack load, probes), builds, ReFrame noticing ended
# jobs, ReFrame's other commands, setup, ReFrame itself
# (ci/bench/suite_cost.py).
#
# Usage: ci/bench/suite_cost.sh [reframe args...]
#   e.g. -n MemoryLatencyCheck for a small run; none: the whole nightly
# Environment: STATE_DIR (default var/bench/suite-cost-<time>): the run's
#   results database (empty: the trends have no history, as on a new
#   system), stage, perflogs, report, log and timeline.
# Exit status: 0 measured (whatever the nightly's verdict, which is in
#   $STATE_DIR/acceptance.log), 2 cannot run or no report.
set -euo pipefail

die() { echo "suite_cost: $*" >&2; exit 2; }

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$project_dir"
[ -x .venv/bin/python ] || die "no .venv: run ci/setup.sh first"
state=${STATE_DIR:-$project_dir/var/bench/suite-cost-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$state"
export RFM_SQLITE_DB_FILE=$state/results.db RFM_PREFIX=$state/prefix \
       RFM_PERFLOG_DIR=$state/perflogs RFM_REPORT_FILE=$state/nightly.json \
       RFM_REPORT_JUNIT=$state/junit.xml

echo "suite_cost: running ci/acceptance.sh ${*:+$* }(output in $state/acceptance.log)"
status=0
.venv/bin/python ci/bench/process_timeline.py "$state/timeline.json" -- \
    ci/acceptance.sh "$@" >"$state/acceptance.log" 2>&1 || status=$?
echo "suite_cost: ci/acceptance.sh exited $status"
[ -f "$state/nightly.json" ] ||
    die "the nightly wrote no report; see $state/acceptance.log"
.venv/bin/python ci/bench/suite_cost.py "$state/timeline.json" \
    "$state/nightly.json" | tee "$state/cost.txt"
