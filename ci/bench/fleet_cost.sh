#!/usr/bin/env bash
# What a fleet night costs as the fleet grows: the fleet nightly
# (ci/acceptance.sh --fleet) on Slurm clusters of growing size, each a
# cluster of nodes in network namespaces of this machine
# (tests/helpers/slurm_cluster.py), one size after the other; per size its wall
# time, the jobs submitted, each job's time from submission to start, the
# time ReFrame took to notice an ended job, ReFrame's own time and CPU,
# slurmctld's CPU, and the share of the night that ran benchmarks; then
# each figure fitted to a + b * jobs and projected to PROJECT_NODES
# (ci/bench/fleet_cost.py).
#
# Usage: ci/bench/fleet_cost.sh [ACCEPTANCE ARGS...]
#   default: the fleet test's three short checks (ci/bench/README.md,
#   "What a fleet night costs")
# Environment: SIZES (default "4 8 16 32"), PROJECT_NODES (1000), STATE_DIR
#   (default var/bench/fleet-cost-<time>: one folder per size with its
#   results database, reports, Slurm logs, process timeline and
#   measures.json; the tables in table.md).
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
sizes=${SIZES:-4 8 16 32}
for n in $sizes; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "SIZES: $n is not a number of nodes"
done
project_nodes=${PROJECT_NODES:-1000}
[[ $project_nodes =~ ^[1-9][0-9]*$ ]] ||
    die "PROJECT_NODES=$project_nodes: not a number of nodes"
state=${STATE_DIR:-$project_dir/var/bench/fleet-cost-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$state"
# The fleet test's short checks: seconds a node, each figure the best of
# runs spanning 0.2 s (tests/e2e/test_fleet_run.py).
(( $# )) || set -- -n 'StreamCheck.*all_cores' -n 'MemoryDaxpyCheck.*single' \
    -n 'MemoryReadBandwidthCheck.*all_cores' -S span_ms=200

bench=(.venv/bin/python ci/bench/fleet_cost.py)
nights=()
for n in $sizes; do
    night=$state/nodes-$n
    echo "fleet_cost: $n nodes (output in $night/acceptance.log)"
    "${bench[@]}" run "$night" "$n" "$@" || die "the $n-node night did not run"
    "${bench[@]}" measure "$night" > /dev/null ||
        die "the $n-node night left nothing to measure; see $night"
    nights+=("$night")
done
"${bench[@]}" table "${nights[@]}" --nodes "$project_nodes" |
    tee "$state/table.md"
