'''What the fleet comparison (:mod:`.comparison`) is made of and what it
finds: a figure of a check variant (:class:`Figure`), its nodes' values with
their median and band (:class:`Spread`), what the median was compared with
(:class:`Against`), the nodes named (:class:`Suspect`, with their
:class:`Outlier` figures) and a partition's whole comparison
(:class:`PartitionFleet`), with the lines they say; the limits the rules
keep to, and how a test case's node is read.'''

import math
import re
import statistics
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from hpc_acceptance.tools.fleet.fingerprint import UNKNOWN
from hpc_acceptance.tools.fleet.wording import node_list, number
from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results.runs import short_name

#: Nodes a group needs before its figures are compared across nodes.
MIN_NODES = 4

#: Figures named in a suspect's line before "+N more".
SHOWN_FIGURES = 2

#: Robust standard deviations of the fleet a node may be from its median
#: before it is odd, at least: as the noise model's run-to-run band.
SPREAD_FACTOR = noise.SPREAD_FACTOR

#: Suspects a quiet fleet run may name by chance, at most, from the
#: spread term of the band: :func:`.comparison.spread_factor` widens the
#: band with the number of comparisons (a node's figure each) to keep to
#: it.
FALSE_SUSPECTS = 0.01

#: Earlier fleet runs whose medians' own spread widens the band a fleet's
#: median is judged by; with fewer, the family's minimum band.
MIN_HISTORY = 3

#: The loss against its group's median (a fraction of performance) beyond
#: which a node's figure is out whatever its band: a node that lost nearly
#: everything is named and drained even where the figure is not uniform.
NEARLY_ALL = 0.9

#: Share of a group's nodes each of two clusters of a figure needs for the
#: figure to be "not uniform" rather than its slower nodes suspects; and
#: nodes, at least: two odd nodes of six are suspects. A group of four or
#: five nodes has no two clusters of three: there, two nodes make one
#: (:func:`cluster_nodes`).
CLUSTER_SHARE = 0.25
CLUSTER_NODES = 3

#: How many times better than its siblings' median (as a factor's
#: logarithm) a node's figure may be before it is no measurement: four
#: orders of magnitude. Nodes of one fingerprint (the same CPU, cores and
#: memory) deliver within tens of percent of each other; the worst a node
#: that still runs a check does (the lowest clock, one memory channel
#: left, swapping) costs it one to three orders, so that even a healthy
#: node among siblings that all lost that much stays within four. A node
#: ten thousand times faster than its identical siblings timed nothing.
IMPLAUSIBLE_GAIN = math.log(1e4)


def gain_over(value, median, unit):
    '''How much better than ``median`` ``value`` is (both above 0), as a
    factor's logarithm: negative when worse, whatever the unit's
    direction.'''
    gain = math.log(value / median)
    return gain if noise.higher_is_better(unit) else -gain


def implausible(gain):
    '''Whether a gain (:func:`gain_over`) over the median of identical
    siblings or of a baseline is :data:`IMPLAUSIBLE_GAIN` or more: no
    measurement.'''
    return gain >= IMPLAUSIBLE_GAIN


# ReFrame's --distribute adds the parameter ".nid", shown as %.nid=<node>
_NID = re.compile(r'%\.nid=(\S+)')


def natural_order(name):
    '''Sort key of node names: ``n2`` before ``n10``.'''
    return [int(part) if part.isdigit() else part
            for part in re.split(r'(\d+)', name)]


class FleetError(ValueError):
    '''The test cases cannot be compared; the message says why.'''


def _nodelist(case):
    '''The nodes a test case's job ran on as the scheduler listed them
    (``job_nodelist``: a list, or one name).'''
    nodes = case.get('job_nodelist') or []
    return [nodes] if isinstance(nodes, str) else list(nodes)


def _pinned(case):
    '''The node ReFrame's ``--distribute`` pinned a test case to, or
    ``None``.'''
    match = _NID.search(case.get('display_name', ''))
    return match[1] if match else None


def node_of(case):
    '''The node a test case ran on, as the scheduler placed it: its job's
    only node (``job_nodelist``), else the node ReFrame's ``--distribute``
    pinned it to (``%.nid=``; ReFrame's node list is empty where its squeue
    backend missed a short job), else what its job reported of itself
    (``node``); ``None`` if unknown (a skipped case) or several nodes.
    What a job reports of itself is evidence to check
    (:func:`disagreement`), never the node its figures are put down to
    while the scheduler says another.'''
    nodes = _nodelist(case)
    if len(nodes) > 1:
        return None

    return (nodes[0] if nodes else None) or _pinned(case) or \
        case.get('node') or None


