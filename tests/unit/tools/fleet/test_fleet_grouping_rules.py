'''How a partition's test cases are grouped before they are compared
(hpc_acceptance.tools.fleet.grouping), each rule pinned where the
mutants ci/bench/mutation.sh left alive showed it unpinned: the smallest
group an implausible figure is told in, a node that ran a variant twice,
the reason a widely failed check is named with, figures a node has no
measurement of, and the order each list is in.'''

from helpers import fleet_cases
from hpc_acceptance.tools.fleet import grouping

STREAM = 'StreamCheck'


def _stream(node, triad, unit='MB/s', **kwargs):
    return fleet_cases.case(node, STREAM, {'triad': (triad, unit)},
                            **kwargs)


def test_three_nodes_are_enough_to_tell_an_implausible_figure():
    # 3.9e9 MB/s: within the physical bound of a node (results.plausible),
    # 100,000 times its siblings'
    measured = grouping._measured([_stream('n1', 38000.0),
                                   _stream('n2', 38500.0),
                                   _stream('n3', 3.9e9)])
    figure, = [f for figures in measured.values() for f in figures.values()]
    assert sorted(figure.values) == ['n1', 'n2']
    assert figure.why['n3'].startswith('implausible: ')
    # exactly 10,000 times is as implausible
    measured = grouping._measured([_stream('n1', 1.0), _stream('n2', 1.0),
                                   _stream('n3', 1e4)])
    figure, = [f for figures in measured.values() for f in figures.values()]
    assert sorted(figure.values) == ['n1', 'n2']
    # of two, which one is odd cannot be told
    measured = grouping._measured([_stream('n1', 38000.0),
                                   _stream('n2', 3.9e9)])
    figure, = [f for figures in measured.values() for f in figures.values()]
    assert sorted(figure.values) == ['n1', 'n2']


def test_a_time_a_thousand_times_shorter_is_still_a_measurement():
    # implausible is 10,000 times better, a time as a bandwidth: a time
    # 1,000 times shorter is not
    measured = grouping._measured(
        [fleet_cases.case(node, 'MemoryLatencyCheck',
                          {'latency_l1': (value, 'ns')})
         for node, value in (('n1', 1.2), ('n2', 1.25), ('n3', 0.0012))])
    figure, = [f for figures in measured.values() for f in figures.values()]
    assert sorted(figure.values) == ['n1', 'n2', 'n3']


def test_a_skipped_case_beside_a_run_one_is_no_second_record():
    ran, skipped = _stream('n1', 38000.0), _stream('n1', 0.0, result='skip')
    kept, named = grouping.reported_twice([ran, skipped])
    assert named == [] and kept == [ran, skipped]


def test_nodes_that_ran_a_variant_twice_are_named_in_node_order():
    cases = [_stream(node, 38000.0) for node in ('n10', 'n2') for _ in '12']
    cases += [fleet_cases.case('n2', 'MemoryDaxpyCheck',
                               {'flops_l1': (9000.0, 'MFLOP/s')})
              for _ in '123']
    kept, named = grouping.reported_twice(cases)
    assert kept == []
    # n2 before n10; on one node by the test case's name
    assert named == [
        ('n2', 'MemoryDaxpyCheck %threads=single', 3),
        ('n2', 'StreamCheck %threads=single', 2),
        ('n10', 'StreamCheck %threads=single', 2)]


def test_a_widely_failed_check_is_named_with_the_first_line_of_its_reason():
    cases = [_stream(node, 38000.0, result='fail') for node in ('n1', 'n2')]
    cases[0]['fail_reason'] = 'sanity: no triad\ntraceback ...'
    # a reason of blanks says nothing: the result is named
    cases[1]['fail_reason'] = '  \n'
    cases += [fleet_cases.case(node, 'MemoryDaxpyCheck',
                               {'flops_l1': (9000.0, 'MFLOP/s')},
                               result='fail') for node in ('n1', 'n2')]
    found = grouping.failed_widely(cases)
    # each failed check once, by name
    assert [(label, nodes, ran) for label, nodes, ran in found] == [
        ('MemoryDaxpyCheck %threads=single',
         {'n1': 'validation failed', 'n2': 'validation failed'}, 2),
        ('StreamCheck %threads=single',
         {'n1': 'sanity: no triad', 'n2': 'fail'}, 2)]


