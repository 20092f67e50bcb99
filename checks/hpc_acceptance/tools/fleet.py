'''Every node of a partition against its siblings of the same night.

A fleet run (``ci/acceptance.sh --all-nodes``: ReFrame's ``--distribute``)
runs each single-node check once on every node of a partition. Those nodes
ran the same checks, on the same software, the same night: the best
baseline there is, with no reference file and no history. For each
partition, check variant, identity and figure this module takes the
fleet's median across the nodes and a robust spread, in the factor form of
:mod:`.noise` (deviations are logarithms of value / median; a band is the
fraction of performance a figure may lose):

- the band is the larger of :data:`SPREAD_FACTOR` robust standard
  deviations of the nodes (1.4826 x the median absolute deviation) and the
  family's minimum (:func:`.noise.family_floor`, or the partition's own
  ``extras.fleet_floors``, recorded with each test case as ``fleet_floors``).
  The fleet's own spread sets what counts as odd: identical processors
  differ by up to 16 % with Turbo, and a 500-node partition shows it;
- a node is a **suspect** when a figure is worse than the fleet median by
  more than the band, or when it failed a check variant that passed on
  more than half of the partition's nodes (a variant that fails on most
  nodes is the check's or the software's problem, not a node's).

Figures of different identities are never compared: a node whose binary
came from elsewhere, say, is its own group and is listed under "other
inputs" with what differs. A partition with fewer than :data:`MIN_NODES`
nodes in a group is not compared: a median of three says little.
'''

import math
import re
import statistics
from collections import Counter, OrderedDict, defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from hpc_acceptance.core import identity
from hpc_acceptance.tools import noise
from hpc_acceptance.tools.results import (FAILED_RESULTS, figure_key,
                                          figures_of, short_name)

#: Nodes a group needs before its figures are compared across nodes.
MIN_NODES = 4

#: Figures named in a suspect's line before "+N more".
SHOWN_FIGURES = 2

#: Robust standard deviations of the fleet a node may be from its median
#: before it is odd: as the noise model's run-to-run band.
SPREAD_FACTOR = noise.SPREAD_FACTOR

# ReFrame's --distribute adds the parameter ".nid", shown as %.nid=<node>
_NID = re.compile(r'%\.nid=(\S+)')


def number(value):
    '''A figure as people read it: ``58510``, ``95.3``, ``1.42``.'''
    return f'{value:.0f}' if abs(value) >= 1000 else f'{value:.3g}'


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
    '''A :func:`~.results.figure_key` without its identity: the check
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
class Spread:
    '''The nodes' values of one :class:`Figure`, their median and band.'''
    figure: Figure
    values: Dict[str, float]
    median: float
    band: float

    def change(self, node):
        '''Relative change of ``node``'s value from the median.'''
        return noise.change(self.values[node], self.median)

    def gain(self, node):
        '''How much better than the median ``node`` is, as a factor's
        logarithm: negative when worse, whatever the unit's direction.'''
        value = self.values[node]
        if value <= 0 or self.median <= 0:
            return 0.0

        gain = math.log(value / self.median)
        return gain if noise.higher_is_better(self.figure.unit) else -gain

    def is_worse(self, node):
        return noise.verdict(self.values[node], self.median, self.band,
                             self.figure.unit) == 'regressed'


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
    #: it was a suspect in the previous fleet run too
    again: bool = False

    @property
    def loss(self):
        '''For ordering: a failure ranks above any slow figure.'''
        if self.failures:
            return math.inf

        return max((o.loss for o in self.outliers), default=0.0)

    def describe(self, shown=SHOWN_FIGURES):
        '''What makes it a suspect, on one line: its failures, then its
        worst figures with value, fleet median and change.'''
        parts = [f'failed {case}: {reason}' for case, reason in self.failures]
        parts += [f'{o.figure.label} {number(o.value)} {o.figure.unit} '
                  f'(fleet median {number(o.median)}, '
                  f'{100 * o.change:+.0f}%)'
                  for o in self.outliers[:shown]]
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


def _floors(cases):
    '''The family minimums a partition recorded (``fleet_floors``), as
    :func:`.noise.parse_floors` reads them.'''
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


def _spread(figure, values, floors):
    median = statistics.median(values.values())
    floor = noise.family_floor(figure.key[0], floors)
    if median <= 0:
        return Spread(figure, values, median, floor)

    deviations = [abs(math.log(v / median)) if v > 0 else math.inf
                  for v in values.values()]
    spread = SPREAD_FACTOR * 1.4826 * statistics.median(deviations)
    width = max(-math.log(1 - floor) if floor < 1 else math.inf, spread)
    return Spread(figure, values, median, round(1 - math.exp(-width), 3))


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

    return partitions


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

    return failures


def _groups(cases):
    '''``{variant: {identity: {node: case}}}`` of the passed cases.'''
    groups = defaultdict(lambda: defaultdict(dict))
    for case in cases:
        if case['result'] == 'pass':
            key = figure_key(case)
            groups[variant_key(key)][key[4]][node_of(case)] = case

    return groups


def compare_partition(name, cases, min_nodes=MIN_NODES, floors=None):
    ''':class:`PartitionFleet` of one partition's test cases; ``floors``
    replaces what the cases recorded.'''
    fleet = PartitionFleet(name, sorted({node_of(c) for c in cases}))
    floors = _floors(cases) if floors is None else floors
    for variant, identities in _groups(cases).items():
        ranked = sorted(identities.items(), key=lambda item: -len(item[1]))
        fleets_identity, nodes = ranked[0]
        for other, odd_nodes in ranked[1:]:
            what = '; '.join(identity.differences(fleets_identity, other))
            fleet.other_inputs += [
                (node, _label(case), what or 'other inputs')
                for node, case in sorted(odd_nodes.items())]

        if len(nodes) < min_nodes:
            continue

        values = defaultdict(dict)
        units = {}
        for node, case in nodes.items():
            for variable, (value, unit) in figures_of(case).items():
                values[variable][node] = float(value)
                units[variable] = unit

        key = variant + (fleets_identity,)
        fleet.spreads += [
            _spread(Figure(key, variable, units[variable]), by_node, floors)
            for variable, by_node in sorted(values.items())
            if len(by_node) >= min_nodes]

    if len(fleet.nodes) < min_nodes:
        fleet.not_compared = (f'{len(fleet.nodes)} node(s): the fleet '
                              f'comparison needs at least {min_nodes}')
    elif not fleet.spreads:
        fleet.not_compared = (f'no figure of {min_nodes} or more nodes of '
                              f'the same inputs')

    fleet.suspects = _suspects(name, fleet.spreads, _failures(cases))
    return fleet


def _suspects(partition, spreads, failures):
    by_node = {}
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
        suspect.outliers.sort(key=lambda o: -o.loss)

    return sorted(by_node.values(), key=lambda s: (-s.loss, s.node))


def compare(testcases, min_nodes=MIN_NODES, floors=None):
    '''A :class:`PartitionFleet` per partition of the test cases (those
    of known node; fixtures left out).'''
    return [compare_partition(name, cases, min_nodes, floors)
            for name, cases in _by_partition(testcases).items()]


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
