'''A partition's test cases as the fleet comparison (:mod:`.comparison`)
reads them: by partition, its nodes grouped by fingerprint
(:mod:`.fingerprint`), the columns of figures each group's nodes measured
with the same inputs, the check variants a node alone failed (or most
nodes did), and the figures nodes have no measurement of
(:mod:`..results.measurement`).

Before a figure is compared, what it is is checked: the node is the one
the scheduler ran it on (:func:`.model.node_of`; a test case that says
another is a finding, :func:`.model.disagreement`); a node with two test
cases of one check variant and inputs is compared with neither (which is
its figure cannot be told); a figure in another unit than its siblings'
is converted where the units are multiples of one another
(:mod:`..results.units`: GB/s and MB/s), else it is no measurement of that
node, as is a figure beyond what the node could deliver
(:mod:`..results.plausible`) or :data:`.model.IMPLAUSIBLE_GAIN` better
than its siblings' median: none of them moves a median or a band.'''

import math
import statistics
from collections import Counter, OrderedDict, defaultdict
from typing import Dict, NamedTuple

from hpc_acceptance.core import identity
from hpc_acceptance.tools.fleet import fingerprint
from hpc_acceptance.tools.fleet.model import (Figure, PartitionFleet,
                                              Suspect, disagreement,
                                              gain_over, implausible,
                                              node_of, natural_order,
                                              variant_key)
from hpc_acceptance.tools.fleet.wording import node_list, number
from hpc_acceptance.tools.results import measurement, units
from hpc_acceptance.tools.results.runs import (FAILED_RESULTS, figure_key,
                                               figures_and_unmeasured,
                                               passed_on_retry, short_name)


def _order(key):
    '''A sort key of figure keys and check variants, whose parameters
    may hold numbers and words alike.'''
    return repr(key)


def _label(case):
    '''The test case as people read it: no default variants, no
    ReFrame-made parameters.'''
    return short_name(' '.join(word for word in
                               case['display_name'].split()
                               if not word.startswith('%.')))


def by_partition(testcases):
    partitions = OrderedDict()
    for case in testcases:
        if case.get('fixture') or node_of(case) is None:
            continue

        partition = f'{case["system"]}:{case["partition"]}'
        partitions.setdefault(partition, []).append(case)

    # by name: the order a report lists its test cases in is ReFrame's
    return OrderedDict(sorted(partitions.items()))


def _outcomes(cases):
    '''``{check variant: Counter({failed: nodes})}`` of the test cases
    that ran (skips left out).'''
    outcomes = defaultdict(Counter)
    for case in cases:
        if case['result'] != 'skip':
            failed = case['result'] in FAILED_RESULTS
            outcomes[variant_key(figure_key(case))][failed] += 1

    return outcomes


def failures(cases):
    '''``{node: [(test case, reason)]}`` of the variants that failed on a
    node while passing on more than half of the nodes.'''
    outcomes = _outcomes(cases)
    failures = defaultdict(list)
    for case in cases:
        counts = outcomes[variant_key(figure_key(case))]
        if (case['result'] in FAILED_RESULTS and
                counts[False] > (counts[False] + counts[True]) / 2):
            failures[node_of(case)].append(
                (_label(case), case.get('fail_reason') or case['result']))

    return {node: sorted(failed) for node, failed in failures.items()}


def failed_widely(cases):
    '''``[(test case, {node: reason}, nodes that ran it)]`` of the
    variants that failed on half of the nodes that ran them or more: no
    node is a suspect for them (:func:`failures`), and the partition
    fails for them, each named.'''
    outcomes, found = _outcomes(cases), defaultdict(dict)
    for case in cases:
        variant = variant_key(figure_key(case))
        counts = outcomes[variant]
        if (case['result'] in FAILED_RESULTS and
                counts[False] <= (counts[False] + counts[True]) / 2):
            reason = str(case.get('fail_reason') or case['result'])
            found[_label(case), variant][node_of(case)] = \
                reason.splitlines()[0] if reason.strip() else case['result']

    return [(label, nodes, sum(outcomes[variant].values()))
            for (label, variant), nodes in sorted(found.items(),
                                                  key=_order)]


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


