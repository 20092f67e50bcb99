#!/usr/bin/env bash
# Read bandwidth of src/memory's mem_readbw versus likwid-bench (load_avx)
# on the memory working set the memory checks use: 4 x the last-level
# caches of the node (hpc-acceptance topology).
#
# Builds src/memory in a temporary directory, then runs mem_readbw and
# likwid-bench alternately RUNS times each (default 3) with one thread per
# core, and compares the best figures.
#
# Exit status: 0 ratio >= THRESHOLD (default 0.95), 1 ratio below it,
#              2 cannot run (likwid-bench missing, no cache information,
#                no .venv, build or run failure).
# Environment: RUNS, THRESHOLD, WORKING_SET_BYTES (overrides 4 x LLC),
#              CC, CFLAGS (passed to make when set), HPC_ACCEPTANCE (default: the
#              project's .venv made by ci/setup.sh).
set -euo pipefail

die() { echo "read_bandwidth_vs_likwid: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src="$here/../../src/memory"
runs=${RUNS:-3}
threshold=${THRESHOLD:-0.95}

if ! command -v likwid-bench >/dev/null 2>&1; then
    die "likwid-bench not found in PATH (install likwid); cannot compare, nothing measured"
fi
[ -f "$src/Makefile" ] || die "no $src/Makefile"

# ---- sizes the memory checks use on this node (hpc-acceptance topology) ----
hpc_acceptance=${HPC_ACCEPTANCE:-$here/../../.venv/bin/hpc-acceptance}
[ -x "$hpc_acceptance" ] || die "no $hpc_acceptance: run ci/setup.sh first (or set HPC_ACCEPTANCE to this project's hpc-acceptance command)"
node=$("$hpc_acceptance" topology) || die "this node's topology gives no sizes"
figure() { awk -v n="$1" '$1 == n { print $2 }' <<<"$node"; }
ws=${WORKING_SET_BYTES:-$(figure memory_working_set)}
cores=$(figure cores)
sockets=$(figure sockets)
# likwid's workgroup is per affinity domain: S0 is the first socket only
if (( sockets > 1 )); then domain=N; else domain=S0; fi

# ---- build ----
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src"/Makefile "$src"/*.c "$src"/*.h "$tmp"/
make_args=()
[ -n "${CC:-}" ] && make_args+=("CC=$CC")
[ -n "${CFLAGS:-}" ] && make_args+=("CFLAGS=$CFLAGS")
make -s -C "$tmp" "${make_args[@]}" mem_readbw >"$tmp/build.log" 2>&1 \
    || { cat "$tmp/build.log" >&2; die "build of mem_readbw failed"; }

echo "working set: $ws bytes; $cores core(s), $sockets socket(s); likwid workgroup $domain:${ws}B:$cores"

run_ours() {
    local out
    out=$(OMP_NUM_THREADS=$cores OMP_PROC_BIND=close OMP_PLACES=cores \
          "$tmp/mem_readbw" --sizes=memory:"$ws") || die "mem_readbw failed (status $?)"
    [ "$(tail -n 1 <<<"$out")" = "# validation: passed" ] || die "mem_readbw did not validate: $(tail -n 1 <<<"$out")"
    awk '$1 == "bandwidth.memory" && $3 == "MB/s" { print $2 }' <<<"$out"
}

run_likwid() {
    local out
    out=$(likwid-bench -t load_avx -w "$domain:${ws}B:$cores" 2>&1) \
        || { echo "$out" >&2; die "likwid-bench failed"; }
    awk -F: '/^MByte\/s:/ { gsub(/[ \t]/, "", $2); print $2 }' <<<"$out"
}

best_ours=0
best_likwid=0
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 > b + 0) ? a : b }'; }
for (( i = 1; i <= runs; i++ )); do
    o=$(run_ours)
    l=$(run_likwid)
    [ -n "$o" ] || die "no bandwidth.memory line from mem_readbw"
    [ -n "$l" ] || die "no MByte/s line from likwid-bench"
    echo "run $i: mem_readbw $o MB/s, likwid-bench load_avx $l MB/s"
    best_ours=$(max "$best_ours" "$o")
    best_likwid=$(max "$best_likwid" "$l")
done

ratio=$(awk -v o="$best_ours" -v l="$best_likwid" 'BEGIN { printf "%.3f", o / l }')
echo "best mem_readbw: $best_ours MB/s"
echo "best likwid-bench load_avx: $best_likwid MB/s"
echo "ratio: $ratio (threshold $threshold)"
if awk -v r="$ratio" -v t="$threshold" 'BEGIN { exit !(r + 0 < t + 0) }'; then
    echo "FAIL: mem_readbw reaches less than $threshold x likwid-bench"
    exit 1
fi
echo "PASS"
