#!/usr/bin/env bash
# The four kernels of src/stream's stream_intree versus McCalpin's STREAM,
# same array size, repetitions, threads and binding.
#
# Usage: ci/bench/stream_vs_mccalpin.sh
#
# McCalpin's STREAM is the one sites get: `stream+openmp` of the Spack
# environment ci/setup.sh installed (spack-envs/local, built for this
# machine's target; ci/bench/mccalpin_stream.sh finds it, or says what to
# run). Its array size and repetitions are compiled in: the script reads
# them from a first, uncounted run and runs stream_intree (built from
# src/stream in a temporary directory) with the same ones. Then pairs of
# runs, one of each program in alternating order, until every kernel's
# median ratio ours / McCalpin has a 95 % interval within +-HALF_WIDTH or
# the limits are reached (ci/bench/pairs.sh, ci/bench/paired_ratio.py).
#
# Exit status: 0 every kernel within TOLERANCE (its interval inside
#              +-3 %), 1 a kernel below or above it (its interval wholly
#              outside), 2 inconclusive (the interval straddles the
#              tolerance) or cannot compare (McCalpin's STREAM not
#              installed, arrays below the memory working set, build or run failure,
#              failed validation).
# Environment: TOLERANCE, HALF_WIDTH, MIN_PAIRS, MAX_PAIRS, MAX_MINUTES
#              (ci/bench/pairs.sh), OMP_NUM_THREADS (default: all cores),
#              OMP_PROC_BIND (default close), OMP_PLACES (default cores),
#              CC, CFLAGS (passed to make when set), HPC_ACCEPTANCE
#              (default: the project's .venv made by ci/setup.sh),
#              HPC_ACCEPTANCE_SPACK_DIR (default: the checkout's .spack/).
set -euo pipefail

die() { echo "stream_vs_mccalpin: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src="$here/../../src/stream"
(( $# == 0 )) || die "usage: $0 (McCalpin's STREAM comes from the Spack environment; no argument)"
[ -f "$src/Makefile" ] || die "no $src/Makefile"
mccalpin=$("$here/mccalpin_stream.sh") || exit 2

# ---- this node's sizes (hpc-acceptance topology) ----
source "$here/prepare.sh"
read_node_sizes
# Each array out of every cache: at least the memory working set the
# checks use (STREAM's 4 x the last-level caches, at least 1 GiB)
min_bytes=$(node_figure memory_working_set)
min_elements=$(( min_bytes / 8 ))
cores=$(node_figure cores)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$cores}
export OMP_PROC_BIND=${OMP_PROC_BIND:-close}
export OMP_PLACES=${OMP_PLACES:-cores}

# ---- build the in-tree program ----
build_privately "$src" stream_intree
source "$here/pairs.sh"

run_mccalpin() {
    "$mccalpin" >"$tmp/mccalpin.out" 2>&1 || die "$mccalpin failed (status $?)"
    grep -q '^Solution Validates' "$tmp/mccalpin.out" \
        || die "$mccalpin did not validate: $(grep -m1 'Failed Validation' "$tmp/mccalpin.out" || tail -n 1 "$tmp/mccalpin.out")"
}

run_mccalpin
elements=$(awk '/^Array size =/ { print $4; exit }' "$tmp/mccalpin.out")
ntimes=$(awk '/^Each kernel will be executed/ { print $6; exit }' "$tmp/mccalpin.out")
counted=$(awk -F= '/^Number of Threads counted/ { gsub(/ /, "", $2); print $2; exit }' "$tmp/mccalpin.out")
[ -n "$elements" ] && [ -n "$ntimes" ] || die "$mccalpin does not print 'Array size =' and 'Each kernel will be executed': not McCalpin's C STREAM?"
[ "${counted:-1}" = "$OMP_NUM_THREADS" ] \
    || die "$mccalpin ran ${counted:-1} thread(s), OMP_NUM_THREADS=$OMP_NUM_THREADS (built without +openmp?)"
(( elements >= min_elements )) \
    || die "$mccalpin has arrays of $elements elements, below the checks' memory working set ($min_bytes bytes: $min_elements elements); install stream with stream_array_size=$min_elements or more in the Spack environment"

echo "McCalpin's STREAM: $mccalpin"
echo "the checks' memory working set: $min_bytes bytes; arrays: $elements elements ($(( elements * 8 / 1048576 )) MiB each), ntimes $ntimes"
echo "threads: $OMP_NUM_THREADS, OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES"

run_intree() {
    "$tmp/stream_intree" --elements="$elements" --ntimes="$ntimes" >"$tmp/intree.out" \
        || die "stream_intree failed (status $?): $(tail -n 1 "$tmp/intree.out")"
    [ "$(tail -n 1 "$tmp/intree.out")" = "# validation: passed" ] \
        || die "stream_intree did not validate: $(tail -n 1 "$tmp/intree.out")"
}

# stream_pair N ORDER: "N KERNEL SIDE MB/s" of one run of each program
stream_pair() {
    if [ "$2" = ours-first ]; then run_intree; run_mccalpin
    else run_mccalpin; run_intree; fi
    {
        awk -v n="$1" '$1 ~ /^(Copy|Scale|Add|Triad):$/ { k = tolower($1); sub(/:/, "", k); print n, k, "McCalpin", $2 }' "$tmp/mccalpin.out"
        awk -v n="$1" '$1 ~ /^(copy|scale|add|triad)$/ && $3 == "MB/s" { print n, $1, "ours", $2 }' "$tmp/intree.out"
    } >"$tmp/rates-of-pair"
    [ "$(wc -l <"$tmp/rates-of-pair")" -eq 8 ] || die "pair $1: expected 4 kernels from each program, got: $(tr '\n' ' ' <"$tmp/rates-of-pair")"
    cat "$tmp/rates-of-pair"
}

run_pairs stream_pair
