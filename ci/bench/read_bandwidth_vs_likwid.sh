#!/usr/bin/env bash
# Read bandwidth of src/memory's mem_readbw versus likwid-bench's read-only
# kernels (ddot_avx and load_avx, their AVX-512 forms where the CPU has
# AVX-512) on the memory working set the memory checks use: 4 x the
# last-level caches of the node (hpc-acceptance topology).
#
# Builds src/memory in a temporary directory, then runs mem_readbw and each
# likwid kernel alternately RUNS times (default 5) with one thread per core,
# and compares the medians with the best peer's (ci/bench/compare_medians.awk,
# which reports the runs' spread and draws no conclusion when the spread is
# larger than the difference).
#
# Exit status: 0 within TOLERANCE (default 0.03) of the best peer, 1 outside
#              it by more than the spread, 2 inconclusive or cannot run
#              (likwid-bench missing, no cache information, no .venv, build
#              or run failure).
# Environment: RUNS, TOLERANCE, WORKING_SET_BYTES (overrides 4 x LLC),
#              CC, CFLAGS (passed to make when set), HPC_ACCEPTANCE (default: the
#              project's .venv made by ci/setup.sh).
set -euo pipefail

die() { echo "read_bandwidth_vs_likwid: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src="$here/../../src/memory"
runs=${RUNS:-5}
tolerance=${TOLERANCE:-0.03}

if ! command -v likwid-bench >/dev/null 2>&1; then
    die "likwid-bench not found in PATH (install likwid); cannot compare, nothing measured"
fi
[ -f "$src/Makefile" ] || die "no $src/Makefile"

# ---- sizes the memory checks use on this node (hpc-acceptance topology) ----
source "$here/prepare.sh"
read_node_sizes
ws=${WORKING_SET_BYTES:-$(node_figure memory_working_set)}
cores=$(node_figure cores)
sockets=$(node_figure sockets)
# likwid's workgroup is per affinity domain: S0 is the first socket only
if (( sockets > 1 )); then domain=N; else domain=S0; fi

build_privately "$src" mem_readbw

echo "working set: $ws bytes; $cores core(s), $sockets socket(s); likwid workgroup $domain:${ws}B:$cores"

# One timed repetition, as likwid-bench times one run: the checks' best of
# five picks the fastest moment of a noisy node, likwid reports the mean
# (src/memory/README.md, "Read bandwidth against likwid-bench").
run_ours() {
    local out
    out=$(OMP_NUM_THREADS=$cores OMP_PROC_BIND=close OMP_PLACES=cores \
          "$tmp/mem_readbw" --sizes=memory:"$ws" --repeats=1 --span-ms=1) || die "mem_readbw failed (status $?)"
    [ "$(tail -n 1 <<<"$out")" = "# validation: passed" ] || die "mem_readbw did not validate: $(tail -n 1 <<<"$out")"
    awk '$1 == "bandwidth.memory" && $3 == "MB/s" { print $2 }' <<<"$out"
}

# likwid's read-only kernels this CPU runs. ddot reads two streams, as
# mem_readbw does (s += a(i); t += b(i)): with few cores the bandwidth a
# core reaches depends on how many streams it reads at once, so ddot is the
# fair peer; load (one stream) is printed for the record.
peers=(ddot_avx load_avx)
grep -qw avx512f /proc/cpuinfo && peers+=(ddot_avx512 load_avx512)

run_likwid() {  # KERNEL
    local out
    out=$(likwid-bench -t "$1" -w "$domain:${ws}B:$cores" 2>&1) \
        || { echo "$out" >&2; die "likwid-bench -t $1 failed"; }
    awk -F: '/^MByte\/s:/ { gsub(/[ \t]/, "", $2); print $2 }' <<<"$out"
}

: >"$tmp/rates"
for (( i = 1; i <= runs; i++ )); do
    o=$(run_ours)
    [ -n "$o" ] || die "no bandwidth.memory line from mem_readbw"
    line="run $i: mem_readbw $o MB/s"
    echo "read ours $o" >>"$tmp/rates"
    for peer in "${peers[@]}"; do
        l=$(run_likwid "$peer")
        [ -n "$l" ] || die "no MByte/s line from likwid-bench -t $peer"
        line+=", $peer $l MB/s"
        echo "$peer peer $l" >>"$tmp/rates"
    done
    echo "$line"
done

# the best peer: the likwid kernel with the highest median
best=$(for peer in "${peers[@]}"; do
           awk -v p="$peer" '$1 == p { print $3 }' "$tmp/rates" | sort -g |
               awk -v p="$peer" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, p }'
       done | sort -g | tail -n 1 | cut -d' ' -f2)
echo "best peer: likwid-bench -t $best (medians of $runs interleaved runs; spread = (max - min) / median)"
awk -v best="$best" '$1 == "read" || $1 == best { print "read", ($2 == "ours" ? "ours" : "peer"), $3 }' "$tmp/rates" |
    awk -v tolerance="$tolerance" -v ours=mem_readbw -v peer="$best" \
        -f "$here/compare_medians.awk"
