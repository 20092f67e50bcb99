'''Nodes against their fleet (hpc_acceptance.tools.fleet.comparison), on synthetic
fleet runs with realistic spreads (tests/helpers/fleet_cases.py).'''

import pytest

from helpers import fleet_cases
from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.fleet.model import FleetError, node_of


def _only(fleets):
    (partition,) = fleets
    return partition


def test_a_quiet_fleet_has_no_suspect():
    partition = _only(comparison.compare(fleet_cases.fleet(8)))
    assert partition.nodes == [f'n{i}' for i in range(1, 9)]
    assert partition.suspects == []
    assert partition.not_compared is None
    # every figure of every check is a column
    assert len(partition.spreads) == sum(map(len,
                                             fleet_cases.FIGURES.values()))


def test_the_slow_node_is_named_with_the_figures_that_moved():
    cases = fleet_cases.fleet(8, slow={'n3': (0.6, ('StreamCheck',))})
    (suspect,) = _only(comparison.compare(cases)).suspects
    assert suspect.node == 'n3'
    moved = {o.figure.variable for o in suspect.outliers}
    assert moved == {'copy', 'scale', 'add', 'triad', 'core_clock'}
    assert all(o.figure.key[0] == 'StreamCheck' for o in suspect.outliers)
    worst = suspect.outliers[0]
    assert worst.change == pytest.approx(-0.6, abs=0.1)
    assert worst.loss == max(o.loss for o in suspect.outliers)


def test_a_time_is_worse_when_it_grows():
    cases = fleet_cases.fleet(6, slow={'n5': (0.5, ('MemoryLatencyCheck',))})
    (suspect,) = _only(comparison.compare(cases)).suspects
    latency = [o for o in suspect.outliers if o.figure.unit == 'ns']
    assert latency and all(o.value > o.median for o in latency)
    assert all(o.change == pytest.approx(1.0, abs=0.2) for o in latency)


def test_a_faster_node_is_not_a_suspect():
    cases = fleet_cases.fleet(6)
    for case in cases:
        if case['node'] == 'n2':
            for perf in case['perfvalues'].values():
                perf[0] *= (0.5 if perf[4] == 'ns' else 2.0)

    assert _only(comparison.compare(cases)).suspects == []


def test_fewer_than_four_nodes_are_not_compared():
    cases = fleet_cases.fleet(3, slow={'n3': (0.6, ('StreamCheck',))})
    partition = _only(comparison.compare(cases))
    assert partition.suspects == [] and partition.spreads == []
    assert partition.not_compared == ('3 node(s): the fleet comparison '
                                      'needs at least 4')


def test_the_band_is_the_fleets_own_spread_when_it_is_wider():
    '''Identical processors differ with Turbo: a fleet scattered by 10 %
    sets a band beyond the family minimum, and its nodes stay inside.'''
    partition = _only(comparison.compare(fleet_cases.fleet(64, spread=0.10)))
    bands = [s.band for s in partition.spreads]
    assert min(bands) > 0.25
    assert partition.suspects == []


def test_the_family_minimum_holds_on_a_tight_fleet():
    partition = _only(comparison.compare(fleet_cases.fleet(64, spread=0.001)))
    stream = [s for s in partition.spreads
              if s.figure.key[0] == 'StreamCheck']
    assert {s.band for s in stream} == {0.25}


def test_the_floors_the_partition_recorded_are_used():
    cases = fleet_cases.fleet(6, slow={'n3': (0.4, ('StreamCheck',))})
    assert _only(comparison.compare(cases)).suspects
    for case in cases:
        case['fleet_floors'] = 'Stream=0.5'

    assert _only(comparison.compare(cases)).suspects == []
    assert _only(comparison.compare(cases, floors={'Stream': 0.1})).suspects


def test_different_recorded_floors_are_an_error():
    cases = fleet_cases.fleet(4)
    cases[0]['fleet_floors'] = 'Stream=0.5'
    cases[1]['fleet_floors'] = 'Stream=0.4'
    with pytest.raises(FleetError, match='different fleet floors'):
        comparison.compare(cases)


