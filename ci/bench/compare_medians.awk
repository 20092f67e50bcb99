# Compares two programs' figures measured in interleaved runs, by median.
#
# Input, one line per figure per run:  FIGURE SIDE VALUE
#   SIDE is "ours" or "peer"; higher values are better.
# Variables: tolerance (e.g. 0.03), ours and peer (names to print).
#
# For each figure: the median and the spread ((max - min) / median) of each
# side, and the difference of the medians (ours / peer - 1). A figure is
#   within       |difference| <= tolerance
#   differs      |difference| > tolerance and > both spreads
#   inconclusive otherwise: the runs scatter more than the programs differ,
#                so no conclusion is drawn.
# Exit status: 1 if a figure differs, else 2 if one is inconclusive, else 0.

function median(list, n,    sorted, i, j, t) {
    for (i = 1; i <= n; i++) sorted[i] = list[i]
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) {
            t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t
        }
    return n % 2 ? sorted[(n + 1) / 2] : (sorted[n / 2] + sorted[n / 2 + 1]) / 2
}

function spread(list, n, mid,    i, lo, hi) {
    lo = hi = list[1]
    for (i = 2; i <= n; i++) {
        if (list[i] < lo) lo = list[i]
        if (list[i] > hi) hi = list[i]
    }
    return (hi - lo) / mid
}

function abs(x) { return x < 0 ? -x : x }

{
    if (!($1 in seen)) { seen[$1] = 1; order[++figures] = $1 }
    key = $1 SUBSEP $2
    values[key, ++count[key]] = $3
}

END {
    status = 0
    printf "%-8s %16s %7s %16s %7s %8s  %s\n", "figure", ours " median", "spread",
        peer " median", "spread", "diff", "verdict"
    for (f = 1; f <= figures; f++) {
        name = order[f]
        for (s = 0; s < 2; s++) {
            side = s ? "peer" : "ours"
            key = name SUBSEP side
            n = count[key]
            if (n == 0) { print "no " side " value of " name > "/dev/stderr"; exit 2 }
            delete list
            for (i = 1; i <= n; i++) list[i] = values[key, i]
            mid[side] = median(list, n)
            sp[side] = spread(list, n, mid[side])
        }
        diff = mid["ours"] / mid["peer"] - 1
        if (abs(diff) <= tolerance) verdict = "within " tolerance * 100 "%"
        else if (abs(diff) > sp["ours"] && abs(diff) > sp["peer"]) {
            verdict = "DIFFERS"; status = 1
        } else {
            verdict = "inconclusive (spread > difference)"
            if (status == 0) status = 2
        }
        printf "%-8s %16.1f %6.1f%% %16.1f %6.1f%% %+7.1f%%  %s\n", name,
            mid["ours"], sp["ours"] * 100, mid["peer"], sp["peer"] * 100,
            diff * 100, verdict
    }
    exit status
}
