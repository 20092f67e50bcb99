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
#   ci/acceptance.sh [--full-output] [--fleet[=STATE]]
#                    [--reservation NAME] [--max-jobs N] [REFRAME ARGS...]
#
# ReFrame's own output (its performance table included) goes to a log file
# beside the JSON report; the run ends with a short summary and the path of
# the HTML report page. --full-output shows ReFrame's output as it runs, too.
# The JSON report is RFM_REPORT_FILE (default
# var/reports/acceptance-<time>.json); ReFrame's {sessionid} in its name
# becomes a number no earlier report has, and an earlier run's files at a
# fixed name are kept, renamed with that run's time: no run deletes another
# run's report.
#
# --fleet: the fleet run. Every single-node check of the nightly set runs
# once on each node of the system's partitions that is in STATE when the run
# starts (ReFrame's --distribute: idle by default, avail in a reservation,
# all, or a Slurm state); the nodes it leaves out are listed with their state
# and reason; the checks that made a node a suspect run once more on it;
# then the multi-node checks run once, as in the nightly. Each node is
# compared with its partition's other nodes of the same hardware and
# software, and each partition's median with its references or its earlier
# fleet runs (hpc-acceptance suspects): a suspect node that is still out on
# its rerun, or a partition that lost as a whole, fails the run.
# --reservation NAME: run the jobs in that Slurm reservation (a maintenance
# window). --max-jobs N: at most N jobs submitted at once per scheduler
# partition (a fleet run's default: one per node it covers).
#
# The options above come first; the other arguments go to reframe (e.g.
# --system NAME, -n PATTERN, -S VAR=VAL).
set -euo pipefail

usage() {
    sed -n '/^#   ci/,/^#  *\[--reservation/p' "$0" | sed 's/^#//' >&2
    exit 2
}

