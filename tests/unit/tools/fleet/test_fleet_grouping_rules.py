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
    # of two, which one is odd cannot be told
    measured = grouping._measured([_stream('n1', 38000.0),
                                   _stream('n2', 3.9e9)])
    figure, = [f for figures in measured.values() for f in figures.values()]
    assert sorted(figure.values) == ['n1', 'n2']


def test_a_time_a_hundred_times_shorter_is_still_a_measurement():
    # implausible is 10,000 times better; a time 100 times shorter is not
    measured = grouping._measured(
        [fleet_cases.case(node, 'MemoryLatencyCheck',
                          {'latency_l1': (value, 'ns')})
         for node, value in (('n1', 1.2), ('n2', 1.25), ('n3', 0.012))])
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
