# Sourced by the bench scripts that compare our program with a peer (after
# they define die and set tmp): interleaved pairs of runs until the median
# ratio's interval is narrow enough (ci/bench/paired_ratio.py), then the
# verdict.
#
# Environment: TOLERANCE (0.03), HALF_WIDTH (0.015: stop when every
#   figure's 95 % interval is within +-1.5 % of its median), MIN_PAIRS (10),
#   MAX_PAIRS (60), MAX_MINUTES (30: no new pair starts after that).

pairs_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pairs_python=$pairs_dir/../../.venv/bin/python
[ -x "$pairs_python" ] || die "no $pairs_python: run ci/setup.sh first"
tolerance=${TOLERANCE:-0.03}
half_width=${HALF_WIDTH:-0.015}
min_pairs=${MIN_PAIRS:-10}
max_pairs=${MAX_PAIRS:-60}
max_minutes=${MAX_MINUTES:-30}
for setting in min_pairs max_pairs max_minutes; do
    [[ ${!setting} =~ ^[1-9][0-9]*$ ]] ||
        die "${setting^^}=${!setting}: not a positive integer"
done
(( min_pairs <= max_pairs )) || die "MIN_PAIRS=$min_pairs is above MAX_PAIRS=$max_pairs"

paired_ratio() {  # COMMAND [options]: paired_ratio.py on the rates so far
    local command=$1; shift
    "$pairs_python" "$pairs_dir/paired_ratio.py" "$command" "$tmp/rates" \
        --tolerance="$tolerance" --half-width="$half_width" \
        --min-pairs="$min_pairs" "$@"
}

# run_pairs RUN_PAIR: calls `RUN_PAIR N ORDER` for pairs N = 1, 2, ..., which
# prints "N FIGURE SIDE VALUE" lines, one per figure and program; ORDER
# alternates ours-first and peer-first, so that neither side always runs
# on the machine the other just left. Prints one line per pair (ours / peer
# per figure), why it stopped, then one line per figure with the median
# ratio, its interval and the verdict. Returns the verdict's status: 0
# every figure within TOLERANCE, 1 one below or above, 2 one inconclusive.
run_pairs() {
    local run_pair=$1 pair=0 order status stop
    local deadline=$(( SECONDS + 60 * max_minutes ))
    : >"$tmp/rates"
    while :; do
        pair=$(( pair + 1 ))
        order=ours-first
        (( pair % 2 )) || order=peer-first
        "$run_pair" "$pair" "$order" >"$tmp/pair"
        cat "$tmp/pair" >>"$tmp/rates"
        echo "pair $pair ($order): $(awk -f "$pairs_dir/pair_line.awk" "$tmp/pair")"
        status=0
        paired_ratio narrow >"$tmp/narrow" || status=$?
        (( status <= 1 )) || die "paired_ratio.py failed: $(cat "$tmp/narrow")"
        if (( status == 0 )); then
            stop="every interval within +-$(awk -v h="$half_width" 'BEGIN { print 100 * h }') %"
            break
        fi
        if (( pair >= max_pairs )); then
            stop="MAX_PAIRS=$max_pairs reached"
            break
        fi
        if (( SECONDS >= deadline )); then
            stop="MAX_MINUTES=$max_minutes reached"
            break
        fi
    done
    echo "$(cat "$tmp/narrow"); stopped: $stop"
    status=0
    paired_ratio table || status=$?
    return "$status"
}
