'''Paired comparison of two programs: the median of the per-pair ratios
ours / peer with a 95 % confidence interval, and a verdict against a
tolerance.

The bench scripts run the two programs in interleaved pairs, so that a
slow phase of the machine slows both sides of a pair; the ratio of a pair
cancels it, where a comparison of the two sides' spreads never shrinks
however many runs are made.

The interval is the exact, distribution-free interval of the median from
order statistics: with n ratios sorted, [r(k), r(n + 1 - k)] covers the
true median with probability 1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2),
whatever the distribution of the ratios, as long as the pairs are
independent and identically distributed. k is the largest rank whose
coverage is still at least the confidence asked for. A bootstrap of the
median was not used: its coverage is only asymptotic and poor for the
10-60 pairs these scripts make (the median of a resample takes only a
few distinct values), it depends on a random seed, and it cannot be
checked against a table. With fewer than 6 pairs no interval reaches 95 %.

Input, one line per program run: PAIR FIGURE SIDE VALUE, where SIDE is
``ours`` or the peer's name and higher values are better. A figure may
have several peers (likwid's kernels); its best peer is the one with the
highest median value, and the verdict is against that one.

    paired_ratio.py table RATES [--tolerance 0.03] [--confidence 0.95]
        one line per figure and peer; exit 0 every figure within the
        tolerance, 1 one is below or above it, 2 one is inconclusive
    paired_ratio.py narrow RATES [--half-width 0.015] [--min-pairs 10]
        exit 0 when every figure's interval against its best peer is
        within +-half-width of its median, 1 while one is wider (or has
        fewer than min-pairs pairs); prints the widest
'''

import argparse
import math
import statistics
import sys
from collections import defaultdict

#: Side of a rates line that is our program; every other side is a peer.
OURS = 'ours'


class RatesError(ValueError):
    '''A rates file that cannot be read; the message names the line.'''


