#!/usr/bin/env bash
# The local acceptance suite: sets the machine up, runs every nightly check
# through ReFrame on this system, then judges the run. Success needs at least
# one check passed and none failed: a run that selected nothing or skipped
# everything has validated nothing and fails.
#
# ReFrame's own output (its performance table included) goes to a log file
# beside the JSON report; the run ends with a short summary and the path of
# the HTML report page. --full-output as the first argument shows ReFrame's
# output as it runs, too. Other arguments go to reframe (e.g. --system NAME,
# -n PATTERN, -S VAR=VAL).
set -euo pipefail

full_output=false
if [[ ${1:-} == --full-output ]]; then
    full_output=true
    shift
fi

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

log=${report%.json}.log
echo "acceptance: ReFrame's output goes to $log"
reframe_status=0
if $full_output; then
    RFM_REPORT_FILE=$report .venv/bin/reframe -C config/settings.py \
        --mode nightly -r "$@" 2>&1 | tee "$log" || reframe_status=$?
else
    # Only a file sees this output: no colour codes in it.
    RFM_COLORIZE=n RFM_REPORT_FILE=$report .venv/bin/reframe \
        -C config/settings.py --mode nightly -r "$@" > "$log" 2>&1 ||
        reframe_status=$?
fi

if [[ -f $report ]]; then
    .venv/bin/hpc-acceptance summary "$report" --log "$log" || true
    # A report page that cannot be written must not hide the verdict.
    .venv/bin/hpc-acceptance report --run-report "$report" --log "$log" |
        sed 's/^/acceptance: report page /' ||
        echo "acceptance: the report page could not be written" >&2
else
    tail -n 20 "$log" >&2
fi

exec .venv/bin/hpc-acceptance verdict "$report" "$reframe_status"
