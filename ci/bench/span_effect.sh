#!/usr/bin/env bash
# What the memory kernels' --span-ms does on this machine: each figure as
# the best of 5 back-to-back timed runs (--span-ms=1, as before the span)
# against the best of runs spanning SPAN_MS (default 2000, the checks'
# span_ms), interleaved RUNS times (default 15) on core 0:
#   latency.<llc>  mem_latency, one thread, the last cache level's working set
#   flops.l1       mem_daxpy, one thread, the L1 working set
# sizes as the checks size them (hpc-acceptance topology). Prints, per
# figure and side, the runs' min / median / max and their spread
# ((max - min) / median). Bursts from whatever shares the core or a cache
# widen the back-to-back side; on an idle node of one's own both agree.
#
# Exit status: 0 measured, 2 cannot run (no .venv, no cache information,
#              build or run failure).
# Environment: RUNS, SPAN_MS, CC, CFLAGS (passed to make when set),
#              HPC_ACCEPTANCE (default: the project's .venv made by
#              ci/setup.sh).
set -euo pipefail

die() { echo "span_effect: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src="$here/../../src/memory"
runs=${RUNS:-15}
span_ms=${SPAN_MS:-2000}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS=$runs: not a positive integer"
[[ $span_ms =~ ^[1-9][0-9]*$ ]] || die "SPAN_MS=$span_ms: not a positive integer"

source "$here/prepare.sh"
read_node_sizes
l1=$(node_figure working_set_l1)
llc_line=$(grep '^working_set_l' <<<"$node" | tail -n 1)
llc=$(awk '{ sub("working_set_", "", $1); print $1 }' <<<"$llc_line")
llc_bytes=$(awk '{ print $2 }' <<<"$llc_line")
[ -n "$l1" ] && [ -n "$llc" ] || die "no cache working sets in: $node"

build_privately "$src" mem_latency mem_daxpy

# figure NAME PROGRAM ARGS...: NAME from one validated run on core 0
figure() {
    local name=$1; shift
    validated_figure "$name" env OMP_NUM_THREADS=1 OMP_PROC_BIND=true \
        OMP_PLACES='{0}' "$@"
}

echo "core 0, one thread; $llc working set $llc_bytes B, l1 $l1 B; $runs interleaved runs per side"
: >"$tmp/values"
for ((i = 1; i <= runs; i++)); do
    for side in back-to-back spanned; do
        span=$span_ms
        [ "$side" = back-to-back ] && span=1
        # assigned first: set -e stops at a failed run, an echo would not
        latency=$(figure "latency.$llc" "$tmp/mem_latency" --max=4K \
            --sizes="$llc:$llc_bytes" --repeats=5 --span-ms="$span")
        flops=$(figure flops.l1 "$tmp/mem_daxpy" --sizes="l1:$l1" \
            --repeats=5 --span-ms="$span")
        echo "latency.$llc ns $side $latency" >>"$tmp/values"
        echo "flops.l1 MFLOP/s $side $flops" >>"$tmp/values"
    done
done

printf '%-16s %-9s %-34s %s\n' figure unit "best of 5 back-to-back" \
    "best over $span_ms ms"
for key in "latency.$llc ns" "flops.l1 MFLOP/s"; do
    row=$key
    for side in back-to-back spanned; do
        row+=" $(awk -v k="$key" -v s="$side" '$1 " " $2 == k && $3 == s { print $4 }' \
                 "$tmp/values" | sort -g | awk '
            { v[NR] = $1 }
            END {
                med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                printf "%.4g/%.4g/%.4g(%.0f%%)", v[1], med, v[NR], 100 * (v[NR] - v[1]) / med
            }')"
    done
    read -r name unit a b <<<"$row"
    printf '%-16s %-9s %-34s %s\n' "$name" "$unit" "${a//\// / }" "${b//\// / }"
done
echo "(min / median / max (spread) of $runs runs each)"
