#!/usr/bin/env bash
# The local acceptance suite: sets the machine up, runs every nightly check
# through ReFrame on this system, then judges the run. Success needs at least
# one check passed and none failed: a run that selected nothing or skipped
# everything has validated nothing and fails.
#
# Extra arguments go to reframe (e.g. --system NAME, -n PATTERN, -S VAR=VAL).
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

# One run per checkout: a second one refuses, naming the running one
# (HPC_ACCEPTANCE_WAIT=1: waits for it instead).
if [ -z "${HPC_ACCEPTANCE_LOCK_HELD:-}" ]; then
    exec env PYTHONPATH=checks python3 -m hpc_acceptance.tools.run_lock \
        ${HPC_ACCEPTANCE_WAIT:+--wait} -- "$0" "$@"
fi
ci/setup.sh

# One JSON report per acceptance run, so the verdict reads this run's.
report=${RFM_REPORT_FILE:-$project_dir/var/reports/acceptance-$(date -u +%Y%m%dT%H%M%SZ).json}
mkdir -p "$(dirname "$report")"

rm -f "$report"

reframe_status=0
RFM_REPORT_FILE=$report .venv/bin/reframe -C config/settings.py \
    --mode nightly -r "$@" || reframe_status=$?

exec .venv/bin/hpc-acceptance verdict "$report" "$reframe_status"
