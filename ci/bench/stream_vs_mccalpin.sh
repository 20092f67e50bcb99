#!/usr/bin/env bash
# Triad of src/stream's stream_intree versus McCalpin's STREAM, same array
# size, repetitions, threads and binding.
#
# Usage: ci/bench/stream_vs_mccalpin.sh /path/to/stream_c.exe
#
# stream_c.exe is McCalpin's STREAM (C, OpenMP) that YOU built, e.g. from
# https://www.cs.virginia.edu/stream/ with
#   gcc -O3 -march=native -fopenmp -mcmodel=medium \
#       -DSTREAM_ARRAY_SIZE=<4 x last-level caches / 8> stream.c -o stream_c.exe
# This script never builds or fetches it. Its array size and repetitions are
# compiled in: the script reads them from its output and runs stream_intree
# (built from src/stream in a temporary directory) with the same ones. The
# two programs run alternately RUNS times each; each kernel's median rate is
# compared (ci/bench/compare_medians.awk), with the runs' spread.
#
# Exit status: 0 all four kernels' medians within TOLERANCE (default 0.03),
#              1 a kernel differs by more than TOLERANCE and more than the
#              runs' spread, 2 inconclusive (spread larger than the
#              difference) or cannot compare (no binary, arrays below
#              4 x LLC, build or run failure, failed validation).
# Environment: RUNS (default 5), TOLERANCE, OMP_NUM_THREADS (default: all
#              cores), OMP_PROC_BIND (default close), OMP_PLACES (default
#              cores), CC, CFLAGS (passed to make when set), HPC_ACCEPTANCE
#              (default: the project's .venv made by ci/setup.sh).
set -euo pipefail

die() { echo "stream_vs_mccalpin: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src="$here/../../src/stream"
runs=${RUNS:-5}
tolerance=${TOLERANCE:-0.03}

(( $# == 1 )) || die "usage: $0 /path/to/stream_c.exe (McCalpin's STREAM, built by you)"
mccalpin=$1
[ -x "$mccalpin" ] || die "$mccalpin is not an executable file"
[ -f "$src/Makefile" ] || die "no $src/Makefile"

# ---- this node's sizes (hpc-acceptance topology) ----
source "$here/prepare.sh"
read_node_sizes
# STREAM's rule: each array at least 4 x the last-level caches
min_bytes=$(node_figure memory_working_set)
min_elements=$(( min_bytes / 8 ))
cores=$(node_figure cores)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$cores}
export OMP_PROC_BIND=${OMP_PROC_BIND:-close}
export OMP_PLACES=${OMP_PLACES:-cores}

# ---- build the in-tree program ----
build_privately "$src" stream_intree

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
    || die "$mccalpin ran ${counted:-1} thread(s), OMP_NUM_THREADS=$OMP_NUM_THREADS (built without -fopenmp?)"
(( elements >= min_elements )) \
    || die "$mccalpin has arrays of $elements elements, below 4 x the last-level caches ($min_bytes bytes: $min_elements elements); rebuild it with -DSTREAM_ARRAY_SIZE=$min_elements"

echo "4 x last-level caches: $min_bytes bytes; arrays: $elements elements ($(( elements * 8 / 1048576 )) MiB each), ntimes $ntimes"
echo "threads: $OMP_NUM_THREADS, OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES"

run_intree() {
    "$tmp/stream_intree" --elements="$elements" --ntimes="$ntimes" >"$tmp/intree.out" \
        || die "stream_intree failed (status $?): $(tail -n 1 "$tmp/intree.out")"
    [ "$(tail -n 1 "$tmp/intree.out")" = "# validation: passed" ] \
        || die "stream_intree did not validate: $(tail -n 1 "$tmp/intree.out")"
}

# "KERNEL SIDE MB/s" lines of one run of each program, four kernels each
rates() {
    awk '$1 ~ /^(Copy|Scale|Add|Triad):$/ { k = tolower($1); sub(/:/, "", k); print k, "peer", $2 }' "$tmp/mccalpin.out"
    awk '$1 ~ /^(copy|scale|add|triad)$/ && $3 == "MB/s" { print $1, "ours", $2 }' "$tmp/intree.out"
}

: >"$tmp/rates"
for (( i = 1; i <= runs; i++ )); do
    (( i == 1 )) || run_mccalpin
    run_intree
    rates >"$tmp/run"
    [ "$(wc -l <"$tmp/run")" -eq 8 ] || die "run $i: expected 4 kernels from each program, got: $(tr '\n' ' ' <"$tmp/run")"
    echo "run $i: $(awk '{ printf "%s %s %s  ", $1, $2, $3 }' "$tmp/run")"
    cat "$tmp/run" >>"$tmp/rates"
done

echo "medians of $runs interleaved runs (MB/s); spread = (max - min) / median"
awk -v tolerance="$tolerance" -v ours=stream_intree -v peer=McCalpin \
    -f "$here/compare_medians.awk" "$tmp/rates"
