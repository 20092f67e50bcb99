'''Every node of a partition against its siblings of the same night, and
the fleet as a whole against what it should deliver.

A fleet run (``ci/acceptance.sh --fleet``: ReFrame's ``--distribute``)
runs each single-node check once on every node of a partition. Those nodes
ran the same checks, on the same software, the same night: the best
baseline there is for a node. For each partition this module

1. **groups the nodes by fingerprint** (:mod:`.fingerprint`: CPU
   model, CPUs, cores, memory, BIOS, kernel, as each job's probe read
   them). A group of :data:`MIN_NODES` or more is judged on its own (two
   hardware generations are two fleets); a node whose fingerprint fewer
   nodes share is a **suspect** for what differs (a lost DIMM, a BIOS
   update that failed), and its figures are not compared;
2. for each group, check variant, identity and figure takes the nodes'
   median and a robust spread, in the factor form of :mod:`..references.noise`
   (deviations are logarithms of value / median; a band is the fraction
   of performance a figure may lose). The band is the larger of
   :func:`spread_factor` robust standard deviations of the nodes (1.4826 x
   the median absolute deviation) and the family's minimum
   (:func:`..references.noise.family_floor`, or the partition's own
   ``extras.fleet_floors``, recorded with each test case as
   ``fleet_floors``). The factor grows with the number of comparisons of
   the run, so that a quiet fleet of a thousand nodes names no node by
   chance;
3. names a node a **suspect** when a figure is worse than its group's
   median by more than the band (or lost :data:`NEARLY_ALL`, whatever the
   band), when it failed a check variant that passed on more than half of
   the partition's nodes (a variant that fails on most nodes is the
   check's or the software's problem), or when it has no measurement of a
   figure (:mod:`..results.measurement`) that more than half of the nodes
   of its check variant and inputs measured (else that figure is a finding
   of the partition): no measurement is never compared with anything;
4. calls a figure **not uniform** when its nodes split into two clusters,
   each of at least :data:`CLUSTER_SHARE` of them, further apart than the
   family's minimum band: something no fingerprint explains (half a
   partition on another firmware setting, say) that a sysadmin must look
   at, not a list of nodes to drain (but a node that lost nearly all is
   named in it too);
5. compares the group's **median with what the fleet should deliver**:
   the reference of the figure where the system has a reference file
   (ReFrame records it with every figure), else the medians of the
   partition's earlier fleet runs (:mod:`.history`). A fleet that
   lost more than the band as a whole fails, even when no node stands
   out: the median and the spread move with the fleet.

Figures of different identities are never compared: a node whose binary
came from elsewhere, say, is its own group and is listed under "other
inputs" with what differs.

Nothing depends on the order a run lists its nodes, test cases or runs in
(ReFrame's ``--distribute`` order, SQLite's): partitions, variants and
ties are taken in a fixed order of their own.
'''

import math
import re
import statistics
from collections import Counter, OrderedDict, defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, NamedTuple, Optional, Tuple

from hpc_acceptance.core import identity
from hpc_acceptance.tools.fleet import fingerprint as node_fingerprint
from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results import measurement
from hpc_acceptance.tools.results.runs import (FAILED_RESULTS, figure_key,
                                               figures_of, passed_on_retry,
                                               short_name, unmeasured)

#: Nodes a group needs before its figures are compared across nodes.
MIN_NODES = 4

#: Figures named in a suspect's line before "+N more".
SHOWN_FIGURES = 2

#: Robust standard deviations of the fleet a node may be from its median
#: before it is odd, at least: as the noise model's run-to-run band.
SPREAD_FACTOR = noise.SPREAD_FACTOR

#: Suspects a quiet fleet run may name by chance, at most, from the
#: spread term of the band: :func:`spread_factor` widens the band with the
#: number of comparisons (a node's figure each) to keep to it.
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
#: nodes, at least: two odd nodes of six are suspects.
CLUSTER_SHARE = 0.25
CLUSTER_NODES = 3

