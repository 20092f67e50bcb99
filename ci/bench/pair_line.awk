# One pair of runs on one line: ours / peer - 1 per figure (and per peer
# where a figure has several), e.g.
#   copy +0.8%, scale -1.2%, add +0.1%, triad -0.4% (ours / peer)
#   read: ddot_avx -1.2% load_avx -3.0% (ours / peer)
# Input: the pair's "N FIGURE SIDE VALUE" lines; SIDE "ours" or a peer.

$3 == "ours" { ours[$2] = $4 }
$3 != "ours" { value[$2, $3] = $4; names[$2, ++count[$2]] = $3 }
!($2 in seen) { seen[$2] = 1; figure[++figures] = $2 }

END {
    for (i = 1; i <= figures; i++) {
        f = figure[i]
        line = line sep f (count[f] > 1 ? ":" : "")
        sep = ", "
        for (j = 1; j <= count[f]; j++) {
            peer = names[f, j]
            line = line (count[f] > 1 ? " " peer : "") \
                sprintf(" %+.1f%%", 100 * (ours[f] / value[f, peer] - 1))
        }
    }
    print line " (ours / peer)"
}
