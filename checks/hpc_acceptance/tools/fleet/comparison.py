'''Every node of a partition against its siblings of the same night, and
the fleet as a whole against what it should deliver.

A fleet run (``ci/acceptance.sh --fleet``: ReFrame's ``--distribute``)
runs each single-node check once on every node of a partition. Those nodes
ran the same checks, on the same software, the same night: the best
baseline there is for a node. For each partition this module

1. **groups the nodes by fingerprint** (:mod:`.fingerprint`: CPU
   model, CPUs, cores, memory, BIOS, kernel, as each job's probe read
   them). A group of :data:`.model.MIN_NODES` or more is judged on its own (two
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
   chance. A slow minority set apart from the rest is judged by the
   rest's median and band, not one it widened
   (:func:`_without_slow_minority`);
3. names a node a **suspect** when a figure is worse than its group's
   median by more than the band (or lost :data:`.model.NEARLY_ALL`,
   whatever the band), when it failed a check variant that passed on more
   than half of the partition's nodes (a variant that fails on most nodes
   is the check's or the software's problem), or when it has no measurement
   of a figure (:mod:`..results.measurement`) that more than half of the
   nodes of its check variant and inputs measured (else that figure is a
   finding of the partition): no measurement is never compared with
   anything;
4. calls a figure **not uniform** when its nodes split into two clusters,
   each of at least :data:`.model.CLUSTER_SHARE` of them, further apart
   than the family's minimum band: something no fingerprint explains (half
   a partition on another firmware setting, say) that a sysadmin must look
   at, not a list of nodes to drain (but a node that lost nearly all is
   named in it too);
5. compares the group's **median with what the fleet should deliver**:
   the reference of the figure where the system has a reference file
   (ReFrame records it with every figure), else the medians of the
   partition's earlier fleet runs (:mod:`.history`). A fleet that
   lost more than the band as a whole fails, even when no node stands
   out: the median and the spread move with the fleet.

How a kernel's repetitions went (its median repetition, best/median:
:func:`hpc_acceptance.core.references.unbounded`) names no suspect and
splits no partition: a median moves with whatever else runs on the node,
which the best repetition is there to see through; the ratios name
*contended* nodes (:mod:`.contention`) instead.

Figures of different identities are never compared: a node whose binary
came from elsewhere, say, is its own group and is listed under "other
inputs" with what differs.

Nothing depends on the order a run lists its nodes, test cases or runs in
(ReFrame's ``--distribute`` order, SQLite's): partitions, variants and
ties are taken in a fixed order of their own.
'''

import dataclasses
import math
import statistics
from collections import defaultdict

from hpc_acceptance.core.references import unbounded
from hpc_acceptance.tools.fleet import fingerprint, grouping
from hpc_acceptance.tools.fleet.model import (
    FALSE_SUSPECTS, MIN_HISTORY, MIN_NODES, SPREAD_FACTOR, Against,
    FleetError, Outlier, Spread, Suspect, cluster_nodes, natural_order,
    node_of, variant_key, width)
from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results import units
from hpc_acceptance.tools.results.runs import (figure_key, figures_of,
                                               unmeasured)