# ReFrame's --distribute adds the parameter ".nid", shown as %.nid=<node>
_NID = re.compile(r'%\.nid=(\S+)')


def natural_order(name):
    '''Sort key of node names: ``n2`` before ``n10``.'''
    return [int(part) if part.isdigit() else part
            for part in re.split(r'(\d+)', name)]


def spread_factor(comparisons):
    '''Robust standard deviations a node may be from its median when the
    run compares ``comparisons`` figures of nodes with their medians: the
    one-sided normal quantile that leaves :data:`FALSE_SUSPECTS` expected
    false suspects in all of them, at least :data:`SPREAD_FACTOR`.'''
    if comparisons <= 0:
        return SPREAD_FACTOR

    return max(SPREAD_FACTOR, statistics.NormalDist().inv_cdf(
        1 - FALSE_SUSPECTS / comparisons))


def number(value):
    '''A figure as people read it: ``58510``, ``95.3``, ``1.42``;
    ``no measurement`` for ``None``.'''
    if value is None:
        return 'no measurement'

    return f'{value:.0f}' if abs(value) >= 1000 else f'{value:.3g}'


def _order(key):
    '''A sort key of figure keys and check variants, whose parameters
    may hold numbers and words alike.'''
    return repr(key)


class FleetError(ValueError):
    '''The test cases cannot be compared; the message says why.'''


def node_of(case):
    '''The node a test case ran on: what its job reported (``node``), else
    the node ReFrame's ``--distribute`` pinned it to, else its job's only
    node; ``None`` if unknown (a skipped case, or several nodes).'''
    if case.get('node'):
        return case['node']

    match = _NID.search(case.get('display_name', ''))
    if match:
        return match[1]

    nodes = case.get('job_nodelist') or []
    if isinstance(nodes, str):
        nodes = [nodes]

    return nodes[0] if len(nodes) == 1 else None