def same_node(name, other):
    '''Whether two node names are one node: a job's host name may be the
    scheduler's name with its domain.'''
    return str(name).split('.')[0] == str(other).split('.')[0]


def another_node(case, node):
    '''What test case ``case`` says of where it ran that is not ``node``
    (``'ReFrame pinned it to n2'``, ``'its job ran on n2'``), or ``None``:
    a node job's report is the node's say, and one that names another
    node would put its figures down to that node.'''
    listed = [('its job ran on', name) for name in _nodelist(case)]
    for what, name in [('ReFrame pinned it to', _pinned(case)), *listed]:
        if name and not same_node(name, node):
            return f'{what} {name}'

    return None


def disagreement(case):
    '''What a test case says of its node that is not the node it is
    judged as (:func:`node_of`): ``'its job reported n1'``, ``'ReFrame
    pinned it to n5'``; ``None`` where all it records agree.'''
    node = node_of(case)
    if node is None:
        return None

    nodes = _nodelist(case)
    for what, name in (('ReFrame pinned it to', _pinned(case)),
                       ('its job reported', case.get('node') if
                        len(nodes) <= 1 else None)):
        if name and not same_node(name, node):
            return f'{what} {name}'

    return None


def variant_key(key):
    '''A :func:`~..results.runs.figure_key` without its identity: the check
    variant, whatever the inputs.'''
    return key[:4]


