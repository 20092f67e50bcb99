'''The fleet rule's false suspects: how many nodes a quiet fleet run names.

    PYTHONPATH=checks .venv/bin/python ci/bench/fleet_false_suspects.py \
        [--nodes 1000] [--figures 40] [--seeds 100]

Makes synthetic quiet fleets (no node is worse than another but by chance),
compares them with :func:`hpc_acceptance.tools.fleet.comparison.compare` at its
default settings, reruns the suspects' checks with fresh noise as the fleet run
does before it names a node, and prints per rule the suspects per run (mean and
largest) and the share of runs that name any node, over ``--seeds`` fleets: the
rule as it is (band factor corrected for the number of comparisons,
:func:`~hpc_acceptance.tools.fleet.comparison.spread_factor`, then the rerun),
without the rerun, and with the fixed factor of 4 robust standard deviations it
had before.

The quiet fleet is made to spread as real ones do:

- each node has a clock of its own, the nominal one x (1 + U(-8 %, +8 %)):
  identical processors differ by up to 16 % in their Turbo clock; the
  compute- and cache-bound figures (half of them) follow it, the
  memory-bound ones do not;
- each figure of each node scatters by its own run-to-run noise, a
  Student t with 4 degrees of freedom (tails far heavier than a normal's)
  scaled to a relative spread drawn per figure from 1 % to 6 % (STREAM and
  NPB near 1-2 %, cache latencies and MPI ping-pong up to 6 %);
  ``--tails 0`` draws it from a normal distribution instead;
- the families' minimum bands are the checks' (20 % of the figures each of
  Stream, Memory, Network, Npb and Hpcc).
'''

import argparse
import math
import random
import re
import statistics

from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.results.runs import final_attempts

FAMILIES = ('Stream', 'Memory', 'Network', 'Npb', 'Hpcc')


class QuietFleet:
    '''A quiet fleet of ``nodes`` nodes and ``figures`` figures (five per
    check): each node's clock and each figure's spread are drawn once, the
    noise anew for every run of a check.'''

    def __init__(self, nodes, figures, seed, tails=4):
        self.rng = random.Random(seed)
        self.tails = tails
        self.spreads = [self.rng.uniform(0.01, 0.06) for _ in range(figures)]
        self.clocks = {f'n{number:04d}': 1 + self.rng.uniform(-0.08, 0.08)
                       for number in range(1, nodes + 1)}
        self.checks = figures // 5

    def case(self, node, check):
        '''One run of ``check`` (a number) on ``node``, shaped as ReFrame
        reports it.'''
        family = FAMILIES[check % len(FAMILIES)]
        perf = {}
        for j in range(5):
            i = check * 5 + j
            # Student t of `tails` degrees of freedom: Z / sqrt(chi2 / dof)
            noise = self.rng.gauss(0, 1)
            if self.tails:
                noise /= math.sqrt(self.rng.gammavariate(self.tails / 2, 2) /
                                   self.tails)
            value = 1000.0 * (i + 1) * math.exp(self.spreads[i] * noise)
            if i % 2 == 0:
                value *= self.clocks[node]
            perf[f'cluster:compute:figure_{j}'] = [value, 0, None, None,
                                                   'MB/s', 'pass']

        return {'display_name': f'{family}Synthetic{check:02d}Check '
                                f'%.nid={node}',
                'system': 'cluster', 'partition': 'compute',
                'environ': 'gnu', 'fixture': False, 'result': 'pass',
                'node': node, 'perfvalues': perf}

    def run(self):
        return [self.case(node, check) for node in self.clocks
                for check in range(self.checks)]


def suspects(nodes, figures, seed, confirm, tails):
    '''Suspects of one quiet fleet run: the first comparison's, or with
    ``confirm`` those still out after their checks' rerun on their nodes
    (:mod:`hpc_acceptance.tools.fleet.confirm`), as the fleet run does.'''
    quiet = QuietFleet(nodes, figures, seed, tails)
    cases = quiet.run()
    (partition,) = comparison.compare(cases)
    if not confirm or not partition.suspects:
        return len(partition.suspects)

    rerun = [quiet.case(s.node, int(re.search(r'(\d+)Check$',
                                              o.figure.key[0])[1]))
             for s in partition.suspects
             for o in {o.figure.key: o for o in s.outliers}.values()]
    (partition,) = comparison.compare(final_attempts(cases + rerun))
    return len(partition.suspects)


def suspects_per_run(nodes, figures, seeds, confirm, tails,
                     fixed_factor=None):
    '''``[suspects of each seed's fleet]``.'''
    saved = comparison.spread_factor
    if fixed_factor is not None:
        comparison.spread_factor = lambda comparisons: fixed_factor

    try:
        return [suspects(nodes, figures, seed, confirm, tails)
                for seed in range(seeds)]
    finally:
        comparison.spread_factor = saved


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--nodes', type=int, default=1000)
    parser.add_argument('--figures', type=int, default=40)
    parser.add_argument('--seeds', type=int, default=100)
    parser.add_argument('--tails', type=int, default=4,
                        help='degrees of freedom of the noise\'s Student t '
                             '(0: normal; default: %(default)s)')
    parser.add_argument('--rules', default='all', choices=('all', 'default'),
                        help='every rule, or the default one only')
    args = parser.parse_args()
    comparisons = args.nodes * args.figures
    tails = (f'Student t, {args.tails} degrees of freedom' if args.tails
             else 'normal')
    print(f'{args.seeds} quiet fleets of {args.nodes} nodes x {args.figures} '
          f'figures ({comparisons} comparisons a run), noise {tails}')
    print(f'{"rule":<48} {"suspects/run":>12} {"largest":>8} '
          f'{"runs naming any":>16}')
    corrected = comparison.spread_factor(comparisons)
    rules = [(f'{corrected:.2f} robust SD, after the rerun (default)', None,
              True),
             (f'{corrected:.2f} robust SD, first run only', None, False),
             ('4 robust SD, after the rerun', 4.0, True),
             ('4 robust SD, first run only (the rule before)', 4.0, False)]
    for label, factor, confirm in rules[:1 if args.rules == 'default'
                                        else None]:
        counts = suspects_per_run(args.nodes, args.figures, args.seeds,
                                  confirm, args.tails, factor)
        share = sum(1 for c in counts if c) / len(counts)
        print(f'{label:<48} {statistics.mean(counts):>12.3f} '
              f'{max(counts):>8} {100 * share:>15.0f}%')


if __name__ == '__main__':
    main()