class Measured(NamedTuple):
    '''One figure of one check variant and inputs on the nodes that ran
    it: its values, each in the unit most nodes gave it, and why the
    others have none.'''
    unit: str
    #: ``{node: value in unit}``
    values: Dict[str, float]
    #: ``{node: why it is no measurement}``
    why: Dict[str, str]


def _implausible(values, why, unit):
    '''Move the values of ``values`` that are :data:`.model.
    IMPLAUSIBLE_GAIN` or more better than the median of the others
    (three or more: of two, which one is odd cannot be told) to ``why``.'''
    if len(values) < 3:
        return

    median = statistics.median(values.values())
    if median <= 0:
        return

    for node, value in sorted(values.items()):
        if value > 0:
            gain = gain_over(value, median, unit)
            if implausible(gain):
                why[node] = (f'implausible: {number(value)} {unit}, '
                             f'{math.exp(gain):.0e} times better than its '
                             f'siblings\' median {number(median)}')
                del values[node]


def _measured(cases):
    '''``{figure key: {variable: Measured}}`` of the passed test cases of
    ``cases`` (one per node and key), keys and variables in a fixed
    order.'''
    runs = defaultdict(dict)
    for case in cases:
        if case['result'] == 'pass':
            runs[figure_key(case)][node_of(case)] = case

    found = {}
    for key in sorted(runs, key=_order):
        nodes = runs[key]
        measured, missing = defaultdict(dict), defaultdict(dict)
        for node, case in nodes.items():
            figures, unmeasured = figures_and_unmeasured(case)
            for variable, figure in figures.items():
                measured[variable][node] = figure
            for variable, (why, _) in unmeasured.items():
                missing[variable][node] = why

        found[key] = {}
        for variable in sorted(set(measured) | set(missing)):
            unit = units.most_common(
                unit for _, unit in measured[variable].values()) \
                if measured[variable] else ''
            values, why = {}, {}
            for node in nodes:
                value, given = measured[variable].get(node, (None, unit))
                converted = (None if value is None else
                             units.convert(value, given, unit))
                if converted is not None:
                    values[node] = converted
                elif value is not None:
                    why[node] = units.other_unit(given, unit)
                else:
                    why[node] = missing[variable].get(
                        node, measurement.NOT_REPORTED)

            _implausible(values, why, unit)
            found[key][variable] = Measured(unit, values, why)

    return found