def test_every_figure_a_node_lacks_is_named_not_only_the_first():
    full = {'copy': (36000.0, 'MB/s'), 'triad': (38000.0, 'MB/s')}
    cases = [fleet_cases.case(node, STREAM, full) for node in ('n1', 'n2')]
    # n3 reports copy, not triad; n4 neither
    cases.append(fleet_cases.case('n3', STREAM,
                                  {'copy': (36000.0, 'MB/s')}))
    cases.append(fleet_cases.case('n4', STREAM, {}))
    cases.append(fleet_cases.case('n5', STREAM, full))
    by_node, widespread = grouping._unmeasured(grouping._measured(cases))
    assert sorted(by_node) == ['n3', 'n4']
    assert [label.split()[-1] for label, _ in by_node['n4']] == [
        'copy', 'triad']
    assert widespread == []


def test_a_figure_no_node_measured_has_no_unit():
    cases = [fleet_cases.case(node, STREAM, {'triad': (38000.0, 'MB/s')})
             for node in ('n1', 'n2', 'n3')]
    for case in cases:
        case['perfvalues']['cluster:compute:copy'] = [
            None, 0, None, None, 'MB/s', 'pass']
    measured = grouping._measured(cases)
    figures, = measured.values()
    assert figures['copy'].unit == '' and figures['copy'].values == {}
    assert figures['triad'].unit == 'MB/s'


def test_a_figure_every_node_measured_does_not_end_the_search():
    # 'add' first (every node measured it), then 'triad', which n3 lacks
    cases = [fleet_cases.case(node, STREAM, {'add': (38000.0, 'MB/s'),
                                             'triad': (38500.0, 'MB/s')})
             for node in ('n1', 'n2', 'n4')]
    cases.append(fleet_cases.case('n3', STREAM, {'add': (38000.0, 'MB/s')}))
    by_node, _ = grouping._unmeasured(grouping._measured(cases))
    assert [label.split()[-1] for label, _ in by_node['n3']] == ['triad']


def test_variants_of_a_number_and_a_word_are_judged_side_by_side():
    '''A parameter that is a number in one variant and a word in another
    (``%threads=4``, ``%threads=single``): both variants' figures are
    compared and their failures named, in one order whatever the
    report's.'''
    cases = [_stream(node, 38000.0, threads=threads)
             for threads in ('single', '4') for node in ('n1', 'n2', 'n3')]
    fleet, columns = grouping.partition('cluster:compute', cases, 3)
    assert sorted(column.figure.label for column in columns) == [
        'StreamCheck %threads=4 triad', 'StreamCheck %threads=single triad']
    failed = [_stream(node, 0.0, threads=threads, result='fail')
              for threads in ('4', 'single') for node in ('n1', 'n2')]
    labels = [label for label, _, _ in grouping.failed_widely(failed)]
    assert labels == [label for label, _, _ in
                      grouping.failed_widely(failed[::-1])]
    assert sorted(labels) == ['StreamCheck %threads=4',
                              'StreamCheck %threads=single']


def test_what_nodes_misreported_is_listed_in_node_order():
    '''n2 before n10, whatever they claimed to be.'''
    claims = {'n2': 'n9', 'n3': 'n8', 'n10': 'n1', 'n11': 'n7'}
    cases = [_stream(node, 38000.0) for node in claims]
    for case in cases:
        case['node'] = claims[case['node']]
    fleet, _ = grouping.partition('cluster:compute', cases[::-1], 3)
    assert fleet.misreported == [
        (node, f'its job reported {claimed}')
        for node, claimed in claims.items()]


def _hardware(node, **fields):
    return dict(_stream(node, 38000.0), **fleet_cases.hardware(**fields))


def test_a_node_that_recorded_no_fingerprint_is_no_odd_one():
    '''n5's probe recorded nothing (its job never ran the probe): its
    failures name it, its missing fingerprint does not.'''
    cases = [_hardware(node) for node in ('n1', 'n2', 'n3', 'n4')]
    cases.append(_stream('n5', 38000.0))
    cases.append(_hardware('n6', bios='Dell Inc. 2.0.1 01/01/2024'))
    fleet, _ = grouping.partition('cluster:compute', cases, 3)
    assert [s.node for s in fleet.suspects if s.differs] == ['n6']


def test_no_group_large_enough_makes_no_odd_fingerprint():
    cases = [_hardware('n1'), _hardware('n2', bios='2.0.1')]
    fleet, columns = grouping.partition('cluster:compute', cases, 3)
    assert fleet.suspects == [] and columns == []
    assert fleet.not_compared.startswith('2 node(s)')
