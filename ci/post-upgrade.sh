#!/usr/bin/env bash
# Post-upgrade validation: runs the post-upgrade set through ReFrame, then
# prints a verdict per figure against the stored nightly runs of the same
# inputs (regressed / within noise / improved / no baseline) and writes it
# as JSON next to the run report.
#
# Exit status: 1 a figure regressed or a check failed, 2 nothing could be
# compared, 0 otherwise (3: ReFrame or the baseline could not be read,
# 4: another run holds this checkout, 5: the results database is unusable).
#
# Extra arguments go to reframe (e.g. -n PATTERN, -S VAR=VAL). Set
# POST_UPGRADE_BASELINE to compare with other stored sessions (default: the
# nightly sessions of the last 30 days), and NOISE_FLOORS to the system's
# own minimum bands learnt from its quiet repeats (e.g. "Memory=0.5").
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

if [ -z "${HPC_ACCEPTANCE_LOCK_HELD:-}" ]; then
    exec env PYTHONPATH=checks python3 -m hpc_acceptance.tools.run_lock \
        ${HPC_ACCEPTANCE_WAIT:+--wait} -- "$0" "$@"
fi

ci/setup.sh

# Its baseline and its own results are in the results database: a database
# that cannot be read or written stops the run before any check runs.
if ! .venv/bin/hpc-acceptance db check > /dev/null; then
    echo "post-upgrade NOT RUN: the results database cannot be used (see" \
         "above); no check was run" >&2
    exit 5
fi

exec .venv/bin/hpc-acceptance post-upgrade \
    ${POST_UPGRADE_BASELINE:+--baseline "$POST_UPGRADE_BASELINE"} \
    ${NOISE_FLOORS:+--floor "$NOISE_FLOORS"} -- "$@"