def spread_factor(comparisons):
    '''Robust standard deviations a node may be from its median when the
    run compares ``comparisons`` figures of nodes with their medians: the
    one-sided normal quantile that leaves :data:`FALSE_SUSPECTS` expected
    false suspects in all of them, at least :data:`SPREAD_FACTOR`.'''
    if comparisons <= 0:
        return SPREAD_FACTOR

    return max(SPREAD_FACTOR, statistics.NormalDist().inv_cdf(
        1 - FALSE_SUSPECTS / comparisons))


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
    ``floor``; ``factor`` robust standard deviations), those of the nodes
    but a slow minority where that minority is out of them
    (:func:`_without_slow_minority`).'''
    median, band = _median_band(list(values.values()), floor, factor)
    return _without_slow_minority(Spread(figure, values, median, band, floor),
                                  factor)


def _ranked(spread):
    '''``(nodes, gaps)``: the nodes of ``spread`` worst first, and the
    gain of each over the node before it (the first's 0).'''
    ranked = sorted(spread.values, key=spread.gain)
    gains = [spread.gain(node) for node in ranked]
    # two nodes that both measured 0 (-inf) are no gap apart, not NaN
    return ranked, [0.0] + [gains[i] - gains[i - 1]
                            if gains[i] != gains[i - 1] else 0.0
                            for i in range(1, len(ranked))]


def _without_slow_minority(spread, factor):
    '''``spread`` with the median and band of its nodes but the ``k``
    slowest, for the largest ``k`` whose every node is out of them and
    further below the next node than their band is wide (the others are
    :data:`.model.MIN_NODES` or more, and more than ``k``); else
    ``spread`` as it is.

    Slow nodes widen the median absolute deviation of the group they are
    judged in: two nodes of six that lost 30 % double it, and pass inside
    the band they made. The nodes' own band can only be the healthy ones':
    a minority counts as slow when the majority's band leaves every node
    of it out, which a quiet group's tail (no gap between it and the rest)
    does not.'''
    ranked, gaps = _ranked(spread)
    count = len(ranked)
    for slow in range(min((count - 1) // 2, count - MIN_NODES), 0, -1):
        gap = gaps[slow]
        # no band is narrower than the floor: most cuts of a large fleet
        # end here, before the median of its rest is taken
        if not gap > width(spread.floor):
            continue

        median, band = _median_band(
            [spread.values[node] for node in ranked[slow:]], spread.floor,
            factor)
        rest = dataclasses.replace(spread, median=median, band=band)
        if gap > width(band) and all(
                rest.is_out(spread.values[node]) for node in ranked[:slow]):
            return rest

    return spread


def _split(spread, floor):
    '''``(slower nodes, faster nodes)`` where the values of ``spread``
    fall in two clusters of :func:`.model.cluster_nodes` nodes or more
    each, further apart than ``floor``; else ``None``.'''
    ranked, gaps_below = _ranked(spread)
    need = cluster_nodes(len(ranked))
    gaps = [(gaps_below[i], i) for i in range(need, len(ranked) - need + 1)]
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
    # a reference is in the unit of its figure: of the nodes that gave it
    # in the unit compared
    refs = {tuple(perf[1:4]) for case in cases
            for name, perf in (case.get('perfvalues') or {}).items()
            if name.split(':')[-1] == figure.variable and perf[1] and
            perf[4] == figure.unit}
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

    # each earlier run's median in this run's unit; one in a unit that is
    # no multiple of it is no history of this figure
    earlier = [value for value in (
        units.convert(median, unit, figure.unit) for median, unit in
        (history or {}).get((figure.key, figure.variable, hardware), ()))
        if value is not None]
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


def _earlier(figure, cases):
    '''``{node: value}`` of ``figure`` (in its unit) in the latest attempt
    before each case's final one that recorded it; ``None`` where that
    attempt has no measurement of it, or one in a unit that is no multiple
    of the figure's (the worst: a node is named when it is out on its
    final attempt and measured nothing before).'''
    found = {}
    for node, case in cases.items():
        for attempt in reversed(case.get('earlier_attempts') or ()):
            before = figures_of(attempt).get(figure.variable)
            if before is not None or figure.variable in unmeasured(attempt):
                found[node] = before and units.convert(*before, figure.unit)
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
        spread.earlier = _earlier(column.figure, {
            node: case for node, case in column.cases.items()
            if node in column.values})
        fleet.spreads.append(spread)
        if unbounded(column.figure.variable):
            continue

        spread.split = _split(spread, floor)
        spread.against = _against(
            spread, list(column.cases.values()), history,
            fingerprint.hardware(column.fingerprint))
        fleet.recovered += _recovered(spread)

    # a node reported twice for a variant is not one of its failures
    fleet.suspects = _suspects(
        fleet.name, fleet.spreads,
        grouping.failures(grouping.reported_twice(cases)[0]),
        fleet.suspects)


def compare_partition(name, cases, min_nodes=MIN_NODES, floors=None,
                      history=None, factor=SPREAD_FACTOR):
    ''':class:`PartitionFleet` of one partition's test cases; ``floors``
    replaces what the cases recorded; ``history`` holds the earlier fleet
    runs' medians (:func:`.history.earlier_medians`); ``factor``
    the robust standard deviations of a band (:func:`spread_factor`).'''
    fleet, columns = grouping.partition(name, cases, min_nodes)
    _judge(fleet, columns, cases, floors, history, factor)
    return fleet


def _suspects(partition, spreads, failures, odd):
    by_node = {s.node: s for s in odd}
    for spread in spreads:
        if unbounded(spread.figure.variable):
            continue
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
    by_partition = grouping.by_partition(testcases)
    partitions = [(cases, *grouping.partition(name, cases, min_nodes))
                  for name, cases in by_partition.items()]
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
    return [case
            for partition, cases in grouping.by_partition(testcases).items()
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
