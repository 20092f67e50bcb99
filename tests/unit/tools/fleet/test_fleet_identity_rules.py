'''What a figure is, checked before the fleet comparison
(hpc_acceptance.tools.fleet.grouping) compares it: the node the scheduler
ran it on, one test case per node and variant, one unit, a value a node
could deliver; and what small groups and failed checks come to. One rule
a test, each at its edge.'''

import pytest

from helpers import fleet_cases
from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.fleet.model import (another_node, cluster_nodes,
                                              disagreement, node_of)

PARTITION = 'cluster:compute'


def _nodes(*values):
    return {f'n{index}': value for index, value in enumerate(values, 1)}


def _cases(values, check='StreamCheck', figure='triad', unit='MB/s'):
    return [fleet_cases.case(node, check, {figure: (value, unit)})
            for node, value in values.items()]


def _only(cases):
    (fleet,) = comparison.compare(cases)
    return fleet


def _named(fleet):
    return [suspect.node for suspect in fleet.suspects]


def _unmeasured(fleet):
    return {s.node: [why for _, why in s.unmeasured] for s in fleet.suspects
            if s.unmeasured}


# -- the node -----------------------------------------------------------------

def test_a_figure_is_the_node_the_scheduler_ran_it_on():
    '''n5's job printed "n1" and ran 40 % slow: n5 is named, n1 is not,
    and a line says what the test case claimed.'''
    cases = _cases(_nodes(*[38500.0] * 4, 23100.0, 38500.0))
    cases[4]['node'] = 'n1'
    fleet = _only(cases)
    assert _named(fleet) == ['n5']
    assert fleet.misreported == [('n5', 'its job reported n1')]
    assert fleet.findings()[0] == (
        f"{PARTITION}: n5: its job reported n1, where the scheduler ran it "
        f"on n5: judged as n5's")
    # whatever the order of the test cases
    assert _named(_only(cases[::-1])) == ['n5']


def test_a_host_name_with_its_domain_is_the_same_node():
    case = fleet_cases.case('n1', 'StreamCheck', {})
    case['node'] = 'n1.cluster.example.org'
    assert disagreement(case) is None
    case['job_nodelist'] = []
    case['display_name'] = case['display_name'].replace('%.nid=n1',
                                                        '%.nid=n2')
    assert disagreement(case) == 'its job reported n1.cluster.example.org'


def test_a_node_job_s_case_is_its_node_s_by_its_pin_and_its_job():
    case = fleet_cases.case('n1', 'StreamCheck', {})
    case['job_nodelist'] = ['n1.cluster.example.org']
    # what the job printed of itself is the fleet rule's finding, not this
    case['node'] = 'n7'
    assert another_node(case, 'n1') is None
    assert another_node(case, 'n1.cluster.example.org') is None
    assert another_node(case, 'n2') == 'ReFrame pinned it to n1'
    case['display_name'] = case['display_name'].replace(' %.nid=n1', '')
    assert another_node(case, 'n2') == \
        'its job ran on n1.cluster.example.org'
    case['job_nodelist'] = ['n2', 'n1']
    assert another_node(case, 'n2') == 'its job ran on n1'
    # a case that never ran says nothing of a node
    case['job_nodelist'] = []
    assert another_node(case, 'n2') is None


def test_two_test_cases_of_one_variant_on_a_node_are_neither_compared():
    '''n5's case ran on n1 (its job's node list), beside n1's own: which
    is n1's figure cannot be told. Neither moves the median; the partition
    fails naming n1.'''
    cases = _cases(_nodes(*[38500.0] * 5, 38600.0))
    cases[4].update(job_nodelist=['n1'], node='n1')
    cases[4]['perfvalues']['cluster:compute:triad'][0] = 100.0
    fleet = _only(cases)
    assert fleet.reported_twice == [
        ('n1', 'StreamCheck %threads=single', 2)]
    assert sorted(fleet.spreads[0].values) == ['n2', 'n3', 'n4', 'n6']
    assert _named(fleet) == []
    assert ("n1: 2 test cases of StreamCheck %threads=single: which is the "
            "node's cannot be told, none compared") in fleet.findings()[-1]


# -- units --------------------------------------------------------------------

def _mixed(values, units):
    cases = _cases(values)
    for case, unit in zip(cases, units):
        perf = case['perfvalues']['cluster:compute:triad']
        if unit == 'GB/s':
            perf[0] /= 1000
        perf[4] = unit
    return cases


def test_a_figure_in_a_multiple_of_its_siblings_unit_is_converted():
    '''Nine nodes in GB/s, one in MB/s at -40 %: the one is named at
    -40 %; the other way round, a healthy node in GB/s is not named.'''
    values = _nodes(*[38500.0] * 9, 23100.0)
    fleet = _only(_mixed(values, ['GB/s'] * 9 + ['MB/s']))
    assert _named(fleet) == ['n10']
    assert fleet.spreads[0].figure.unit == 'GB/s'
    assert fleet.suspects[0].outliers[0].value == pytest.approx(23.1)
    fleet = _only(_mixed(_nodes(*[38500.0] * 10), ['MB/s'] * 9 + ['GB/s']))
    assert _named(fleet) == []
    assert fleet.spreads[0].values['n10'] == pytest.approx(38500.0)