def _columns(fleet, cases, measured, min_nodes):
    '''``[(Figure, {node: value}, {node: case})]`` of the passed cases of
    ``cases`` (one fingerprint group's) that :data:`.model.MIN_NODES` or
    more nodes ran with the same inputs, values as ``measured``
    (:func:`_measured`) has them; nodes of other inputs are added to
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

        key = variant + (fleets_identity,)
        for variable, figure in measured[key].items():
            by_node = {node: value for node, value in figure.values.items()
                       if node in nodes}
            if len(by_node) >= min_nodes:
                columns.append((Figure(key, variable, figure.unit), by_node,
                                dict(nodes)))

    return columns


def _odd_fingerprints(name, groups, judged):
    '''Suspects of the nodes of a fingerprint too few nodes share, each
    with how it differs from the nearest judged group. Nodes that recorded
    no fingerprint at all (their jobs never ran: a node down, a job that
    did not start) are not: their failures name them.'''
    suspects = []
    for group in groups:
        if group in judged or not judged or \
                group.fingerprint == fingerprint.UNKNOWN:
            continue

        usual = fingerprint.nearest(group.fingerprint, judged)
        differs = fingerprint.differences(group.fingerprint,
                                          usual.fingerprint)
        suspects += [Suspect(name, node, differs=differs)
                     for node in group.nodes]

    return suspects


def _unmeasured(measured):
    '''``({node: [(figure label, why)]}, [(figure label, {node: why},
    nodes)]``: the figures the nodes' passed test cases have no
    measurement of (``measured``, :func:`_measured`: recorded as none, in
    a unit that is no multiple of the others', implausible, or not
    reported where the other nodes of the same check variant and inputs
    report it). Where more than half of the nodes that ran it measured
    the figure, the others are each named (the first); else the figure is
    a finding of the partition (the second).'''
    by_node, widespread = defaultdict(list), []
    for key, figures in measured.items():
        for variable, figure in figures.items():
            if not figure.why:
                continue

            label = Figure(key, variable, '').label
            ran = len(figure.values) + len(figure.why)
            if len(figure.values) > ran / 2:
                for node, why in figure.why.items():
                    by_node[node].append((label, why))
            else:
                widespread.append((label, dict(figure.why), ran))

    return by_node, widespread


def reported_twice(cases):
    '''``(cases, [(node, test case, records)])``: ``cases`` without
    those of a node that ran one check variant with the same inputs in
    two test cases or more (which is its figure cannot be told: none is
    compared, and the partition fails naming it), and those.'''
    seen = defaultdict(list)
    for case in cases:
        if case['result'] != 'skip':
            seen[figure_key(case), node_of(case)].append(case)

    twice = {key: found for key, found in seen.items() if len(found) > 1}
    dropped = {id(case) for found in twice.values() for case in found}
    named = sorted(((node, _label(found[0]), len(found))
                    for (_, node), found in twice.items()),
                   key=lambda item: (natural_order(item[0]), item[1]))
    return [case for case in cases if id(case) not in dropped], named


class Column(NamedTuple):
    '''The values of one figure in one fingerprint group, to be judged.'''
    figure: Figure
    values: Dict[str, float]
    #: ``{node: test case}``
    cases: dict
    fingerprint: tuple


def partition(name, cases, min_nodes):
    '''The :class:`PartitionFleet` of one partition's test cases with its
    groups, suspects by fingerprint and failures, and the
    :class:`Column` of its figures to judge.'''
    by_node = defaultdict(list)
    for case in cases:
        by_node[node_of(case)].append(case)

    fleet = PartitionFleet(name, sorted(by_node))
    fleet.misreported = sorted(
        {(node_of(case), disagreement(case)) for case in cases
         if disagreement(case)},
        key=lambda item: (natural_order(item[0]), item[1]))
    fleet.groups = fingerprint.groups(
        fingerprint.of_nodes(by_node))
    judged = [g for g in fleet.groups if len(g.nodes) >= min_nodes]
    cases, fleet.reported_twice = reported_twice(cases)
    measured = _measured(cases)
    kept = {id(case) for case in cases}
    columns = [Column(figure, values, figure_cases, group.fingerprint)
               for group in judged
               for figure, values, figure_cases in _columns(
                   fleet, [c for n in group.nodes for c in by_node[n]
                           if id(c) in kept], measured, min_nodes)]

    if len(fleet.nodes) < min_nodes:
        fleet.not_compared = (f'{len(fleet.nodes)} node(s): the fleet '
                              f'comparison needs at least {min_nodes}')
    elif not judged:
        fleet.not_compared = (
            f'no {min_nodes} or more nodes of the same hardware and '
            f'software: ' + '; '.join(
                f'{node_list(g.nodes)}: '
                f'{fingerprint.describe(g.fingerprint)}'
                for g in fleet.groups))
    elif not columns:
        fleet.not_compared = (f'no figure of {min_nodes} or more nodes of '
                              f'the same inputs')

    fleet.suspects = _odd_fingerprints(name, fleet.groups, judged)
    by_node, fleet.unmeasured = _unmeasured(measured)
    for suspect in fleet.suspects:
        suspect.unmeasured = by_node.pop(suspect.node, [])
    fleet.suspects += [Suspect(name, node, unmeasured=figures)
                       for node, figures in by_node.items()]
    fleet.failed_widely = failed_widely(cases)
    fleet.passed_on_retry = sorted(
        (node_of(c), _label(c)) for c in cases if passed_on_retry(c))
    return fleet, columns
