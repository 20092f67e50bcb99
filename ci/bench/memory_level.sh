#!/usr/bin/env bash
# Where this node's read bandwidth reaches its memory plateau: mem_readbw
# at total working sets from SIZES (default 32M to 2G), one thread and one
# per core (OMP_PLACES=cores), interleaved RUNS times (default 5); prints
# the median of each, and the working set the checks take for "memory"
# (hpc-acceptance topology). A size still above the plateau is read partly
# from a cache: on a virtual machine told of less cache than its host has,
# four times the last-level cache it is told of can be one.
#
# Exit status: 0 measured, 2 cannot run (no .venv, build or run failure).
# Environment: RUNS, SIZES, SPAN_MS (default 200), CC, CFLAGS (passed to
#              make when set), HPC_ACCEPTANCE (default: the project's .venv
#              made by ci/setup.sh).
set -euo pipefail

die() { echo "memory_level: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
runs=${RUNS:-5}
span_ms=${SPAN_MS:-200}
sizes=${SIZES:-32M 64M 128M 256M 512M 1G 2G}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS=$runs: not a positive integer"
[[ $span_ms =~ ^[1-9][0-9]*$ ]] || die "SPAN_MS=$span_ms: not a positive integer"
for size in $sizes; do
    [[ $size =~ ^[1-9][0-9]*[KMG]?$ ]] || die "SIZES: $size is not a size (like 128M)"
done

source "$here/prepare.sh"
read_node_sizes
cores=$(node_figure cores)
[ -n "$cores" ] || die "no core count in: $node"
build_privately "$here/../../src/memory" mem_readbw

# bandwidth THREADS SIZE: MB/s of one validated run
bandwidth() {
    validated_figure bandwidth.memory env OMP_NUM_THREADS="$1" \
        OMP_PROC_BIND=spread OMP_PLACES=cores \
        "$tmp/mem_readbw" --sizes="memory:$2" --span-ms="$span_ms"
}

echo "last-level cache this node is told of: $(lscpu | awk -F: '/^L3 cache|^L2 cache/ { l = $2 } END { print l }' | xargs)"
echo "the checks' memory working set: $(node_figure memory_working_set) B"
: >"$tmp/values"
for ((i = 1; i <= runs; i++)); do
    for size in $sizes; do
        for threads in 1 "$cores"; do
            # assigned first: set -e stops at a failed run, an echo would not
            value=$(bandwidth "$threads" "$size")
            echo "$size $threads $value" >>"$tmp/values"
        done
    done
done

printf '%-8s %18s %18s\n' "size" "1 thread MB/s" "$cores threads MB/s"
for size in $sizes; do
    row=()
    for threads in 1 "$cores"; do
        row+=("$(awk -v s="$size" -v t="$threads" '$1 == s && $2 == t { print $3 }' \
                 "$tmp/values" | sort -g | awk '
            { v[NR] = $1 }
            END { printf "%.0f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')")
    done
    printf '%-8s %18s %18s\n' "$size" "${row[0]}" "${row[1]}"
done
echo "(median of $runs interleaved runs, each the best over $span_ms ms)"