full_output=false
fleet=false
fleet_state=
reservation=
max_jobs=
while (( $# )); do
    case $1 in
        --full-output) full_output=true ;;
        --fleet) fleet=true ;;
        --fleet=?*) fleet=true; fleet_state=${1#*=} ;;
        --reservation) (( $# > 1 )) || usage; reservation=$2; shift ;;
        --reservation=?*) reservation=${1#*=} ;;
        --max-jobs) (( $# > 1 )) || usage; max_jobs=$2; shift ;;
        --max-jobs=?*) max_jobs=${1#*=} ;;
        *) break ;;
    esac
    shift
done
if [[ -n $max_jobs && ! $max_jobs =~ ^[1-9][0-9]*$ ]]; then
    echo "acceptance: --max-jobs $max_jobs: a whole number, 1 or more" >&2
    exit 2
fi

own_options=()
$full_output && own_options+=(--full-output)
$fleet && own_options+=("--fleet${fleet_state:+=$fleet_state}")
[[ -z $reservation ]] || own_options+=("--reservation=$reservation")
[[ -z $max_jobs ]] || own_options+=("--max-jobs=$max_jobs")

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

# One run per checkout: a second one refuses, naming the running one
# (HPC_ACCEPTANCE_WAIT=1: waits for it instead).
if [ -z "${HPC_ACCEPTANCE_LOCK_HELD:-}" ]; then
    exec env PYTHONPATH=checks python3 -m hpc_acceptance.tools.launch.lock \
        ${HPC_ACCEPTANCE_WAIT:+--wait} -- "$0" "${own_options[@]}" "$@"
fi
ci/setup.sh

# One JSON report per ReFrame run, so the verdict reads this run's, and
# none of an earlier run deleted: the database's recovery imports them.
# RFM_REPORT_FILE's {sessionid} is expanded here, as ReFrame would, for the
# files named after the report; a fixed name's earlier run is renamed.
report=$(.venv/bin/python -m hpc_acceptance.tools.launch.report_file \
    "${RFM_REPORT_FILE:-$project_dir/var/reports/acceptance-$(date -u +%Y%m%dT%H%M%SZ).json}") ||
    exit 2

if ! .venv/bin/hpc-acceptance db check --reports "$(dirname "$report")" \
        > /dev/null ||
   ! .venv/bin/hpc-acceptance db backup \
        --keep "${HPC_ACCEPTANCE_DB_BACKUPS:-7}" > /dev/null; then
    echo "acceptance NOT RUN: the results database cannot take this" \
         "run's results (see above); no check was run" >&2
    exit 5
fi
# A Spack environment the earlier runs used and this one will not have, for
# the system the run names (reframe's --system), else the nightly's.
drift_system=${HPC_ACCEPTANCE_SYSTEM:-local}
previous=
for arg in "$@"; do
    case $previous,$arg in
        --system,*) drift_system=${arg%%:*} ;;
        *,--system=*) drift_system=${arg#--system=}; drift_system=${drift_system%%:*} ;;
    esac
    previous=$arg
done
.venv/bin/hpc-acceptance dependency-drift --system "$drift_system"

job_options=()
if [[ -n $reservation ]]; then
    job_options=(-J "reservation=$reservation")
fi

if [[ -n $max_jobs ]]; then
    export HPC_ACCEPTANCE_MAX_JOBS=$max_jobs
fi

# Runs reframe with the given options, its output into the log beside the
# given report; sets reframe_status.
run_reframe() {
    local run_report=$1 log=${1%.json}.log
    shift
    echo "acceptance: ReFrame's output goes to $log"
    reframe_status=0
    if $full_output; then
        RFM_REPORT_FILE=$run_report .venv/bin/reframe -C config/settings.py \
            "$@" 2>&1 | tee "$log" || reframe_status=$?
    else
        # Only a file sees this output: no colour codes in it.
        RFM_COLORIZE=n RFM_REPORT_FILE=$run_report .venv/bin/reframe \
            -C config/settings.py "$@" > "$log" 2>&1 || reframe_status=$?
    fi
}

reports=()
statuses=()
nodes_args=()
if $fleet; then
    if [[ -z $fleet_state ]]; then
        # In a reservation the nodes are reserved for this run: busy or not.
        fleet_state=${reservation:+avail}
        fleet_state=${fleet_state:-idle}
    fi
    nodes=${report%.json}-nodes.json
    echo "acceptance: the nodes this fleet run covers ($fleet_state):"
    .venv/bin/hpc-acceptance nodes --state "$fleet_state" --json "$nodes" \
        -C config/settings.py "${job_options[@]}" "$@" | sed 's/^/  /' || {
        echo "acceptance NOT VALIDATED: no node to run on (see above)" >&2
        exit 2
    }
    nodes_args=(--nodes "$nodes")
    if [[ -z $max_jobs ]]; then
        HPC_ACCEPTANCE_MAX_JOBS=$(.venv/bin/python -c '
import json, sys
print(max(1, sum(len(p["covered"]) for p in json.load(open(sys.argv[1])).values())))
' "$nodes")
        export HPC_ACCEPTANCE_MAX_JOBS
    fi

    run_reframe "$report" --mode fleet --distribute="$fleet_state" -r \
        "${job_options[@]}" "$@"
    reports+=("$report"); statuses+=("$reframe_status")
    # Before a node is named a suspect, its slow or failing checks run once
    # more on it; the rerun's test cases replace the first attempts.
    rerun=()
    if [[ -s $report ]]; then
        mapfile -d '' rerun < <(.venv/bin/hpc-acceptance suspects \
            --rerun-args --run-report "$report" --nodes "$nodes" \
            --state "$fleet_state" -- "${job_options[@]}" "$@")
    fi
    if (( ${#rerun[@]} )); then
        confirm=${report%.json}-confirm.json
        echo "acceptance: the suspects' checks once more, on their nodes"
        run_reframe "$confirm" "${rerun[@]}"
        reports+=("$confirm"); statuses+=("$reframe_status")
    fi
    # the checks that need several nodes: once, as in the nightly
    multinode=${report%.json}-multinode.json
    run_reframe "$multinode" --mode nightly --tag=multinode -r \
        "${job_options[@]}" "$@"
    reports+=("$multinode"); statuses+=("$reframe_status")
else
    run_reframe "$report" --mode nightly -r "${job_options[@]}" "$@"
    reports+=("$report"); statuses+=("$reframe_status")
fi

# The end every run shares (hpc-acceptance finish): the site's store, the
# summary, where the binaries came from, the report page, that the results
# database holds every run (else exit 5), and the verdict, last.
pairs=()
for i in "${!reports[@]}"; do
    pairs+=("${reports[$i]}" "${statuses[$i]}")
done
exec .venv/bin/hpc-acceptance finish "${pairs[@]}" "${nodes_args[@]}"