def test_a_figure_in_a_unit_no_multiple_of_its_siblings_is_no_measurement():
    fleet = _only(_mixed(_nodes(*[38500.0] * 6), ['MB/s'] * 5 + ['%']))
    assert _unmeasured(fleet) == {'n6': [
        "in '%', not a multiple of the 'MB/s' it is compared with"]}
    assert sorted(fleet.spreads[0].values) == ['n1', 'n2', 'n3', 'n4', 'n5']


def test_a_unit_of_half_of_the_nodes_is_the_partitions_finding():
    fleet = _only(_mixed(_nodes(*[38500.0] * 8), ['MB/s'] * 4 + ['%'] * 4))
    assert _named(fleet) == []
    assert [line for line in fleet.findings() if 'no measurement' in line]


# -- implausible against the siblings -----------------------------------------

def test_ten_thousand_times_the_siblings_median_is_no_measurement():
    '''A unit with no physical bound (% of peak): 10^4 times the median
    and more is no measurement, a little less is a measurement.'''
    fleet = _only(_cases(_nodes(1.0, 1.0, 1.0, 1.0, 1.0, 1.0001e4),
                         figure='eff', unit='%'))
    assert list(_unmeasured(fleet)) == ['n6']
    assert _unmeasured(fleet)['n6'][0].startswith(
        "implausible: 10001 %, 1e+04 times better than its siblings' "
        "median 1")
    fleet = _only(_cases(_nodes(1.0, 1.0, 1.0, 1.0, 1.0, 0.9999e4),
                         figure='eff', unit='%'))
    assert _unmeasured(fleet) == {}


def test_a_time_ten_thousand_times_shorter_is_no_measurement():
    fleet = _only(_cases(_nodes(95.0, 95.0, 95.0, 95.0, 0.009),
                         'MemoryLatencyCheck', 'latency_memory', 'ns'))
    assert list(_unmeasured(fleet)) == ['n5']


def test_of_two_nodes_which_is_implausible_cannot_be_told():
    fleet = _only(_cases(_nodes(1.0, 1e6), figure='eff', unit='%'))
    assert _unmeasured(fleet) == {}


# -- small groups -------------------------------------------------------------

@pytest.mark.parametrize('size, need', [(4, 2), (5, 2), (6, 3), (12, 3),
                                        (13, 4), (40, 10)])
def test_clusters_of_two_in_groups_of_four_or_five(size, need):
    assert cluster_nodes(size) == need


@pytest.mark.parametrize('slow, of, loss', [(2, 4, 0.3), (2, 4, 0.5),
                                            (3, 5, 0.3), (2, 5, 0.3)])
def test_a_small_group_split_in_two_fails_naming_both_sides(slow, of, loss):
    values = _nodes(*[38500.0 * (1 - loss)] * slow, *[38500.0] * (of - slow))
    fleet = _only(_cases(values))
    (spread,) = fleet.not_uniform
    assert spread.split == ([f'n{i}' for i in range(1, slow + 1)],
                            [f'n{i}' for i in range(slow + 1, of + 1)])


def test_one_slow_node_of_four_is_a_suspect_not_a_split():
    fleet = _only(_cases(_nodes(23100.0, 38500.0, 38600.0, 38400.0)))
    assert fleet.not_uniform == [] and _named(fleet) == ['n1']


def test_a_small_group_within_its_floor_is_uniform():
    '''Two of four 20 % slow, within the Stream floor (25 %): noise.'''
    fleet = _only(_cases(_nodes(30800.0, 30800.0, 38500.0, 38500.0)))
    assert fleet.not_uniform == []


# -- failed checks ------------------------------------------------------------

def test_a_check_that_failed_on_every_node_is_a_finding():
    cases = [fleet_cases.case(f'n{i}', 'StreamCheck', {}, result='fail')
             for i in range(1, 7)]
    fleet = _only(cases)
    assert fleet.suspects == []
    assert fleet.failed_widely == [
        ('StreamCheck %threads=single', {f'n{i}': 'validation failed'
                                         for i in range(1, 7)}, 6)]
    assert fleet.findings() == [
        f'{PARTITION}: StreamCheck %threads=single failed on 6 of 6 '
        f'node(s) (n1, n2, n3, n4, n5, n6): validation failed']


def test_a_check_that_failed_on_half_of_the_nodes_is_a_finding_not_theirs():
    cases = _cases(_nodes(*[38500.0] * 6))
    for case in cases[:3]:
        case.update(result='fail', fail_reason='sanity\nmore')
    fleet = _only(cases)
    assert _named(fleet) == []
    assert fleet.failed_widely[0][1] == {'n1': 'sanity', 'n2': 'sanity',
                                         'n3': 'sanity'}
    cases[0].update(result='pass')
    fleet = _only(cases)
    assert _named(fleet) == ['n2', 'n3'] and fleet.failed_widely == []


def test_a_case_without_a_display_name_is_the_node_its_job_ran_on():
    case = fleet_cases.case('n1', 'StreamCheck', {})
    del case['display_name']
    assert node_of(case) == 'n1' and disagreement(case) is None
    case['job_nodelist'] = []
    assert node_of(case) == 'n1'


def test_a_pin_to_another_node_than_the_job_s_is_said_so():
    case = fleet_cases.case('n1', 'StreamCheck', {})
    case['display_name'] = case['display_name'].replace('%.nid=n1',
                                                        '%.nid=n5')
    assert node_of(case) == 'n1'
    assert disagreement(case) == 'ReFrame pinned it to n5'
