'''Contended nodes (hpc_acceptance.tools.fleet.contention): a node whose
repetitions' best/median ratio departs from its fleet's, while its best
repetition is in line, is named, in the fleet comparison's lines and the
summary.'''

from helpers import fleet_cases
from hpc_acceptance.tools.fleet import comparison, contention
from hpc_acceptance.tools.fleet.suspect_report import text_lines
from hpc_acceptance.tools.outcome import summary_text


def _cases(ratios):
    '''A memory check per node: its best bandwidth alike everywhere, its
    best/median ratio as given, its median repetition's bandwidth by it.'''
    return [fleet_cases.case(node, 'MemoryReadBandwidthCheck', {
        'bandwidth_l1': (best, 'MB/s'),
        'bandwidth_l1_median': (best * ratio, 'MB/s'),
        'best_to_median_l1': (ratio, 'ratio')})
        for number, (node, ratio) in enumerate(ratios.items())
        for best in [50000.0 * (1 + 0.01 * number)]]


def test_a_node_whose_repetitions_run_at_a_fraction_of_its_best_is_named():
    cases = _cases({'n1': 0.97, 'n2': 0.98, 'n3': 0.42, 'n4': 0.96,
                    'n5': 0.97})
    fleet, = comparison.compare(cases)
    found = contention.of_partition(fleet)
    assert [c.node for c in found] == ['n3']
    assert found[0].ratio == 0.42 and found[0].fleet == 0.97
    # contended, not a suspect: its median repetition (-57 %) and ratio
    # move with whatever else runs on it, and split nothing
    assert fleet.suspects == []
    assert all(spread.split is None for spread in fleet.spreads)
    text = found[0].describe()
    assert text.startswith('n3: contended: its repetitions ran at 0.42 of '
                           'its best')
    assert 'best_to_median_l1' in text
    # in the fleet comparison's lines and the summary
    assert any('n3: contended' in line for line in text_lines([fleet]))
    lines = summary_text.render(cases, [], width=200, fleets=[fleet])
    assert any('n3: contended' in line for line in lines)


def test_a_steady_fleet_and_a_wobbly_one_name_nobody():
    steady = _cases({f'n{i}': 0.95 + 0.01 * (i % 3) for i in range(1, 9)})
    fleet, = comparison.compare(steady)
    assert contention.of_partition(fleet) == []
    # a VM fleet whose every node wobbles: the spread sets the bar
    wobbly = _cases({'n1': 0.5, 'n2': 0.9, 'n3': 0.7, 'n4': 0.6,
                     'n5': 0.85, 'n6': 0.45})
    fleet, = comparison.compare(wobbly)
    assert contention.of_partition(fleet) == []


def _two_figure_cases(ratios):
    '''As :func:`_cases` with two figures a node: ``ratios`` maps a node
    to its (l1, memory) ratios.'''
    return [fleet_cases.case(node, 'MemoryReadBandwidthCheck', {
        'bandwidth_l1': (50000.0, 'MB/s'),
        'best_to_median_l1': (l1, 'ratio'),
        'bandwidth_memory': (9000.0, 'MB/s'),
        'best_to_median_memory': (memory, 'ratio')})
        for node, (l1, memory) in ratios.items()]


def test_one_figure_s_dip_is_no_contention_where_a_node_has_several():
    # the night of ci/bench/throttled_node.py --bursts 400/200 (bench
    # README): the throttled n3 departs on both, the unthrottled n5 on one
    cases = _two_figure_cases({
        'n1': (0.97, 0.97), 'n2': (0.98, 0.93), 'n3': (0.75, 0.50),
        'n4': (0.98, 0.97), 'n5': (0.68, 0.96)})
    fleet, = comparison.compare(cases)
    found = contention.of_partition(fleet)
    assert [c.node for c in found] == ['n3']
    # said on the figure where it departs most, with how many departed
    assert found[0].ratio == 0.50
    assert '2 of its 2 repetition figure(s) departed' in found[0].describe()