def test_a_bad_recorded_floor_names_the_partition():
    cases = fleet_cases.fleet(4)
    for case in cases:
        case['fleet_floors'] = 'Disk=0.5'

    with pytest.raises(FleetError,
                       match='extras.fleet_floors of cluster:compute'):
        comparison.compare(cases)


def test_a_node_with_other_inputs_is_its_own_group():
    cases = fleet_cases.fleet(6)
    for case in cases:
        if case['node'] == 'n4' and case['display_name'].startswith(
                'StreamCheck'):
            case['identity'] = 'dependency=path;isa_built=native'
            for perf in case['perfvalues'].values():
                perf[0] *= 0.3

    partition = _only(comparison.compare(cases))
    assert partition.suspects == []
    (odd,) = partition.other_inputs
    assert odd[0] == 'n4' and odd[1].startswith('StreamCheck')
    assert odd[2] == 'dependency: reference spack, this run path'
    stream = [s for s in partition.spreads
              if s.figure.key[0] == 'StreamCheck']
    assert all('n4' not in s.values for s in stream)


def test_a_node_alone_in_failing_a_check_is_a_suspect():
    cases = fleet_cases.fleet(5)
    broken = next(c for c in cases if c['node'] == 'n2')
    broken.update(result='fail', fail_reason='Solution did not validate')
    (suspect,) = _only(comparison.compare(cases)).suspects
    assert suspect.node == 'n2'
    assert suspect.failures == [(
        broken['display_name'].split(' %.part')[0].replace(
            ' %isa=native %turbo=as-configured %smt=as-configured', ''),
        'Solution did not validate')]
    assert suspect.describe().startswith('n2: failed StreamCheck')


def test_a_check_failing_on_most_nodes_is_not_a_node_fault():
    cases = fleet_cases.fleet(5)
    for case in cases:
        if case['display_name'].startswith('MemoryDaxpyCheck') and \
                case['node'] != 'n1':
            case['result'] = 'fail'

    assert _only(comparison.compare(cases)).suspects == []


def test_partitions_are_compared_apart():
    cases = (fleet_cases.fleet(4, partition='cpu') +
             fleet_cases.fleet(4, partition='gpu',
                               slow={'n1': (0.6, ('StreamCheck',))}))
    fleets = {f.name: f for f in comparison.compare(cases)}
    assert not fleets['cluster:cpu'].suspects
    assert [s.node for s in fleets['cluster:gpu'].suspects] == ['n1']


def test_a_thousand_nodes_name_exactly_the_slow_ones():
    cases = fleet_cases.big_fleet(1000, 100, slow={
        'n88': (0.3, ('Synthetic03Check',)),
        'n417': (0.15, ('Synthetic11Check', 'Synthetic17Check'))})
    partition = _only(comparison.compare(cases))
    assert len(partition.nodes) == 1000 and len(partition.spreads) == 100
    assert [s.node for s in partition.suspects] == ['n88', 'n417']


def test_the_node_comes_from_the_job_then_the_distribution():
    case = fleet_cases.case('n7', 'StreamCheck', {})
    assert node_of(case) == 'n7'
    del case['node']
    assert node_of(case) == 'n7'
    case['display_name'] = 'StreamCheck %threads=single'
    assert node_of(case) == 'n7'
    case['job_nodelist'] = ['n7', 'n8']
    assert node_of(case) is None


def test_a_fleet_run_ran_a_variant_on_several_nodes():
    assert comparison.is_fleet_run(fleet_cases.fleet(2))
    assert not comparison.is_fleet_run(fleet_cases.fleet(1))


def test_a_suspect_again_is_marked():
    slow = {'n3': (0.6, ('StreamCheck',))}
    earlier = comparison.compare(fleet_cases.fleet(6, slow=slow, seed=2))
    tonight = comparison.compare(fleet_cases.fleet(
        6, slow=dict(slow, n4=(0.6, ('StreamCheck',))), seed=3,
        session='fleet-2'))
    comparison.mark_repeats(tonight, earlier)
    assert {s.node: s.again for s in tonight[0].suspects} == \
        {'n3': True, 'n4': False}
    assert '[a suspect in the previous fleet run too]' in \
        tonight[0].suspects[0].describe() + tonight[0].suspects[1].describe()