def cluster_nodes(size):
    '''The nodes each of two clusters of a group of ``size`` nodes needs
    for a figure to be not uniform: :data:`CLUSTER_SHARE` of them and
    :data:`CLUSTER_NODES`, but two in a group of four or five. Two slow
    nodes of four make the median a slow one and the band as wide as the
    gap (64-87 %): the band cannot see them, and they would pass.'''
    return max(min(CLUSTER_NODES, size // 2),
               math.ceil(CLUSTER_SHARE * size))


def width(band):
    '''A band as the largest deviation (a factor's logarithm) within
    it.'''
    return -math.log(1 - band) if band < 1 else math.inf


@dataclass(frozen=True)
class Figure:
    '''One figure of one check variant and identity: a column of the heat
    map.'''
    key: tuple
    variable: str
    unit: str

    @property
    def label(self):
        check, _, _, params, _ = self.key
        name = ' '.join([check] + [f'%{p}={v}' for p, v in params])
        return f'{short_name(name)} {self.variable}'


@dataclass
class Against:
    '''What a group's median was compared with: the figure's reference, or
    the medians of the partition's earlier fleet runs.'''
    #: ``reference`` or ``earlier fleet runs``
    source: str
    #: the reference value, or the earlier runs' median
    value: float
    #: the lowest (higher is better) or highest value within it
    limit: Optional[float]
    #: earlier fleet runs it was made of (0 for a reference)
    runs: int
    #: the median is worse than ``limit``: the fleet lost as a whole
    lost: bool


@dataclass
class Spread:
    '''The nodes' values of one :class:`Figure` in a group of nodes of
    one fingerprint, their median and band.'''
    figure: Figure
    values: Dict[str, float]
    median: float
    band: float
    #: the family's minimum band it was made with
    floor: float = 0.0
    #: the group's fingerprint (:mod:`.fingerprint`)
    fingerprint: tuple = UNKNOWN
    #: what the median was compared with, or ``None``: judged only
    #: across the nodes
    against: Optional[Against] = None
    #: ``(slower nodes, faster nodes)`` where the values split in two
    #: clusters (:data:`CLUSTER_SHARE`), else ``None``
    split: Optional[Tuple[List[str], List[str]]] = None
    #: ``{node: value}`` of the attempt before the final one, for nodes
    #: whose check was retried or rerun (:mod:`.confirm`); ``None`` where
    #: that attempt measured nothing
    earlier: Dict[str, Optional[float]] = field(default_factory=dict)
    #: ``{node: why}`` of the nodes of the group whose final attempt has
    #: no measurement of the figure (:mod:`..results.measurement`): not
    #: among ``values``, each a suspect of its own
    unmeasured: Dict[str, str] = field(default_factory=dict)

    def gain(self, node, value=None):
        '''How much better than the median ``node`` is (or ``value``
        would be), as a factor's logarithm: negative when worse, whatever
        the unit's direction; a value of 0 is the worst there is.'''
        value = self.values[node] if value is None else value
        if value <= 0:
            # also where most of the group measured 0: a median of 0 is
            # no yardstick, and its nodes must not pass for it
            return -math.inf

        if self.median <= 0:
            return 0.0

        return gain_over(value, self.median, self.figure.unit)

    def lost_nearly_all(self, value):
        '''Whether ``value`` is no measurement (``None``) or lost
        :data:`NEARLY_ALL` against the median, or more (ten times the
        median's time is a loss of 90 %, whatever rounding says).'''
        if value is None:
            return True

        loss, edge = -self.gain(None, value), width(NEARLY_ALL)
        return loss > edge or math.isclose(loss, edge)

    def is_out(self, value):
        '''Whether ``value`` is worse than the median by more than the
        band (:meth:`lost_nearly_all` always is).'''
        if self.lost_nearly_all(value):
            return True

        # a band of 1 or more is infinitely wide: only what lost nearly
        # all is out of it
        return -self.gain(None, value) > width(self.band)

    def is_worse(self, node):
        '''Whether ``node`` is out on its final attempt, and on the one
        before where its check was retried or rerun: a node is named only
        when it is out twice in a row. Where the figure is not uniform
        only a node that lost nearly all is (the others are the
        finding's).'''
        value = self.values[node]
        out = self.lost_nearly_all if self.split else self.is_out
        if not out(value):
            return False

        return node not in self.earlier or out(self.earlier[node])

    def median_of(self, nodes):
        return statistics.median(self.values[n] for n in nodes)


@dataclass
class Outlier:
    '''A figure of a suspect node, worse than the fleet by more than its
    band.'''
    figure: Figure
    value: float
    median: float
    band: float
    #: the loss as a factor's logarithm (positive): what ranks outliers
    loss: float

    @property
    def change(self):
        return noise.change(self.value, self.median)


@dataclass
class Suspect:
    partition: str
    node: str
    #: worst first
    outliers: List[Outlier] = field(default_factory=list)
    #: ``[(test case, reason)]`` of the check variants it alone failed
    failures: List[Tuple[str, str]] = field(default_factory=list)
    #: how its fingerprint differs from its partition's nodes, where
    #: fewer than :data:`MIN_NODES` nodes share it
    differs: List[str] = field(default_factory=list)
    #: ``[(figure label, why)]`` of the figures it has no measurement of
    #: (:mod:`..results.measurement`) where most nodes measured them
    unmeasured: List[Tuple[str, str]] = field(default_factory=list)
    #: it was a suspect in the previous fleet run too
    again: bool = False

    @property
    def loss(self):
        '''For ordering: a failure, another fingerprint or no measurement
        ranks above any slow figure.'''
        if self.failures or self.differs or self.unmeasured:
            return math.inf

        return max((o.loss for o in self.outliers), default=0.0)

    def reasons(self, shown=SHOWN_FIGURES, bands=False):
        '''What makes it a suspect, worst first: how it differs from its
        partition's nodes, its failures, then its first ``shown`` figures
        with value, fleet median and change (and band).'''
        parts = ([f'differs from the partition\'s other nodes: '
                  f'{", ".join(self.differs)}'] if self.differs else [])
        parts += self._failed()
        parts += [f'{label}: no measurement ({why})'
                  for label, why in self.unmeasured]
        parts += [f'{o.figure.label} {number(o.value)} {o.figure.unit} '
                  f'(fleet median {number(o.median)}, '
                  f'{100 * o.change:+.0f}%'
                  f'{f", band {100 * o.band:.0f}%" if bands else ""})'
                  for o in self.outliers[:shown]]
        return parts

    def _failed(self):
        '''``failed <case>: <reason>`` of each failure; those of one reason
        (a node whose job did not report: every check of it) on one.'''
        cases = {}
        for case, reason in self.failures:
            cases.setdefault(reason, []).append(case)

        return [f'failed {names[0]}: {reason}' if len(names) == 1 else
                f'failed {names[0]} and {len(names) - 1} more: {reason}'
                for reason, names in cases.items()]

    def describe(self, shown=SHOWN_FIGURES):
        '''What makes it a suspect, on one line.'''
        parts = self.reasons(shown)
        if len(self.outliers) > shown:
            parts.append(f'+{len(self.outliers) - shown} more figure(s)')

        again = ' [a suspect in the previous fleet run too]' \
            if self.again else ''
        return f'{self.node}{again}: ' + '; '.join(parts)


@dataclass
class PartitionFleet:
    name: str
    #: every node that ran a check of the partition, sorted
    nodes: List[str]
    spreads: List[Spread] = field(default_factory=list)
    suspects: List[Suspect] = field(default_factory=list)
    #: ``[(node, check variant, what differs)]``: nodes whose inputs were
    #: not the fleet's, so not compared with it
    other_inputs: List[Tuple[str, str, str]] = field(default_factory=list)
    #: why the partition's figures were not compared, or ``None``
    not_compared: Optional[str] = None
    #: the nodes of each fingerprint (:class:`.fingerprint.Group`),
    #: the largest first
    groups: list = field(default_factory=list)
    #: ``[(node, test case)]`` that passed only when retried or rerun
    passed_on_retry: List[Tuple[str, str]] = field(default_factory=list)
    #: ``[(node, figure, first value, rerun value)]``: figures out of
    #: their band on the first run and within it on the rerun
    #: (:mod:`.confirm`); a first value of ``None`` measured nothing
    recovered: List[tuple] = field(default_factory=list)
    #: ``[(figure label, {node: why}, nodes that ran it)]``: figures that
    #: half of the nodes or more have no measurement of: the check's or
    #: the software's problem, not a node's
    unmeasured: List[tuple] = field(default_factory=list)
    #: ``[(test case, {node: reason}, nodes that ran it)]``: check
    #: variants that failed on half of the nodes or more (no node's
    #: failure: the check's or the software's)
    failed_widely: List[tuple] = field(default_factory=list)
    #: ``[(node, what)]``: test cases whose record names another node than
    #: the one the scheduler ran them on (:func:`disagreement`)
    misreported: List[Tuple[str, str]] = field(default_factory=list)
    #: ``[(node, test case, records)]``: a node with several test cases of
    #: one check variant and inputs; none of them is compared
    reported_twice: List[tuple] = field(default_factory=list)

    @property
    def judged_groups(self):
        '''The groups of :data:`MIN_NODES` or more: judged on their
        own.'''
        return [g for g in self.groups if any(
            s.fingerprint == g.fingerprint for s in self.spreads)]

    @property
    def fleet_losses(self):
        '''The figures whose group median is worse than what the fleet
        should deliver.'''
        return [s for s in self.spreads if s.against and s.against.lost]

    @property
    def not_uniform(self):
        '''The figures whose nodes split in two clusters.'''
        return [s for s in self.spreads if s.split]

    @property
    def judged_across_nodes_only(self):
        '''Whether some compared figure had nothing to compare its
        median with (no reference, no earlier fleet run).'''
        return any(s.against is None for s in self.spreads)

    def findings(self):
        '''Lines for people of what fails the partition beside its
        suspects: test cases that name another node than the scheduler's,
        nodes reported twice, check variants that failed on most nodes,
        figures most of its nodes have no measurement of, fleet-wide losses
        and figures that are not uniform.'''
        lines = [f'{self.name}: {node}: {what}, where the scheduler ran '
                 f'it on {node}: judged as {node}\'s'
                 for node, what in self.misreported]
        lines += [f'{self.name}: {node}: {records} test cases of {label}: '
                  f'which is the node\'s cannot be told, none compared'
                  for node, label, records in self.reported_twice]
        lines += [f'{self.name}: {label} failed on {len(nodes)} of {ran} '
                  f'node(s) ({node_list(sorted(nodes, key=natural_order))}'
                  f'): {", ".join(sorted(set(nodes.values())))}'
                  for label, nodes, ran in self.failed_widely]
        lines += [f'{self.name}: no measurement of {label} on {len(nodes)} '
                  f'of {ran} node(s) '
                  f'({node_list(sorted(nodes, key=natural_order))}): '
                  f'{", ".join(sorted(set(nodes.values())))}'
                  for label, nodes, ran in self.unmeasured]
        for s in self.fleet_losses:
            a = s.against
            runs = f' (median of {a.runs})' if a.runs else ''
            change = 100 * noise.change(s.median, a.value)
            lines.append(
                f'{self.name}: the fleet as a whole lost {s.figure.label}: '
                f'median {number(s.median)} {s.figure.unit} of '
                f'{len(s.values)} node(s), {a.source} {number(a.value)}'
                f'{runs}, limit {number(a.limit)} ({change:+.0f}%)')

        for s in self.not_uniform:
            slow, fast = s.split
            lines.append(
                f'{self.name}: not uniform: {s.figure.label} splits into '
                f'{len(slow)} node(s) at {number(s.median_of(slow))} '
                f'({node_list(slow)}) and {len(fast)} at '
                f'{number(s.median_of(fast))} {s.figure.unit} '
                f'({node_list(fast)}), which no recorded difference of '
                f'hardware or software explains')

        return lines
