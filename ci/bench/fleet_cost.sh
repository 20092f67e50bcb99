#!/usr/bin/env bash
# What a fleet night costs as the fleet grows, both ways side by side: the
# fleet nightly (ci/acceptance.sh --fleet) as one Slurm job per node
# (--fleet-mode node-jobs) and through ReFrame's --distribute (a job per
# node and check), on Slurm clusters of growing size, each a cluster of
# nodes in network namespaces of this machine
# (tests/helpers/slurm_cluster.py), one size and mode after the other; per
# night its wall time and from the first submission to the verdict, the
# jobs submitted, each job's time from submission to start, a node's busy
# time and overhead, the CPU of what orchestrates the night (ReFrame, the
# node jobs' coordinator) and of slurmctld; then each mode's figures fitted
# and projected to 1000 and 10000 nodes running the nightly set
# (ci/bench/fleet_cost.py compare), and the distributed nights' classes
# projected to PROJECT_NODES (fleet_cost.py table).
#
# Usage: ci/bench/fleet_cost.sh [ACCEPTANCE ARGS...]
#   default: the fleet test's three short checks, at most 4 nodes at once
#   (4 jobs of a node, ReFrame's 4 jobs, or 1 job of 4 nodes): the nodes
#   share this machine's cores (ci/bench/README.md, "A fleet night: one job
#   per node or one per check")
# Environment: SIZES (default "4 8 16 32 64"), MODES (default "node-jobs
#   distribute"; node-groups: node jobs of 4 nodes each), PROJECT_NODES
#   (1000), STATE_DIR (default
#   var/bench/fleet-cost-<time>: one folder per size and mode with its
#   results database, reports, Slurm logs, process timeline and
#   measures.json; the tables in compare.md and table.md).
# As root, with Debian's slurm-wlm and munge (ci/test.sh installs them)
# and .venv from ci/setup.sh --test. The clusters take the machine-wide
# Slurm lock of the tests (tests/helpers/machine_lock.py): a test run's cluster
# and these wait for each other.
# Exit status: 0 measured (whatever the nights' verdicts, in each size's
#   acceptance.log), 2 cannot run.
set -euo pipefail

die() { echo "fleet_cost: $*" >&2; exit 2; }

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$project_dir"
[ -x .venv/bin/python ] || die "no .venv: run ci/setup.sh --test first"
(( EUID == 0 )) || die "the test clusters' daemons need root"
sizes=${SIZES:-4 8 16 32 64}
for n in $sizes; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "SIZES: $n is not a number of nodes"
done
modes=${MODES:-node-jobs distribute}
for mode in $modes; do
    [[ $mode == node-jobs || $mode == node-groups || $mode == distribute ]] ||
        die "MODES: $mode is none of node-jobs, node-groups, distribute"
done
project_nodes=${PROJECT_NODES:-1000}
[[ $project_nodes =~ ^[1-9][0-9]*$ ]] ||
    die "PROJECT_NODES=$project_nodes: not a number of nodes"
state=${STATE_DIR:-$project_dir/var/bench/fleet-cost-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$state"
# The fleet test's short checks: seconds a node, each figure the best of
# runs spanning 0.2 s (tests/e2e/test_fleet_run.py).
(( $# )) || set -- -n 'StreamCheck.*all_cores' \
    -n 'MemoryDaxpyCheck.*single' -n 'MemoryReadBandwidthCheck.*all_cores' \
    -S span_ms=200

bench=(.venv/bin/python ci/bench/fleet_cost.py)
nights=()
distributed=()
for n in $sizes; do
    for mode in $modes; do
        night=$state/nodes-$n-$mode
        echo "fleet_cost: $n nodes, $mode (output in $night/acceptance.log)"
        case $mode in
            node-groups) how=(--fleet-mode node-jobs --nodes-per-job 4
                              --max-jobs 1) ;;
            *) how=(--fleet-mode "$mode" --max-jobs 4) ;;
        esac
        "${bench[@]}" run "$night" "$n" "${how[@]}" "$@" ||
            die "the $n-node night ($mode) did not run"
        "${bench[@]}" measure "$night" > /dev/null ||
            die "the $n-node night ($mode) left nothing to measure; see $night"
        nights+=("$night")
        [[ $mode == distribute ]] && distributed+=("$night")
    done
done
"${bench[@]}" compare "${nights[@]}" | tee "$state/compare.md"
if (( ${#distributed[@]} )); then
    "${bench[@]}" table "${distributed[@]}" --nodes "$project_nodes" |
        tee "$state/table.md"
fi