def variant_key(key):
    '''A :func:`~..results.runs.figure_key` without its identity: the check
    variant, whatever the inputs.'''
    return key[:4]


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
    fingerprint: tuple = node_fingerprint.UNKNOWN
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

        gain = math.log(value / self.median)
        return gain if noise.higher_is_better(self.figure.unit) else -gain

    def lost_nearly_all(self, value):
        '''Whether ``value`` is no measurement (``None``) or lost
        :data:`NEARLY_ALL` against the median, or more.'''
        return value is None or -self.gain(None, value) > width(NEARLY_ALL)

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
        parts += [f'failed {case}: {reason}'
                  for case, reason in self.failures]
        parts += [f'{label}: no measurement ({why})'
                  for label, why in self.unmeasured]
        parts += [f'{o.figure.label} {number(o.value)} {o.figure.unit} '
                  f'(fleet median {number(o.median)}, '
                  f'{100 * o.change:+.0f}%'
                  f'{f", band {100 * o.band:.0f}%" if bands else ""})'
                  for o in self.outliers[:shown]]
        return parts

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
        suspects: figures most of its nodes have no measurement of,
        fleet-wide losses and figures that are not uniform.'''
        lines = [f'{self.name}: no measurement of {label} on {len(nodes)} of '
                 f'{ran} node(s) '
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


def node_list(nodes, shown=6):
    '''``n1, n2, ... +N more``.'''
    more = f' +{len(nodes) - shown} more' if len(nodes) > shown else ''
    return ', '.join(nodes[:shown]) + more


def _floors(cases):
    '''The family minimums a partition recorded (``fleet_floors``), as
    :func:`..references.noise.parse_floors` reads them.'''
    recorded = {c.get('fleet_floors') or '' for c in cases}
    recorded.discard('')
    if len(recorded) > 1:
        raise FleetError(f'test cases of {cases[0]["system"]}:'
                         f'{cases[0]["partition"]} recorded different '
                         f'fleet floors: {sorted(recorded)}')

    text = recorded.pop() if recorded else ''
    try:
        return noise.parse_floors(text)
    except ValueError as err:
        raise FleetError(f'extras.fleet_floors of {cases[0]["system"]}:'
                         f'{cases[0]["partition"]}: {err}') from None


def width(band):
    '''A band as the largest deviation (a factor's logarithm) within
    it.'''
    return -math.log(1 - band) if band < 1 else math.inf


def _median_band(values, floor, factor):
    '''``(median, band)`` of ``values`` (at least ``floor``; ``factor``
    robust standard deviations).'''
    median = statistics.median(values)
    if median <= 0:
        return median, floor

    deviations = [abs(math.log(v / median)) if v > 0 else math.inf
                  for v in values]
    spread = factor * 1.4826 * statistics.median(deviations)
    return median, round(1 - math.exp(-max(width(floor), spread)), 3)


def _spread(figure, values, floor, factor):
    '''The :class:`Spread` of ``values``: median and band (at least
    ``floor``; ``factor`` robust standard deviations).'''
    median, band = _median_band(list(values.values()), floor, factor)
    return Spread(figure, values, median, band, floor)


def _split(spread, floor):
    '''``(slower nodes, faster nodes)`` where the values of ``spread``
    fall in two clusters of :data:`CLUSTER_SHARE` of the nodes or more
    (and :data:`CLUSTER_NODES`), further apart than ``floor``; else
    ``None``.'''
    ranked = sorted(spread.values, key=spread.gain)
    need = max(CLUSTER_NODES, math.ceil(CLUSTER_SHARE * len(ranked)))
    gains = [spread.gain(node) for node in ranked]
    # two nodes that both measured 0 (-inf) are no gap apart, not NaN
    gaps = [(gains[i] - gains[i - 1] if gains[i] != gains[i - 1] else 0.0,
             i) for i in range(need, len(ranked) - need + 1)]
    if not gaps:
        return None

    gap, at = max(gaps)
    if gap <= width(floor):
        return None

    return (sorted(ranked[:at], key=natural_order),
            sorted(ranked[at:], key=natural_order))


def _against(spread, cases, history, hardware):
    ''':class:`Against` for ``spread``: its figure's reference as ReFrame
    recorded it with the figure, else the earlier fleet runs' medians
    (``history``, :func:`.history.earlier_medians`); ``None`` if
    neither.'''
    figure = spread.figure
    refs = {tuple(perf[1:4]) for case in cases
            for name, perf in (case.get('perfvalues') or {}).items()
            if name.split(':')[-1] == figure.variable and perf[1]}
    better_high = noise.higher_is_better(figure.unit)
    if len(refs) == 1:
        ref, lower, upper = refs.pop()
        bound = lower if better_high else upper
        if bound is None:
            return None

        limit = ref * (1 + bound)
        lost = (spread.median < limit if better_high
                else spread.median > limit)
        return Against('reference', ref, limit, 0, lost)

    earlier = (history or {}).get((figure.key, figure.variable, hardware))
    if not earlier:
        return None

    if len(earlier) >= MIN_HISTORY:
        median, band = noise.band(earlier, spread.floor)
    else:
        median, band = statistics.median(earlier), spread.floor

    low, high = noise.limits(median, band)
    # a median of 0 or below is regressed too, whatever the unit
    lost = noise.verdict(spread.median, median, band,
                         figure.unit) == 'regressed'
    return Against('earlier fleet runs', median,
                   low if better_high else high, len(earlier), lost)


def _label(case):
    '''The test case as people read it: no default variants, no
    ReFrame-made parameters.'''
    return short_name(' '.join(word for word in
                               case['display_name'].split()
                               if not word.startswith('%.')))


def _by_partition(testcases):
    partitions = OrderedDict()
    for case in testcases:
        if case.get('fixture') or node_of(case) is None:
            continue

        partition = f'{case["system"]}:{case["partition"]}'
        partitions.setdefault(partition, []).append(case)

    # by name: the order a report lists its test cases in is ReFrame's
    return OrderedDict(sorted(partitions.items()))


def _failures(cases):
    '''``{node: [(test case, reason)]}`` of the variants that failed on a
    node while passing on more than half of the nodes.'''
    outcomes = defaultdict(Counter)
    for case in cases:
        if case['result'] != 'skip':
            failed = case['result'] in FAILED_RESULTS
            outcomes[variant_key(figure_key(case))][failed] += 1

    failures = defaultdict(list)
    for case in cases:
        counts = outcomes[variant_key(figure_key(case))]
        if (case['result'] in FAILED_RESULTS and
                counts[False] > (counts[False] + counts[True]) / 2):
            failures[node_of(case)].append(
                (_label(case), case.get('fail_reason') or case['result']))

    return {node: sorted(failed) for node, failed in failures.items()}


def _groups(cases):
    '''``{variant: {identity: {node: case}}}`` of the passed cases,
    variants in a fixed order.'''
    groups = defaultdict(lambda: defaultdict(dict))
    for case in cases:
        if case['result'] == 'pass':
            key = figure_key(case)
            groups[variant_key(key)][key[4]][node_of(case)] = case

    return {variant: groups[variant] for variant in sorted(groups,
                                                           key=_order)}


def _columns(fleet, cases, min_nodes):
    '''``[(Figure, {node: value}, {node: case})]`` of the passed cases of
    ``cases`` (one fingerprint group's) that :data:`MIN_NODES` or more
    nodes ran with the same inputs; nodes of other inputs are added to
    ``fleet.other_inputs``.'''
    columns = []
    for variant, identities in _groups(cases).items():
        # the most nodes' inputs are the fleet's; on a tie, the same ones
        # whatever the report's order
        ranked = sorted(identities.items(),
                        key=lambda item: (-len(item[1]), item[0]))
        fleets_identity, nodes = ranked[0]
        for other, odd_nodes in ranked[1:]:
            what = '; '.join(identity.differences(fleets_identity, other))
            fleet.other_inputs += [
                (node, _label(case), what or 'other inputs')
                for node, case in sorted(odd_nodes.items())]

        if len(nodes) < min_nodes:
            continue

        values, units = defaultdict(dict), {}
        for node, case in nodes.items():
            for variable, (value, unit) in figures_of(case).items():
                values[variable][node] = value
                units[variable] = unit

        key = variant + (fleets_identity,)
        columns += [(Figure(key, variable, units[variable]), by_node,
                     dict(nodes))
                    for variable, by_node in sorted(values.items())
                    if len(by_node) >= min_nodes]

    return columns


def _odd_fingerprints(name, groups, judged):
    '''Suspects of the nodes of a fingerprint too few nodes share, each
    with how it differs from the nearest judged group.'''
    suspects = []
    for group in groups:
        if group in judged or not judged:
            continue

        usual = node_fingerprint.nearest(group.fingerprint, judged)
        differs = node_fingerprint.differences(group.fingerprint,
                                               usual.fingerprint)
        suspects += [Suspect(name, node, differs=differs)
                     for node in group.nodes]

    return suspects


def _unmeasured(cases):
    '''``({node: [(figure label, why)]}, [(figure label, {node: why},
    nodes)]``: the figures the nodes' passed test cases have no
    measurement of (:mod:`..results.measurement`; a figure the other nodes
    of the same check variant and inputs report and a node's does not is
    "not reported"). Where more than half of the nodes that ran it
    measured the figure, the others are each named (the first); else the
    figure is a finding of the partition (the second).'''
    runs = defaultdict(dict)
    for case in cases:
        if case['result'] == 'pass':
            runs[figure_key(case)][node_of(case)] = case

    by_node, widespread = defaultdict(list), []
    for key in sorted(runs, key=_order):
        nodes = runs[key]
        measured, missing = defaultdict(set), defaultdict(dict)
        for node, case in nodes.items():
            for variable in figures_of(case):
                measured[variable].add(node)
            for variable, (why, _) in unmeasured(case).items():
                missing[variable][node] = why

        for variable in sorted(set(measured) | set(missing)):
            absent = {node: missing[variable].get(
                node, measurement.NOT_REPORTED) for node in nodes
                if node not in measured[variable]}
            if not absent:
                continue

            label = Figure(key, variable, '').label
            if len(measured[variable]) > len(nodes) / 2:
                for node, why in absent.items():
                    by_node[node].append((label, why))
            else:
                widespread.append((label, absent, len(nodes)))

    return by_node, widespread


class _Column(NamedTuple):
    '''The values of one figure in one fingerprint group, to be judged.'''
    figure: Figure
    values: Dict[str, float]
    #: ``{node: test case}``
    cases: dict
    fingerprint: tuple


def _partition(name, cases, min_nodes):
    '''The :class:`PartitionFleet` of one partition's test cases with its
    groups, suspects by fingerprint and failures, and the
    :class:`_Column` of its figures to judge.'''
    by_node = defaultdict(list)
    for case in cases:
        by_node[node_of(case)].append(case)

    fleet = PartitionFleet(name, sorted(by_node))
    fleet.groups = node_fingerprint.groups(
        node_fingerprint.of_nodes(by_node))
    judged = [g for g in fleet.groups if len(g.nodes) >= min_nodes]
    columns = [_Column(figure, values, figure_cases, group.fingerprint)
               for group in judged
               for figure, values, figure_cases in _columns(
                   fleet, [c for n in group.nodes for c in by_node[n]],
                   min_nodes)]

    if len(fleet.nodes) < min_nodes:
        fleet.not_compared = (f'{len(fleet.nodes)} node(s): the fleet '
                              f'comparison needs at least {min_nodes}')
    elif not judged:
        fleet.not_compared = (
            f'no {min_nodes} or more nodes of the same hardware and '
            f'software: ' + '; '.join(
                f'{node_list(g.nodes)}: '
                f'{node_fingerprint.describe(g.fingerprint)}'
                for g in fleet.groups))
    elif not columns:
        fleet.not_compared = (f'no figure of {min_nodes} or more nodes of '
                              f'the same inputs')

    fleet.suspects = _odd_fingerprints(name, fleet.groups, judged)
    by_node, fleet.unmeasured = _unmeasured(cases)
    for suspect in fleet.suspects:
        suspect.unmeasured = by_node.pop(suspect.node, [])
    fleet.suspects += [Suspect(name, node, unmeasured=figures)
                       for node, figures in by_node.items()]
    fleet.passed_on_retry = sorted(
        (node_of(c), _label(c)) for c in cases if passed_on_retry(c))
    return fleet, columns


def _earlier(variable, cases):
    '''``{node: value}`` of ``variable`` in the latest attempt before
    each case's final one that recorded it; ``None`` where that attempt
    has no measurement of it (the worst: a node is named when it is out
    on its final attempt and measured nothing before).'''
    found = {}
    for node, case in cases.items():
        for attempt in reversed(case.get('earlier_attempts') or ()):
            before = figures_of(attempt).get(variable)
            if before is not None or variable in unmeasured(attempt):
                found[node] = before and before[0]
                break

    return found


def _recovered(spread):
    '''``[(node, figure label, first value, value)]`` of the nodes of
    ``spread`` out on the attempt before their final one and within the
    band on the final one.'''
    return [(node, spread.figure.label, before, spread.values[node])
            for node, before in sorted(spread.earlier.items())
            if spread.is_out(before) and
            not spread.is_out(spread.values[node])]


def _judge(fleet, columns, cases, floors, history, factor):
    '''Make the spreads of ``columns`` and name the suspects of
    ``fleet``.'''
    floors = _floors(cases) if floors is None else floors
    missing = {(s.node, label): why for s in fleet.suspects
               for label, why in s.unmeasured}
    for column in columns:
        floor = noise.family_floor(column.figure.key[0], floors)
        spread = _spread(column.figure, column.values, floor, factor)
        spread.fingerprint = column.fingerprint
        spread.unmeasured = {
            node: missing[node, column.figure.label]
            for node in column.cases
            if (node, column.figure.label) in missing}
        # of the nodes with a final value: one with none is no measurement
        spread.earlier = _earlier(column.figure.variable, {
            node: case for node, case in column.cases.items()
            if node in column.values})
        spread.split = _split(spread, floor)
        spread.against = _against(
            spread, list(column.cases.values()), history,
            node_fingerprint.hardware(column.fingerprint))
        fleet.spreads.append(spread)
        fleet.recovered += _recovered(spread)

    fleet.suspects = _suspects(fleet.name, fleet.spreads, _failures(cases),
                               fleet.suspects)


def compare_partition(name, cases, min_nodes=MIN_NODES, floors=None,
                      history=None, factor=SPREAD_FACTOR):
    ''':class:`PartitionFleet` of one partition's test cases; ``floors``
    replaces what the cases recorded; ``history`` holds the earlier fleet
    runs' medians (:func:`.history.earlier_medians`); ``factor``
    the robust standard deviations of a band (:func:`spread_factor`).'''
    fleet, columns = _partition(name, cases, min_nodes)
    _judge(fleet, columns, cases, floors, history, factor)
    return fleet


def _suspects(partition, spreads, failures, odd):
    by_node = {s.node: s for s in odd}
    for spread in spreads:
        for node in spread.values:
            if spread.is_worse(node):
                by_node.setdefault(node, Suspect(partition, node)).outliers \
                    .append(Outlier(spread.figure, spread.values[node],
                                    spread.median, spread.band,
                                    -spread.gain(node)))

    for node, failed in failures.items():
        by_node.setdefault(node, Suspect(partition, node)).failures = failed

    for suspect in by_node.values():
        suspect.outliers.sort(key=lambda o: (-o.loss, o.figure.label))

    return sorted(by_node.values(), key=lambda s: (-s.loss, s.node))


def compare(testcases, min_nodes=MIN_NODES, floors=None, history=None):
    '''A :class:`PartitionFleet` per partition of the test cases (those
    of known node; fixtures left out); ``history`` as
    :func:`compare_partition` takes it. The band's factor is corrected
    for every node figure the run compares (:func:`spread_factor`).'''
    partitions = [(cases, *_partition(name, cases, min_nodes))
                  for name, cases in _by_partition(testcases).items()]
    factor = spread_factor(sum(len(column.values)
                               for _, _, columns in partitions
                               for column in columns))
    for cases, fleet, columns in partitions:
        _judge(fleet, columns, cases, floors, history, factor)

    return [fleet for _, fleet, _ in partitions]


def judged_by_siblings(fleets, testcases):
    '''The test cases whose figures were compared with the same check's
    on their partition's other nodes (:data:`MIN_NODES` or more ran it with
    the same inputs). Those are judged, with or without a reference file:
    the nodes of one partition are each other's baseline.'''
    compared = {(f.name, s.figure.key) for f in fleets for s in f.spreads}
    return [case for partition, cases in _by_partition(testcases).items()
            for case in cases if (partition, figure_key(case)) in compared]


def is_fleet_run(testcases):
    '''Whether some check variant ran on several nodes of a partition:
    the run was distributed over the nodes.'''
    seen = defaultdict(set)
    for case in testcases:
        if not case.get('fixture') and node_of(case):
            seen[variant_key(figure_key(case)),
                 case['partition']].add(node_of(case))

    return any(len(nodes) > 1 for nodes in seen.values())


def mark_repeats(fleets, earlier):
    '''Mark the suspects of ``fleets`` that were suspects of the same
    partition in ``earlier`` (the previous fleet run's comparison).'''
    before = {(s.partition, s.node) for f in earlier for s in f.suspects}
    for fleet in fleets:
        for suspect in fleet.suspects:
            suspect.again = (suspect.partition, suspect.node) in before
