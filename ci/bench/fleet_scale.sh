#!/usr/bin/env bash
# The fleet tools at a real fleet's size: a synthetic fleet run of NODES
# nodes x FIGURES figures (default 1000 x 100; tests/helpers/fleet_cases.py:
# nodes scattered by a few percent, two of them slow), then the wall time of
#   hpc-acceptance suspects --run-report ...      (the comparison)
#   hpc-acceptance page --run-report ...          (the page: heat map,
#                                                  a trend per figure)
# with an empty results database of its own. Prints each time in seconds,
# the suspects found (they must be n2 and the middle node) and the page.
#
# Exit status: 0 measured, 1 the suspects are not the slow nodes, 2 cannot
#              run (no .venv: run ci/setup.sh first).
# Environment: NODES, FIGURES.
set -euo pipefail

die() { echo "fleet_scale: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project=$(cd "$here/../.." && pwd)
nodes=${NODES:-1000}
figures=${FIGURES:-100}
[[ $nodes =~ ^[1-9][0-9]*$ ]] || die "NODES=$nodes: not a positive integer"
[[ $figures =~ ^[1-9][0-9]*$ && $(( figures % 5 )) == 0 ]] ||
    die "FIGURES=$figures: a positive multiple of 5"
python=$project/.venv/bin/python
tool=$project/.venv/bin/hpc-acceptance
[ -x "$tool" ] || die "no $tool: run ci/setup.sh first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
middle=n$(( nodes / 2 ))
PYTHONPATH=$project/tests "$python" - "$tmp/report.json" "$nodes" \
    "$figures" "$middle" <<'PY'
import json, sys
from helpers import fleet_cases
path, nodes, figures, middle = sys.argv[1], int(sys.argv[2]), \
    int(sys.argv[3]), sys.argv[4]
cases = fleet_cases.big_fleet(nodes, figures, slow={
    'n2': (0.3, ('Synthetic01Check',)), middle: (0.2, ('Synthetic00Check',))})
json.dump({'session_info': {'uuid': 'fleet-scale', 'fleet': 'yes'},
           'runs': [{'testcases': cases}]}, open(path, 'w'))
PY

export RFM_SQLITE_DB_FILE=$tmp/results.db
seconds() { local start=$1; awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }

start=$(date +%s.%N)
status=0
"$tool" suspects --run-report "$tmp/report.json" --format slurm \
    > "$tmp/suspects.txt" || status=$?
echo "suspects: $(seconds "$start") s for $nodes nodes x $figures figures"
(( status == 1 )) || die "hpc-acceptance suspects exited $status"
found=$(sed -n 's/.*NodeName=\([^ ]*\) .*/\1/p' "$tmp/suspects.txt" | sort | tr '\n' ' ')
echo "suspects found: $found"

start=$(date +%s.%N)
page=$("$tool" page --run-report "$tmp/report.json" --output "$tmp/page")
echo "report page: $(seconds "$start") s ($(ls "$tmp/page" | wc -l) files)"

expected=$(printf '%s\n' n2 "$middle" | sort | tr '\n' ' ')
[[ $found == "$expected" ]] || { echo "fleet_scale: expected $expected" >&2; exit 1; }
echo "page: $page (removed on exit)"
