#!/usr/bin/env bash
# The local acceptance suite: sets the machine up, runs every nightly check
# through ReFrame on this system, then judges the run. Success needs at least
# one check passed and none failed: a run that selected nothing or skipped
# everything has validated nothing and fails. Its results must reach the
# results database: a database that cannot take them stops the run before
# any check runs, and a run whose results were not stored is not a success
# (exit 5 for both; `hpc-acceptance db`). Before each run the database is
# backed up (the newest HPC_ACCEPTANCE_DB_BACKUPS copies, default 7, are
# kept in backups/ beside it).
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

if ! .venv/bin/hpc-acceptance db check --reports "$(dirname "$report")" \
        > /dev/null ||
   ! .venv/bin/hpc-acceptance db backup \
        --keep "${HPC_ACCEPTANCE_DB_BACKUPS:-7}" > /dev/null; then
    echo "acceptance NOT RUN: the results database cannot take this" \
         "run's results (see above); no check was run" >&2
    exit 5
fi
# A Spack environment the earlier runs used and this one will not have.
.venv/bin/hpc-acceptance dependency-drift \
    --system "${HPC_ACCEPTANCE_SYSTEM:-local}"

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

# Empty when ReFrame could not write it (a full disk).
if [[ -s $report ]]; then
    .venv/bin/hpc-acceptance summary "$report" --log "$log" || true
    .venv/bin/hpc-acceptance dependency-drift "$report"
    # A report page that cannot be written must not hide the verdict.
    .venv/bin/hpc-acceptance report --run-report "$report" --log "$log" |
        sed 's/^/acceptance: report page /' ||
        echo "acceptance: the report page could not be written" >&2
else
    tail -n 20 "$log" >&2
fi

stored=0
.venv/bin/hpc-acceptance db check --run "$report" --log "$log" || stored=$?
status=0
.venv/bin/hpc-acceptance verdict "$report" "$reframe_status" || status=$?
if (( status == 0 && stored != 0 )); then
    echo "acceptance NOT STORED: the checks passed, but the results are" \
         "not in the results database (see above)" >&2
    exit 5
fi
exit "$status"
