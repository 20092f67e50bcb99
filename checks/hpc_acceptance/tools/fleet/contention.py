'''Nodes whose cores something else takes in slices: contended.

The kernels report a figure's best repetition, and beside it their best
repetition's time against their median one's (``best_to_median_*``, 1:
every repetition alike). A node held to a CPU quota, or sharing its cores
with another job, lets some repetitions through at full speed between its
slices: the best of them keeps the hardware's figure, so the node passes
the fleet rule, while its median repetition, and every application, runs
slower. Such a node's ratio departs from its fleet's: it is named
*contended* when its ratio is below the fleet's median one by more than
:data:`MIN_DROP` and more than :data:`SPREAD_FACTOR` robust standard
deviations of the fleet's ratios on :data:`MIN_FIGURES` of its figures
(on its one figure where it has one), and said on the figure where it
departs most. One figure's dip is one set of repetitions, which a
virtual machine's neighbours give any node (a 5-node night on a 2-core
guest named an unthrottled node on one figure of 19).
'''

import statistics
from dataclasses import dataclass

from hpc_acceptance.tools.fleet.model import natural_order

#: The performance variables of the ratio.
PREFIX = 'best_to_median'

#: The least drop of a node's ratio below the fleet's median ratio: a
#: quota of 80 % of a core in short periods costs about this much.
MIN_DROP = 0.15

#: Robust standard deviations of the fleet's ratios a node's drops more
#: than.
SPREAD_FACTOR = 4

#: The figures a node's ratio must depart on.
MIN_FIGURES = 2


@dataclass(frozen=True)
class Contended:
    node: str
    #: the figure (check and variable) where it departs most
    label: str
    ratio: float
    fleet: float
    #: the figures its ratio departed on, of those it has
    departed: int
    figures: int

    def describe(self):
        return (f'{self.node}: contended: its repetitions ran at '
                f'{self.ratio:.2f} of its best ({self.label}; the fleet\'s '
                f'median {self.fleet:.2f}; {self.departed} of its '
                f'{self.figures} repetition figure(s) departed): something '
                f'takes its cores in slices (a CPU quota, another job), '
                f'which the best repetition hides')


def _robust_sd(values, middle):
    return 1.4826 * statistics.median(abs(v - middle) for v in values)


def of_partition(fleet):
    '''The :class:`Contended` nodes of a :class:`.model.PartitionFleet`,
    in node order.'''
    # {node: (label, ratio, fleet's median)} where it departs most
    worst, departed, figures = {}, {}, {}
    for spread in fleet.spreads:
        if not spread.figure.variable.startswith(PREFIX) or \
                len(spread.values) < 3 or spread.median <= 0:
            continue

        ratios = spread.values
        limit = max(MIN_DROP, SPREAD_FACTOR *
                    _robust_sd(ratios.values(), spread.median) /
                    spread.median)
        for node, ratio in ratios.items():
            figures[node] = figures.get(node, 0) + 1
            if 1 - ratio / spread.median <= limit:
                continue
            departed[node] = departed.get(node, 0) + 1
            if node not in worst or ratio / spread.median < \
                    worst[node][1] / worst[node][2]:
                worst[node] = (spread.figure.label, ratio, spread.median)

    return [Contended(node, *worst[node], departed[node], figures[node])
            for node in sorted(worst, key=natural_order)
            if departed[node] >= min(MIN_FIGURES, figures[node])]


def lines(fleets):
    '''The summary's and the suspects' lines of every contended node.'''
    several = len(fleets) > 1
    return [(f'{fleet.name} ' if several else '') + found.describe()
            for fleet in fleets for found in of_partition(fleet)]
