#!/usr/bin/env bash
# Whether the kernels' own repetition inside a job narrows the spread from
# night to night on this machine: NIGHTS nightly-like runs (--mode nightly)
# of the one-thread memory and STREAM checks, each run holding every
# setting compared, so that whatever else loads the machine hits them all
# alike:
#   memory kernels  best of 5 back-to-back timed runs (span_ms=1), best of
#                   the runs over 500 ms, over 2000 ms (the default)
#   STREAM          best of 10 repetitions (ntimes, the default) and of 20
# ReFrame makes each setting a parameter (-P), so each is a figure of its
# own in the run's results database ($STATE_DIR/results.db): the same
# nightly series that ci/bench/detection.py reads. Then
# ci/bench/repetition_table.py prints, per figure and setting, the
# night-to-night spread (robust: 1.4826 x the median absolute deviation,
# relative to the median; and the largest deviation).
#
# Usage: ci/bench/repetition.sh
# Environment: NIGHTS (40), PAUSE (seconds between runs, 0), STATE_DIR
#   (default var/bench/repetition-<time>; an existing one is added to:
#   its runs count too).
# Exit status: 0 measured; 2 nothing was stored.
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$project_dir"
if [ -z "${HPC_ACCEPTANCE_LOCK_HELD:-}" ]; then
    exec env PYTHONPATH=checks python3 -m hpc_acceptance.tools.launch.lock \
        -- "$0" "$@"
fi

source ci/bench/nightly_runs.sh
nightly_state "${STATE_DIR:-$project_dir/var/bench/repetition-$(date -u +%Y%m%dT%H%M%SZ)}"
nights=${NIGHTS:-40}
pause=${PAUSE:-0}
[[ $nights =~ ^[1-9][0-9]*$ ]] || { echo "NIGHTS=$nights: a whole number" >&2; exit 2; }

select_checks -c checks/memory/read_bandwidth.py -c checks/memory/latency.py \
    -c checks/memory/daxpy.py -c checks/stream/stream.py -n '%threads=single'
for ((night = 1; night <= nights; night++)); do
    reframe_run "night-$(date -u +%Y%m%dT%H%M%SZ)" "${select[@]}" \
        -P span_ms=1,500,2000 -P ntimes=10,20
    echo "repetition: night $night of $nights stored in $state/results.db"
    sleep "$pause"
done

.venv/bin/python ci/bench/repetition_table.py "$state/results.db"
