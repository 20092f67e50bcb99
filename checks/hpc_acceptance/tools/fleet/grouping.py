'''A partition's test cases as the fleet comparison (:mod:`.comparison`)
reads them: by partition, its nodes grouped by fingerprint
(:mod:`.fingerprint`), the columns of figures each group's nodes measured
with the same inputs, the check variants a node alone failed, and the
figures nodes have no measurement of (:mod:`..results.measurement`).'''

from collections import Counter, OrderedDict, defaultdict
from typing import Dict, NamedTuple

from hpc_acceptance.core import identity
from hpc_acceptance.tools.fleet import fingerprint
from hpc_acceptance.tools.fleet.model import (Figure, PartitionFleet,
                                              Suspect, node_of, variant_key)
from hpc_acceptance.tools.fleet.wording import node_list
from hpc_acceptance.tools.results import measurement
from hpc_acceptance.tools.results.runs import (FAILED_RESULTS, figure_key,
                                               figures_of, passed_on_retry,
                                               short_name, unmeasured)


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


def failures(cases):
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
    ``cases`` (one fingerprint group's) that :data:`.model.MIN_NODES` or
    more nodes ran with the same inputs; nodes of other inputs are added to
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
    fleet.groups = fingerprint.groups(
        fingerprint.of_nodes(by_node))
    judged = [g for g in fleet.groups if len(g.nodes) >= min_nodes]
    columns = [Column(figure, values, figure_cases, group.fingerprint)
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
                f'{fingerprint.describe(g.fingerprint)}'
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
