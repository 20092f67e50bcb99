#!/usr/bin/env bash
# Read bandwidth of src/memory's mem_readbw versus likwid-bench's read-only
# kernels (ddot_avx and load_avx, their AVX-512 forms where the CPU has
# AVX-512) on the memory working set the memory checks use: 4 x the
# last-level caches of the node, at least 1 GiB (hpc-acceptance topology).
#
# likwid-bench is Debian's likwid package, installed by the bench's own
# setup (ci/bench/setup.sh likwid: apt-get, as root) when it is missing.
# Builds src/memory in a temporary directory, then runs pairs: mem_readbw
# and each likwid kernel, in alternating order, with one thread per core,
# until the median ratio ours / best peer has a 95 % interval within
# +-HALF_WIDTH or the limits are reached (ci/bench/pairs.sh,
# ci/bench/paired_ratio.py). The best peer is the likwid kernel with the
# highest median; the others are printed for the record.
#
# Both sides read from the same kind of pages: mem_readbw asks for
# transparent huge pages (madvise), likwid-bench does not, so where THP is
# not `always` likwid reads from 4 KiB pages and mem_readbw runs with THP
# disabled (ci/bench/without_huge_pages.py). PAGES=checks runs mem_readbw
# as the memory checks do instead: the difference then includes the pages'.
#
# Exit status: 0 within TOLERANCE (the interval inside +-3 %) of the best
#              peer, 1 below or above it (the interval wholly outside), 2
#              inconclusive or cannot run (likwid-bench missing and not
#              installable, no cache information, no .venv, build or run
#              failure).
# Environment: TOLERANCE, HALF_WIDTH, MIN_PAIRS, MAX_PAIRS, MAX_MINUTES
#              (ci/bench/pairs.sh), WORKING_SET_BYTES (overrides the checks' working set),
#              PAGES (peer: the pages likwid gets, default; checks),
#              CC, CFLAGS (passed to make when set), HPC_ACCEPTANCE
#              (default: the project's .venv made by ci/setup.sh).
set -euo pipefail

die() { echo "read_bandwidth_vs_likwid: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src="$here/../../src/memory"
[ -f "$src/Makefile" ] || die "no $src/Makefile"
pages=${PAGES:-peer}
[[ $pages = peer || $pages = checks ]] || die "PAGES=$pages: expected peer or checks"
"$here/setup.sh" likwid || die "no likwid-bench to compare with; nothing measured"

# ---- sizes the memory checks use on this node (hpc-acceptance topology) ----
source "$here/prepare.sh"
read_node_sizes
ws=${WORKING_SET_BYTES:-$(node_figure memory_working_set)}
cores=$(node_figure cores)
sockets=$(node_figure sockets)
# likwid's workgroup is per affinity domain: S0 is the first socket only
if (( sockets > 1 )); then domain=N; else domain=S0; fi

build_privately "$src" mem_readbw
source "$here/pairs.sh"

# The kernel's THP mode, the bracketed word of "always [madvise] never"
thp=$(grep -o '\[[a-z]*\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null | tr -d '[]') || thp=absent
if [ "$pages" = checks ] || [ "$thp" = always ]; then
    ours_pages=()
    pages_said="as the memory checks run it (huge pages where it gets them)"
else
    ours_pages=("$pairs_python" "$here/without_huge_pages.py")
    pages_said="without huge pages, as likwid-bench reads (PAGES=checks: as the checks run it)"
fi

echo "likwid-bench: $(command -v likwid-bench), $(likwid-bench -h 2>&1 | grep -m1 -o 'Version *[0-9.]*' || echo 'version unknown')"
echo "working set: $ws bytes; $cores core(s), $sockets socket(s); likwid workgroup $domain:${ws}B:$cores"
echo "transparent huge pages: $thp; mem_readbw $pages_said"

# One timed repetition, as likwid-bench times one run: the checks' best of
# five picks the fastest moment of a noisy node, likwid reports the mean
# (src/memory/README.md, "Read bandwidth against likwid-bench").
run_ours() {
    local out
    out=$(OMP_NUM_THREADS=$cores OMP_PROC_BIND=close OMP_PLACES=cores \
          "${ours_pages[@]}" "$tmp/mem_readbw" --sizes=memory:"$ws" --repeats=1 --span-ms=1) || die "mem_readbw failed (status $?)"
    [ "$(tail -n 1 <<<"$out")" = "# validation: passed" ] || die "mem_readbw did not validate: $(tail -n 1 <<<"$out")"
    out=$(awk '$1 == "bandwidth.memory" && $3 == "MB/s" { print $2 }' <<<"$out")
    [ -n "$out" ] || die "no bandwidth.memory line from mem_readbw"
    echo "$out"
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
    out=$(awk -F: '/^MByte\/s:/ { gsub(/[ \t]/, "", $2); print $2 }' <<<"$out")
    [ -n "$out" ] || die "no MByte/s line from likwid-bench -t $1"
    echo "$out"
}

# read_pair N ORDER: "N read SIDE MB/s" of mem_readbw and each likwid kernel
read_pair() {
    local sides side value
    mapfile -t sides < <(printf '%s\n' ours "${peers[@]}")
    [ "$2" = ours-first ] || mapfile -t sides < <(printf '%s\n' "${sides[@]}" | tac)
    for side in "${sides[@]}"; do
        if [ "$side" = ours ]; then value=$(run_ours); else value=$(run_likwid "$side"); fi
        echo "$1 read $side $value"
    done
}

run_pairs read_pair