def binomial_cdf(k, n):
    '''P(B <= k) for B ~ Binomial(n, 1/2).'''
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def median_interval_rank(n, confidence=0.95):
    '''The rank k (1-based) of the lower end of the median's interval of
    n sorted values, [x(k), x(n + 1 - k)], with coverage at least
    ``confidence``; ``None`` when even [x(1), x(n)] covers less.'''
    best = None
    for k in range(1, n // 2 + 1):
        if 1 - 2 * binomial_cdf(k - 1, n) < confidence:
            break
        best = k

    return best


def median_interval(values, confidence=0.95):
    '''``(low, median, high)`` of ``values``; ``low`` and ``high`` are
    ``None`` when there are too few values for ``confidence``.'''
    ordered = sorted(values)
    k = median_interval_rank(len(ordered), confidence)
    middle = statistics.median(ordered)
    if k is None:
        return None, middle, None

    return ordered[k - 1], middle, ordered[len(ordered) - k]


def half_width(low, middle, high):
    '''The interval's larger side, as a fraction of its median (the "+-"
    of "+-1.5 %"); infinite without an interval.'''
    if low is None:
        return math.inf

    return max(middle - low, high - middle) / middle


def verdict(low, high, tolerance):
    '''``within``, ``below``, ``above`` or ``inconclusive``: the interval
    of ratios inside [1 - tolerance, 1 + tolerance], wholly below or above
    it, or neither.'''
    if low is None:
        return 'inconclusive'

    if 1 - tolerance <= low and high <= 1 + tolerance:
        return 'within'

    if high < 1 - tolerance:
        return 'below'

    if low > 1 + tolerance:
        return 'above'

    return 'inconclusive'


def read_rates(lines, source='rates'):
    '''``{figure: {side: {pair: value}}}`` from PAIR FIGURE SIDE VALUE
    lines.

    :raises RatesError: naming the line that is malformed or repeats a
        pair's value.
    '''
    rates = defaultdict(lambda: defaultdict(dict))
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue

        where = f'{source}:{number}: {line.strip()!r}'
        if len(fields) != 4:
            raise RatesError(f'{where}: expected PAIR FIGURE SIDE VALUE')

        pair, figure, side, value = fields
        try:
            value = float(value)
        except ValueError:
            raise RatesError(f'{where}: {value!r} is not a number') from None

        if not value > 0:
            raise RatesError(f'{where}: a rate must be positive')

        if pair in rates[figure][side]:
            raise RatesError(f'{where}: pair {pair} of {figure} {side} '
                             f'given twice')

        rates[figure][side][pair] = value

    return rates


def ratios(sides, peer):
    '''ours / peer of every pair both sides ran.'''
    ours = sides.get(OURS, {})
    return [ours[pair] / value for pair, value in sides[peer].items()
            if pair in ours]


def best_peer(sides):
    '''The peer with the highest median value.'''
    peers = [side for side in sides if side != OURS]
    if not peers:
        return None

    return max(peers, key=lambda p: statistics.median(sides[p].values()))


def compare(rates, confidence=0.95):
    '''One row per figure and peer, the figure's best peer first: figure,
    peer, best (bool), pairs, low, median, high.'''
    rows = []
    for figure, sides in rates.items():
        best = best_peer(sides)
        others = sorted(side for side in sides if side not in (OURS, best))
        for peer in [best, *others] if best else []:
            values = ratios(sides, peer)
            low, middle, high = (median_interval(values, confidence)
                                 if values else (None, math.nan, None))
            rows.append({'figure': figure, 'peer': peer,
                         'best': peer == best, 'pairs': len(values),
                         'low': low, 'median': middle, 'high': high})

    return rows


def _percent(ratio):
    return f'{100 * (ratio - 1):+.1f} %'


def format_row(row, tolerance, confidence):
    '''One line: figure, peer, pairs, median ratio, interval, verdict.'''
    if row['low'] is None:
        interval = (f'no {100 * confidence:g} % interval from '
                    f'{row["pairs"]} pair(s)')
    else:
        interval = (f'{100 * confidence:g} % interval '
                    f'[{_percent(row["low"])}, {_percent(row["high"])}]')

    if row['best']:
        said = verdict(row['low'], row['high'], tolerance)
        said = {'within': f'within {100 * tolerance:g} %',
                'below': f'BELOW (more than {100 * tolerance:g} % slower)',
                'above': f'ABOVE (more than {100 * tolerance:g} % faster)',
                'inconclusive': 'inconclusive'}[said]
    else:
        said = '(not the best peer: for the record)'

    median = ('-' if math.isnan(row['median'])
              else _percent(row['median']))
    return (f'{row["figure"]:<8} vs {row["peer"]:<12} {row["pairs"]:>3} '
            f'pairs  ours/peer {median:>8}  {interval}  {said}')


def table(rates, tolerance, confidence, out=sys.stdout):
    '''Prints the rows; the exit status of the ``table`` command.'''
    rows = compare(rates, confidence)
    status = 0
    for row in rows:
        print(format_row(row, tolerance, confidence), file=out)
        if not row['best']:
            continue

        said = verdict(row['low'], row['high'], tolerance)
        if said in ('below', 'above'):
            status = 1
        elif said == 'inconclusive' and status == 0:
            status = 2

    if not rows:
        print('no figure with both ours and a peer', file=out)
        status = 2

    return status


def narrow(rates, target, min_pairs, confidence, out=sys.stdout):
    '''Prints the widest interval; the exit status of ``narrow``.'''
    rows = [row for row in compare(rates, confidence) if row['best']]
    if not rows:
        print('no figure with both ours and a peer yet', file=out)
        return 1

    widest = max(rows, key=lambda r: half_width(r['low'], r['median'],
                                                r['high']))
    width = half_width(widest['low'], widest['median'], widest['high'])
    pairs = min(row['pairs'] for row in rows)
    said = ('no interval yet' if math.isinf(width)
            else f'+-{100 * width:.1f} %')
    print(f'after {pairs} pairs: widest interval {said} '
          f'({widest["figure"]} vs {widest["peer"]}; goal '
          f'+-{100 * target:g} %)', file=out)
    return 0 if pairs >= min_pairs and width <= target else 1


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Median ratio of interleaved pairs with an exact '
                    'confidence interval (see the module documentation).')
    parser.add_argument('command', choices=('table', 'narrow'))
    parser.add_argument('rates', help='file of PAIR FIGURE SIDE VALUE '
                                      'lines')
    parser.add_argument('--tolerance', type=float, default=0.03)
    parser.add_argument('--confidence', type=float, default=0.95)
    parser.add_argument('--half-width', type=float, default=0.015)
    parser.add_argument('--min-pairs', type=int, default=10)
    args = parser.parse_args(argv)
    if not 0 < args.confidence < 1:
        parser.error(f'--confidence {args.confidence}: between 0 and 1')

    for option in ('tolerance', 'half_width'):
        if not 0 < getattr(args, option) < 1:
            parser.error(f'--{option.replace("_", "-")} '
                         f'{getattr(args, option)}: between 0 and 1')

    try:
        with open(args.rates) as fp:
            rates = read_rates(fp, args.rates)
    except (OSError, RatesError) as err:
        print(f'paired_ratio: {err}', file=sys.stderr)
        return 2

    if args.command == 'table':
        return table(rates, args.tolerance, args.confidence)

    return narrow(rates, args.half_width, args.min_pairs, args.confidence)


if __name__ == '__main__':
    sys.exit(main())
