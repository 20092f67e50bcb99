#!/usr/bin/env bash
# The local acceptance suite: sets the machine up, runs every nightly check
# through ReFrame on this system, then judges the run. Success needs at least
# one check passed and none failed: a run that selected nothing or skipped
# everything has validated nothing and fails. Its results must reach the
# results database: a database that cannot take them stops the run before
# any check runs, and a run whose results were not stored is not a success
# (`hpc-acceptance db`). Before each run the database is backed up (the
# newest HPC_ACCEPTANCE_DB_BACKUPS copies, default 7, are kept in backups/
# beside it). Exit status: ci/README.md, "Exit status" (the one table).
#
#   ci/acceptance.sh [--full-output] [--fleet[=STATE]]
#                    [--fleet-mode node-jobs|distribute] [--node-time-limit MIN]
#                    [--nodes-per-job N] [--reservation NAME] [--max-jobs N]
#                    [REFRAME ARGS...]
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
# starts (idle by default, avail in a reservation, all, or a Slurm state):
# one Slurm job per node running the node's whole set (--fleet-mode
# node-jobs, the default; --node-time-limit MIN bounds each, within the
# partition's and the reservation's limits; beyond 64 nodes, or with
# --nodes-per-job N, a job covers several nodes, one step a node), or
# ReFrame's --distribute, a job per node and check (--fleet-mode
# distribute); the nodes it leaves out are
# listed with their state and reason; a node whose job did not start, was
# stopped, died or left a truncated report is named; the checks that made a
# node a suspect run once more on it; then the multi-node checks run once, as
# in the nightly. Each node is
# compared with its partition's other nodes of the same hardware and
# software, and each partition's median with its references or its earlier
# fleet runs (hpc-acceptance suspects): a suspect node that is still out on
# its rerun, or a partition that lost as a whole, fails the run.
# --reservation NAME: run the jobs in that Slurm reservation (a maintenance
# window). --max-jobs N: at most N jobs submitted at once per scheduler
# partition (a fleet run's default: one per node it covers; node jobs: at
# most N queued at once, within Slurm's own limits).
#
# The options above come first; the other arguments go to reframe (e.g.
# --system NAME, -n PATTERN, -S VAR=VAL).
#
# This script takes the checkout's run lock and sets the machine up; the run
# itself, from its report's name to its verdict, is `hpc-acceptance run`
# (checks/hpc_acceptance/tools/pipeline/run.py).
set -euo pipefail

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$project_dir"

# The system is named, not guessed, where a site names it: --system NAME
# among the reframe arguments, else HPC_ACCEPTANCE_SYSTEM, which is then
# passed on; an unknown one stops here before anything runs (exit 2), as
# in ci/nightly.sh. Neither: ReFrame picks the system by host name (the
# embedded default `local` on a machine no system file names). A command
# line that layers a configuration file of its own (-C) may name a system
# of that file: ReFrame, which reads it, judges that name.
system=
shown=
layered=
for (( i = 1; i <= $#; i++ )); do
    case ${!i} in
        --system=*) system=${!i#--system=} shown="--system $system" ;;
        --system) j=$(( i + 1 )); system=${!j:-} shown="--system $system" ;;
        -C|-C?*|--config-file|--config-file=*) layered=yes ;;
        --) break ;;
    esac
done
if [[ -n $shown && -n $layered ]]; then
    shown=
elif [[ -z $shown && -n ${HPC_ACCEPTANCE_SYSTEM:-} ]]; then
    system=$HPC_ACCEPTANCE_SYSTEM shown="HPC_ACCEPTANCE_SYSTEM=$system"
    set -- "$@" --system "$system"
fi
# shellcheck source=ci/named-system.sh
. ci/named-system.sh
if [[ -n $shown ]]; then
    require_system acceptance "${system%%:*}" "$shown" \
        "--system names no system" 'README.md, "Add your system"'
fi
if [[ -n ${HPC_ACCEPTANCE_SITE_DIR:-} && ! -d $HPC_ACCEPTANCE_SITE_DIR ]]; then
    require_site_dir acceptance     # says why, exits 2
fi

# One run per checkout: a second one refuses, naming the running one
# (HPC_ACCEPTANCE_WAIT=1: waits for it instead).
if [ -z "${HPC_ACCEPTANCE_LOCK_HELD:-}" ]; then
    exec env PYTHONPATH=checks python3 -m hpc_acceptance.tools.launch.lock \
        ${HPC_ACCEPTANCE_WAIT:+--wait} -- "$0" "$@"
fi
# HPC_ACCEPTANCE_SETUP=verify (the night's): install nothing, verify what
# an administrator set up (ci/setup.sh --verify).
setup_options=()
case ${HPC_ACCEPTANCE_SETUP:-install} in
    install) ;;
    verify) setup_options=(--verify) ;;
    *) echo "acceptance: HPC_ACCEPTANCE_SETUP=$HPC_ACCEPTANCE_SETUP:" \
            "install (the default) or verify. Nothing was run." >&2
       exit 2 ;;
esac
ci/setup.sh "${setup_options[@]}"
exec .venv/bin/hpc-acceptance run "$@"
