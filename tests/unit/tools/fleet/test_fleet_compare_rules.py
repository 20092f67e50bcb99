'''The rules of the fleet comparison (hpc_acceptance.tools.fleet.comparison)
at their edges, one rule a test: the band and its boundary, the split into
two clusters, the fleet against its reference and its earlier runs, who
failed alone, who measured nothing, the attempt before the final one.

Each test pins a decision that a mutant of the module changed while every
other test passed (ci/bench/mutation.sh; tests/README.md, "Mutation
testing"): the values are chosen to sit where the rule decides.
'''

import math

import pytest

from helpers import fleet_cases
from hpc_acceptance.tools.fleet import comparison, grouping
from hpc_acceptance.tools.fleet import fingerprint
from hpc_acceptance.tools.fleet.model import (NEARLY_ALL, Figure,
                                              FleetError, Spread, Suspect,
                                              node_of)
from hpc_acceptance.tools.fleet.wording import node_list, number
from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results import measurement

PARTITION = 'cluster:compute'

#: A figure of the Memory family, whose minimum band (15 %) a quiet
#: group's spread can exceed.
DAXPY = dict(check='MemoryDaxpyCheck', figure='flops_memory', unit='MFLOP/s')


def _nodes(*values):
    '''``{n1: first value, n2: second, ...}``.'''
    return {f'n{index}': value for index, value in enumerate(values, 1)}


def _cases(values, check='StreamCheck', figure='triad', unit='MB/s',
           **kwargs):
    '''One passed test case of ``check`` per node of ``values``
    ``{node: value}``.'''
    return [fleet_cases.case(node, check, {figure: (value, unit)}, **kwargs)
            for node, value in values.items()]


def _only(fleets):
    (fleet,) = fleets
    return fleet


def _spread(fleet, figure='triad'):
    (spread,) = [s for s in fleet.spreads if s.figure.variable == figure]
    return spread


def _named(fleet):
    return [suspect.node for suspect in fleet.suspects]


def _reference(cases, ref, lower, upper):
    '''The reference ReFrame records with each figure: ``(ref, lower
    bound, upper bound)``, the bounds as fractions of ``ref``.'''
    for case in cases:
        for perf in case['perfvalues'].values():
            perf[1:4] = [ref, lower, upper]

    return cases


# -- nodes that measured 0 ----------------------------------------------------

def test_a_majority_that_measured_zero_is_named_not_passed():
    '''Five of eight nodes read a bandwidth of 0: the median is 0, no
    yardstick. Those nodes lost everything there is to lose: each is named
    (and drained, within the cap), and the figure is not uniform.'''
    fleet = _only(comparison.compare(_cases(_nodes(
        0.0, 0.0, 0.0, 0.0, 0.0, 38000.0, 38500.0, 39000.0))))
    assert _named(fleet) == ['n1', 'n2', 'n3', 'n4', 'n5']
    assert _spread(fleet).split == (['n1', 'n2', 'n3', 'n4', 'n5'],
                                    ['n6', 'n7', 'n8'])


def test_a_partition_that_measured_zero_everywhere_names_every_node():
    fleet = _only(comparison.compare(_cases(_nodes(*[0.0] * 8))))
    assert _named(fleet) == [f'n{i}' for i in range(1, 9)]
    assert fleet.not_uniform == []


def test_nodes_that_measured_zero_are_one_cluster_however_many():
    '''Four nodes of twelve at 0: two of them side by side are no gap
    apart (not NaN), and the split falls between them and the rest.'''
    values = _nodes(*[0.0] * 4, *[38000.0 + 100 * i for i in range(8)])
    fleet = _only(comparison.compare(_cases(values)))
    assert _spread(fleet).split == (['n1', 'n2', 'n3', 'n4'],
                                    [f'n{i}' for i in range(5, 13)])
    assert _named(fleet) == ['n1', 'n2', 'n3', 'n4']


# -- the band -----------------------------------------------------------------

def test_a_node_exactly_at_the_edge_of_its_band_is_within_it():
    '''The band is what a figure may lose: losing exactly the band (a
    quarter of a bandwidth, the Stream family's floor) is within it.'''
    fleet = _only(comparison.compare(_cases(_nodes(*[1000.0] * 5, 750.0))))
    assert _spread(fleet).band == 0.25
    assert fleet.suspects == []
    fleet = _only(comparison.compare(_cases(_nodes(*[1000.0] * 5, 749.0))))
    assert _named(fleet) == ['n6']


@pytest.mark.parametrize('level', [1000.0, 0.8])
def test_the_band_is_the_robust_spread_of_the_nodes(level):
    '''Nine nodes at exp(k/10) of the median, k = -4..4: the median
    absolute deviation is 0.2, the band 1 - exp(-factor x 1.4826 x 0.2)
    to three digits; for a figure below 1 (a clock in GHz) as for any.'''
    values = _nodes(*[level * math.exp(k / 10) for k in range(-4, 5)])
    fleet = comparison.compare_partition(PARTITION, _cases(values), factor=2.0)
    assert _spread(fleet).band == round(1 - math.exp(-2.0 * 1.4826 * 0.2),
                                        3) == 0.447
    assert fleet.suspects == []


def test_a_figure_below_one_is_compared_as_any():
    fleet = _only(comparison.compare(_cases(
        _nodes(*[0.8] * 5, 0.4), figure='core_clock', unit='GHz')))
    assert _named(fleet) == ['n6']


def test_a_band_of_one_or_more_holds_only_what_lost_nearly_all():
    '''A band of 100 % (a figure scattered over orders of magnitude) is
    infinitely wide: a node at 11 % of the median is within it, one that
    lost nearly all (90 %) is not.'''
    spread = Spread(Figure(('StreamCheck',), 'triad', 'MB/s'), {}, 1.0, 1.0)
    assert not spread.is_out(0.11)
    assert spread.is_out(0.1)


def test_a_slow_minority_is_judged_by_the_band_of_the_rest():
    '''Two nodes of six lost a quarter: in the six's band (30 %, the
    median absolute deviation they make four times the rest's) they would
    pass; the other four's, 16 %, leaves both out.'''
    values = _nodes(0.74, 0.76, 0.95, 0.99, 1.01, 1.05)
    fleet = _only(comparison.compare(_cases(values, **DAXPY)))
    spread = _spread(fleet, 'flops_memory')
    assert (spread.median, spread.band) == (1.0, 0.16)
    assert comparison._median_band(list(values.values()), 0.15, 4.0) == (
        0.97, 0.299)
    assert _named(fleet) == ['n1', 'n2']


def test_a_slow_minority_needs_a_gap_wider_than_the_band_of_the_rest():
    '''The two slowest are out of the other four's band (29 %) but only
    23 % below the next node: a tail, no minority apart; the band stays
    the six's (51 %) and names nobody.'''
    fleet = _only(comparison.compare(_cases(
        _nodes(0.66, 0.70, 0.88, 1.0, 1.0, 1.12), **DAXPY)))
    assert _spread(fleet, 'flops_memory').band == 0.511
    assert _named(fleet) == []


def test_the_largest_slow_minority_apart_is_cut():
    '''Two of eight slow, one slower still: the band and median are
    the six others', not those of the seven but the slowest.'''
    fleet = _only(comparison.compare(_cases(_nodes(
        0.30, 0.62, 0.97, 0.98, 0.99, 1.0, 1.02, 1.03), **DAXPY)))
    spread = _spread(fleet, 'flops_memory')
    assert (spread.median, spread.band) == (0.995, 0.15)
    assert _named(fleet) == ['n1', 'n2']


@pytest.mark.parametrize('values, median, band', [
    # one slow node of six: cut, the median is the five others'
    ((0.60, 0.97, 0.99, 1.01, 1.03, 1.04), 1.01, 0.15),
    # three of seven, fewer than half: cut
    ((0.60, 0.61, 0.62, 0.99, 1.0, 1.01, 1.03), 1.005, 0.15),
    # two of five: the three others are too few to be judged by
    ((0.60, 0.61, 0.99, 1.0, 1.02), 0.99, 0.162),
    # four of eight, half: no minority, the eight's median
    ((0.60, 0.61, 0.62, 0.63, 1.0, 1.01, 1.02, 1.03), 0.815, 0.767),
])
def test_which_slow_minority_is_cut(values, median, band):
    '''A slow minority set apart is fewer than half of the group, and
    leaves :data:`MIN_NODES` or more to judge it by.'''
    spread = _spread(_only(comparison.compare(_cases(_nodes(*values),
                                                     **DAXPY))),
                     'flops_memory')
    assert (spread.median, spread.band) == (median, band)


def test_a_band_is_shown_with_the_suspects_figure_when_asked():
    fleet = _only(comparison.compare(_cases(_nodes(*[1000.0] * 5, 500.0))))
    (suspect,) = fleet.suspects
    assert suspect.reasons(bands=True) == [
        'StreamCheck %threads=single triad 500 MB/s (fleet median 1000, '
        '-50%, band 25%)']
    assert suspect.partition == PARTITION


# -- two clusters -------------------------------------------------------------

def test_three_slow_nodes_of_sixteen_are_suspects_not_a_cluster():
    '''A cluster needs a quarter of the nodes (four of sixteen).'''
    fleet = _only(comparison.compare(_cases(_nodes(
        *[38000.0 + 50 * i for i in range(13)], 19000.0, 19100.0,
        19200.0))))
    assert fleet.not_uniform == []
    assert _named(fleet) == ['n14', 'n15', 'n16']


def test_a_smooth_spread_is_no_split():
    '''Twelve nodes a quarter (in logarithm) apart each, less than the
    floor's width: no gap between two clusters anywhere.'''
    fleet = _only(comparison.compare(_cases(_nodes(
        *[1000.0 * math.exp((k - 5.5) / 4) for k in range(12)]))))
    assert fleet.not_uniform == []


def test_a_slow_majority_and_a_fast_cluster_are_not_uniform():
    '''Five nodes at 60 % and three at full speed: the fast three are a
    cluster of their own (three nodes at the last place a cluster can
    start), the figure is not uniform and no node is named for it.'''
    fleet = _only(comparison.compare(_cases(_nodes(
        *[23000.0 + 50 * i for i in range(5)], 38000.0, 38200.0,
        38400.0))))
    assert _spread(fleet).split == (['n1', 'n2', 'n3', 'n4', 'n5'],
                                    ['n6', 'n7', 'n8'])
    assert fleet.suspects == []


def test_two_fast_nodes_are_no_cluster():
    fleet = _only(comparison.compare(_cases(_nodes(
        *[23000.0 + 50 * i for i in range(6)], 38000.0, 38200.0))))
    assert fleet.not_uniform == [] and fleet.suspects == []


def test_a_cluster_lists_its_nodes_in_natural_order():
    values = {f'n{i}': 38000.0 + 10 * i for i in range(1, 13)}
    for node in ('n2', 'n10', 'n11', 'n12'):
        values[node] = 19000.0

    fleet = _only(comparison.compare(_cases(values)))
    slow, _ = _spread(fleet).split
    assert slow == ['n2', 'n10', 'n11', 'n12']
    assert '(n2, n10, n11, n12)' in fleet.findings()[0]


def test_clusters_exactly_the_floor_apart_are_one():
    '''Four nodes at 75 % of five: a gap of exactly the Stream floor's
    width is no split, and losing exactly the band is within it.'''
    fleet = _only(comparison.compare(_cases(_nodes(*[0.75] * 4, *[1.0] * 5))))
    assert fleet.not_uniform == [] and fleet.suspects == []


def test_losing_exactly_nearly_all_is_nearly_all():
    '''In a figure that is not uniform only a node that lost
    :data:`.NEARLY_ALL` or more is named: exactly that much is (the docs'
    "90 % or more"), a little less is not.'''
    edge = 1 - NEARLY_ALL
    for slowest, named in ((edge, ['n1']), (edge * 0.99, ['n1']),
                           (edge * 1.01, [])):
        fleet = _only(comparison.compare(_cases(_nodes(
            slowest, 0.5, 0.5, 0.5, *[1.0] * 5))))
        assert len(fleet.not_uniform) == 1
        assert _named(fleet) == named


def test_a_cluster_at_half_speed_is_a_finding_not_its_nodes():
    values = _nodes(*[38000.0 + 50 * i for i in range(4)],
                    *[19000.0 + 50 * i for i in range(4)])
    fleet = _only(comparison.compare(_cases(values)))
    assert fleet.suspects == [] and len(fleet.not_uniform) == 1


# -- the fleet against its reference ------------------------------------------

def test_the_fleet_median_is_held_to_its_reference_bound():
    cases = _reference(_cases(_nodes(38000.0, 38400.0, 38500.0, 38600.0,
                                     39000.0)), 40000.0, -0.1, 0.1)
    fleet = _only(comparison.compare(cases))
    against = _spread(fleet).against
    assert (against.source, against.value, against.runs,
            against.lost) == ('reference', 40000.0, 0, False)
    assert against.limit == pytest.approx(36000.0)
    assert fleet.findings() == []

    cases = _reference(cases, 45000.0, -0.1, 0.1)
    fleet = _only(comparison.compare(cases))
    assert _spread(fleet).against.lost
    assert fleet.findings() == [
        f'{PARTITION}: the fleet as a whole lost StreamCheck %threads=single '
        f'triad: median 38500 MB/s of 5 node(s), reference 45000, limit '
        f'40500 (-14%)']


def test_a_time_is_held_to_its_upper_bound():
    cases = _reference(_cases(_nodes(94.0, 95.0, 95.0, 96.0, 97.0),
                              'MemoryLatencyCheck', 'latency_memory', 'ns'),
                       100.0, -0.5, 0.25)
    against = _spread(_only(comparison.compare(cases)),
                      'latency_memory').against
    assert against.limit == 125.0 and not against.lost
    for case in cases:
        for perf in case['perfvalues'].values():
            perf[0] *= 1.4

    against = _spread(_only(comparison.compare(cases)),
                      'latency_memory').against
    assert against.lost


def test_a_median_exactly_at_the_limit_has_not_lost():
    cases = _reference(_cases(_nodes(*[36000.0] * 5)), 40000.0, -0.1, 0.1)
    against = _spread(_only(comparison.compare(cases))).against
    assert against.limit == 36000.0 and not against.lost
    cases = _reference(
        _cases(_nodes(*[125.0] * 5), 'MemoryLatencyCheck', 'latency_memory',
               'ns'), 100.0, -0.5, 0.25)
    against = _spread(_only(comparison.compare(cases)), 'latency_memory').against
    assert against.limit == 125.0 and not against.lost


def test_a_reference_with_no_bound_that_way_holds_nothing():
    cases = _reference(_cases(_nodes(*[38000.0] * 5)), 80000.0, None, 0.1)
    assert _spread(_only(comparison.compare(cases))).against is None


def test_a_reference_of_zero_is_no_reference():
    '''ReFrame records 0 where a system has no reference for the figure,
    whatever bounds a default entry gives.'''
    cases = _reference(_cases(_nodes(*[38000.0] * 5)), 0, -0.1, 0.1)
    assert _spread(_only(comparison.compare(cases))).against is None


def test_a_reference_whose_lower_bound_is_zero_still_holds():
    cases = _reference(_cases(_nodes(*[38000.0] * 5)), 40000.0, 0, 0.1)
    against = _spread(_only(comparison.compare(cases))).against
    assert against.limit == 40000.0 and against.lost


def test_nodes_of_different_references_are_held_to_none():
    cases = _reference(_cases(_nodes(*[38000.0] * 5)), 40000.0, -0.1, 0.1)
    _reference(cases[:2], 30000.0, -0.1, 0.1)
    assert _spread(_only(comparison.compare(cases))).against is None


def test_each_figure_is_held_to_its_own_reference():
    cases = [fleet_cases.case(node, 'StreamCheck',
                              {'triad': (38500.0, 'MB/s'),
                               'copy': (36000.0, 'MB/s')})
             for node in _nodes(*range(5))]
    for case in cases:
        case['perfvalues']['cluster:compute:triad'][1:4] = [40000, -0.1, 0]
        case['perfvalues']['cluster:compute:copy'][1:4] = [50000, -0.1, 0]

    fleet = _only(comparison.compare(cases))
    assert _spread(fleet, 'triad').against.value == 40000
    assert _spread(fleet, 'copy').against.value == 50000
    assert not _spread(fleet, 'triad').against.lost
    assert _spread(fleet, 'copy').against.lost


# -- the fleet against its earlier runs ---------------------------------------

def _history(cases, earlier, figure='triad'):
    '''``history`` (:func:`..fleet.history.earlier_medians`) of the figure
    of ``cases``: the medians ``earlier`` of the same hardware.'''
    spread = _spread(_only(comparison.compare(cases)), figure)
    return {(spread.figure.key, figure,
             fingerprint.hardware(spread.fingerprint)): [
                 (median, spread.figure.unit) for median in earlier]}


def test_the_fleet_median_is_held_to_its_earlier_runs():
    cases = fleet_cases.with_fingerprint(
        _cases(_nodes(38000.0, 38400.0, 38500.0, 38600.0, 39000.0)), ())
    earlier = [38000.0, 38500.0, 39000.0]
    history = _history(cases, earlier)
    fleet = _only(comparison.compare(cases, history=history))
    median, band = noise.band(earlier, 0.25)
    against = _spread(fleet).against
    assert (against.source, against.value, against.runs, against.lost) == (
        'earlier fleet runs', median, 3, False)
    assert against.limit == noise.limits(median, band)[0]

    for case in cases:
        for perf in case['perfvalues'].values():
            perf[0] /= 2

    fleet = comparison.compare_partition(PARTITION, cases, history=history)
    assert fleet.name == PARTITION
    assert _spread(fleet).against.lost
    assert fleet.findings() == [
        f'{PARTITION}: the fleet as a whole lost StreamCheck %threads=single '
        f'triad: median 19250 MB/s of 5 node(s), earlier fleet runs 38500 '
        f'(median of 3), limit 28875 (-50%)']


def test_three_earlier_runs_make_their_own_band():
    '''Three earlier medians far apart widen the band beyond the floor;
    two are judged with the floor.'''
    cases = _cases(_nodes(*[30000.0] * 5))
    earlier = [26000.0, 38000.0, 50000.0]
    fleet = _only(comparison.compare(cases, history=_history(cases, earlier)))
    median, band = noise.band(earlier, 0.25)
    assert band > 0.25
    assert _spread(fleet).against.limit == noise.limits(median, band)[0]
    assert not _spread(fleet).against.lost

    earlier = [38000.0, 50000.0]
    fleet = _only(comparison.compare(cases, history=_history(cases, earlier)))
    assert _spread(fleet).against.value == 44000.0
    assert _spread(fleet).against.limit == noise.limits(44000.0, 0.25)[0]
    assert _spread(fleet).against.lost


def test_a_time_is_held_to_the_high_limit_of_its_earlier_runs():
    cases = _cases(_nodes(*[95.0] * 5), 'MemoryLatencyCheck',
                   'latency_memory', 'ns')
    earlier = [95.0, 95.0, 95.0]
    history = _history(cases, earlier, 'latency_memory')
    against = _spread(_only(comparison.compare(cases, history=history)),
                      'latency_memory').against
    assert against.limit == noise.limits(95.0, 0.15)[1]
    assert not against.lost
    for case in cases:
        for perf in case['perfvalues'].values():
            perf[0] = 150.0

    assert _spread(_only(comparison.compare(cases, history=history)),
                   'latency_memory').against.lost


def test_a_fleet_median_of_zero_has_lost_whatever_the_unit():
    cases = _cases(_nodes(0.0, 0.0, 0.0, 95.0, 95.0),
                   'MemoryLatencyCheck', 'latency_memory', 'ns')
    history = _history(cases, [95.0, 95.0, 95.0], 'latency_memory')
    fleet = _only(comparison.compare(cases, history=history))
    assert _spread(fleet, 'latency_memory').against.lost


def test_a_fleet_median_below_one_is_a_measurement():
    cases = _cases(_nodes(*[0.8] * 5), figure='core_clock', unit='GHz')
    history = _history(cases, [0.8, 0.8, 0.8], 'core_clock')
    against = _spread(_only(comparison.compare(cases, history=history)),
                      'core_clock').against
    assert against.value == 0.8 and not against.lost


def test_earlier_runs_of_other_hardware_are_not_compared_with():
    cases = _cases(_nodes(*[38000.0] * 5))
    ((key, figure, _), earlier), = _history(cases, [60000.0] * 3).items()
    history = {(key, figure, ('another CPU', '', '', '')): earlier}
    assert _spread(_only(comparison.compare(cases, history=history))) \
        .against is None


# -- failures -----------------------------------------------------------------

def _results(*results):
    '''Test cases of one check variant on ``n1``... with these results
    (``skip`` has no node's figure).'''
    cases = _cases(_nodes(*[38000.0] * len(results)))
    for case, result in zip(cases, results):
        case['result'] = result
        if result != 'pass':
            case['perfvalues'] = {}

    return cases


def test_a_check_that_passed_on_more_than_half_names_who_failed_it():
    fleet = _only(comparison.compare(_results('pass', 'pass', 'pass', 'fail')))
    assert _named(fleet) == ['n4']
    assert fleet.suspects[0].partition == PARTITION
    assert fleet.suspects[0].failures == [
        ('StreamCheck %threads=single', 'fail')]


@pytest.mark.parametrize('results', [
    ('pass', 'pass', 'fail', 'fail'),
    ('pass', 'pass', 'fail', 'fail', 'fail'),
    ('pass', 'fail', 'fail', 'skip', 'skip', 'skip'),
], ids=['half', 'a minority passed', 'skips are no passes'])
def test_a_check_that_failed_on_half_or_more_is_nobodys(results):
    assert grouping.failures(_results(*results)) == {}


# -- no measurement -----------------------------------------------------------

def test_a_node_that_reported_nothing_of_a_figure_is_named_for_it():
    cases = [fleet_cases.case(node, 'StreamCheck',
                              {'triad': (38500.0, 'MB/s'),
                               'copy': (36000.0, 'MB/s')})
             for node in _nodes(*range(5))]
    del cases[2]['perfvalues']['cluster:compute:copy']
    cases[4]['perfvalues']['cluster:compute:triad'][0] = math.nan
    fleet = _only(comparison.compare(cases))
    assert {s.node: s.unmeasured for s in fleet.suspects} == {
        'n3': [('StreamCheck %threads=single copy',
                measurement.NOT_REPORTED)],
        'n5': [('StreamCheck %threads=single triad', 'NaN')]}
    assert all(s.partition == PARTITION for s in fleet.suspects)
    assert _spread(fleet, 'triad').unmeasured == {'n5': 'NaN'}


def test_a_figure_half_of_the_nodes_did_not_measure_is_the_partitions():
    cases = _cases(_nodes(38000.0, 38100.0, math.nan, math.inf))
    fleet = _only(comparison.compare(cases))
    assert fleet.suspects == []
    assert fleet.findings() == [
        f'{PARTITION}: no measurement of StreamCheck %threads=single triad '
        f'on 2 of 4 node(s) (n3, n4): +inf, NaN']


def test_a_node_of_another_fingerprint_with_no_measurement_is_one_suspect():
    cases = fleet_cases.with_fingerprint(
        _cases(_nodes(*[38000.0] * 5, math.nan)), ('n6',), memory_gib=256)
    fleet = _only(comparison.compare(cases))
    (suspect,) = fleet.suspects
    assert (suspect.node, suspect.partition) == ('n6', PARTITION)
    assert suspect.differs == ['memory 256 GiB (others: 512 GiB)']
    assert suspect.unmeasured == [('StreamCheck %threads=single triad',
                                   'NaN')]


# -- the attempt before the final one -----------------------------------------

def _retried(case, before):
    '''``case`` retried after a failed attempt that measured ``before``
    (``None``: recorded no figure at all).'''
    perfvalues = {}
    if before is not None:
        perfvalues = {name: [before, *perf[1:]]
                      for name, perf in case['perfvalues'].items()}

    case['earlier_attempts'] = [{'result': 'fail', 'fail_reason': 'slow',
                                 'fail_phase': 'performance',
                                 'perfvalues': perfvalues}]
    return case


def test_a_node_is_named_only_when_out_on_both_attempts():
    cases = _cases(_nodes(*[38000.0] * 5, 19000.0))
    _retried(cases[5], 38000.0)
    fleet = _only(comparison.compare(cases))
    assert fleet.suspects == [] and fleet.recovered == []
    _retried(cases[5], 19500.0)
    assert _named(_only(comparison.compare(cases))) == ['n6']


def test_recovered_is_out_first_and_within_on_the_retry():
    cases = _cases(_nodes(*[38000.0] * 6))
    _retried(cases[5], 19000.0)
    _retried(cases[4], 37000.0)
    _retried(cases[3], None)
    fleet = _only(comparison.compare(cases))
    assert fleet.recovered == [
        ('n6', 'StreamCheck %threads=single triad', 19000.0, 38000.0)]
    assert fleet.suspects == []


# -- which nodes, which partition ---------------------------------------------

def test_four_nodes_are_compared():
    fleet = _only(comparison.compare(_cases(_nodes(*[38000.0] * 3, 19000.0))))
    assert fleet.not_compared is None and _named(fleet) == ['n4']


def test_nodes_of_odd_fingerprints_are_each_named_with_what_differs():
    cases = fleet_cases.with_fingerprint(
        _cases(_nodes(*[38000.0] * 6)), ('n5',), memory_gib=256)
    fleet_cases.with_fingerprint(cases[5:], ('n6',), kernel='6.12.0')
    fleet = _only(comparison.compare(cases))
    assert {s.node: s.differs for s in fleet.suspects} == {
        'n5': ['memory 256 GiB (others: 512 GiB)'],
        'n6': ['kernel 6.12.0 (others: 6.1.0-26-amd64)']}
    assert {s.partition for s in fleet.suspects} == {PARTITION}
    assert fleet.judged_groups == fleet.groups[:1]


def test_a_tie_of_inputs_is_broken_by_the_inputs_not_the_report():
    cases = _cases(_nodes(*[38000.0] * 8))
    for case in cases[4:]:
        case['identity'] = 'dependency=path;isa_built=native'

    for order in (cases, cases[::-1]):
        fleet = _only(comparison.compare(order))
        assert sorted(_spread(fleet).values) == ['n5', 'n6', 'n7', 'n8']
        assert [odd[0] for odd in fleet.other_inputs] == ['n1', 'n2', 'n3',
                                                          'n4']


def test_every_other_input_is_listed():
    cases = _cases(_nodes(*[38000.0] * 6))
    cases[4]['identity'] = 'dependency=path;isa_built=native'
    cases[5]['identity'] = 'dependency=spack;isa_built=avx512'
    fleet = _only(comparison.compare(cases))
    assert [odd[0] for odd in fleet.other_inputs] == ['n5', 'n6']


def test_a_variant_too_few_nodes_ran_does_not_stop_the_others():
    cases = _cases(_nodes(*[38000.0] * 6))
    cases += _cases(_nodes(*[9000.0] * 3), 'MemoryDaxpyCheck', 'flops_l1',
                    'MFLOP/s')
    fleet = _only(comparison.compare(cases))
    assert [s.figure.variable for s in fleet.spreads] == ['triad']


def test_fixtures_and_cases_of_no_node_are_left_out_not_the_rest():
    cases = _cases(_nodes(*[38000.0] * 5, 19000.0))
    skipped = _cases({'n1': 38000.0}, 'MemoryDaxpyCheck', 'flops_l1',
                     'MFLOP/s')[0]
    skipped.update(result='skip', node=None, job_nodelist=[],
                   display_name='MemoryDaxpyCheck %threads=single')
    fixture = _cases({'n9': 1.0}, 'StreamCheck', 'triad')[0]
    fixture['fixture'] = True
    fleet = _only(comparison.compare([skipped, fixture] + cases))
    assert fleet.nodes == [f'n{i}' for i in range(1, 7)]
    assert _named(fleet) == ['n6']


def test_a_fixture_on_two_nodes_makes_no_fleet_run():
    cases = _cases({'n1': 1.0, 'n2': 1.0})
    for case in cases:
        case['fixture'] = True

    assert not comparison.is_fleet_run(cases)
    assert comparison.is_fleet_run(_cases({'n1': 1.0, 'n2': 1.0}))


def test_the_node_a_case_ran_on():
    '''The scheduler's node: the job's only node, else the pin, else what
    the job reported; a job of several nodes is no node's.'''
    assert node_of({'node': 'n3', 'display_name': 'X %.nid=n4',
                    'job_nodelist': ['n3', 'n4']}) is None
    assert node_of({'node': 'n1', 'display_name': 'X %.nid=n5',
                    'job_nodelist': ['n6']}) == 'n6'
    assert node_of({'node': 'n1', 'display_name': 'X %.nid=n5',
                    'job_nodelist': []}) == 'n5'
    assert node_of({'node': 'n1', 'display_name': 'X'}) == 'n1'
    assert node_of({'job_nodelist': ['n7']}) == 'n7'
    assert node_of({'job_nodelist': 'n8'}) == 'n8'
    assert node_of({'display_name': 'X',
                    'job_nodelist': ['n7', 'n8']}) is None


def test_a_bad_floor_of_a_single_test_case_names_its_partition():
    case = _cases({'n1': 38000.0})[0]
    case['fleet_floors'] = 'Disk=0.5'
    with pytest.raises(FleetError,
                       match=f'extras.fleet_floors of {PARTITION}'):
        comparison.compare([case])


def test_floors_a_test_case_did_not_record_are_no_other_floors():
    cases = _cases(_nodes(*[38000.0] * 5, 19000.0))
    for case in cases[1:]:
        case['fleet_floors'] = 'Stream=0.6'

    fleet = comparison.compare_partition(PARTITION, cases)
    assert fleet.suspects == [] and _spread(fleet).band == 0.6
    fleet = comparison.compare_partition(PARTITION, cases,
                                         floors={'Stream': 0.1})
    assert _named(fleet) == ['n6']


# -- the words a sysadmin reads ---------------------------------------------

def test_a_suspects_line_reads_worst_first_and_says_what_is_left_out():
    levels = {'copy': 36000.0, 'scale': 35000.0, 'triad': 38500.0}
    slow = {'n5': {'copy': 0.5, 'scale': 0.5},
            'n6': {'copy': 0.4, 'scale': 0.5, 'triad': 0.6}}
    cases = [fleet_cases.case(node, 'StreamCheck', {
        figure: (level * slow.get(node, {}).get(figure, 1.0), 'MB/s')
        for figure, level in levels.items()}) for node in _nodes(*range(6))]
    fleet = _only(comparison.compare(cases))
    worst, other = fleet.suspects
    worst.again = True
    assert worst.describe() == (
        'n6 [a suspect in the previous fleet run too]: StreamCheck '
        '%threads=single copy 14400 MB/s (fleet median 36000, -60%); '
        'StreamCheck %threads=single scale 17500 MB/s (fleet median 35000, '
        '-50%); +1 more figure(s)')
    assert other.describe() == (
        'n5: StreamCheck %threads=single copy 18000 MB/s (fleet median '
        '36000, -50%); StreamCheck %threads=single scale 17500 MB/s (fleet '
        'median 35000, -50%)')


def test_a_suspects_reasons_keep_every_kind():
    suspect = Suspect(PARTITION, 'n1', failures=[('X', 'fail')],
                      differs=['memory 256 GiB (others: 512 GiB)'],
                      unmeasured=[('X triad', 'NaN')])
    assert suspect.reasons() == [
        "differs from the partition's other nodes: memory 256 GiB "
        "(others: 512 GiB)", 'failed X: fail', 'X triad: no measurement '
        '(NaN)']


def test_failures_of_one_reason_are_one_line():
    '''A node whose job did not report failed every check of it for one
    reason: one line, the first check and how many more.'''
    suspect = Suspect(PARTITION, 'n1', failures=[
        ('X', 'did not report'), ('Y', 'did not report'), ('Z', 'fail')])
    assert suspect.reasons() == ['failed X and 1 more: did not report',
                                 'failed Z: fail']


def test_figures_and_node_lists_read_as_people_read_them():
    assert [number(v) for v in (None, 58510.4, 1000.0, 999.4, 95.3,
                                1.42)] == [
        'no measurement', '58510', '1000', '999', '95.3', '1.42']
    nodes = [f'n{i}' for i in range(1, 9)]
    assert node_list(nodes[:6]) == 'n1, n2, n3, n4, n5, n6'
    assert node_list(nodes) == 'n1, n2, n3, n4, n5, n6 +2 more'


def test_other_inputs_say_every_input_that_differs():
    cases = _cases(_nodes(*[38000.0] * 5))
    cases[4]['identity'] = 'dependency=path;isa_built=avx512'
    cases[3]['identity'] = 'dependency=?;isa_built=native'
    fleet = _only(comparison.compare(cases + _cases({'n6': 38000.0})))
    assert [odd[::2] for odd in fleet.other_inputs] == [
        ('n4', 'other inputs'),
        ('n5', 'dependency: reference spack, this run path; isa_built: '
               'reference native, this run avx512')]


def test_a_node_that_measured_nothing_before_and_is_out_now_is_named():
    '''n6's first attempt recorded no measurement of triad, its retry
    lost half: out twice. n5's first recorded none and its retry is
    within: recovered, from nothing.'''
    cases = _cases(_nodes(*[38000.0] * 4, 38100.0, 19000.0))
    for case in cases[4:]:
        _retried(case, 38000.0)
        case['earlier_attempts'][0]['perfvalues'] = {
            name: [None, *perf[1:]]
            for name, perf in case['perfvalues'].items()}
    fleet = _only(comparison.compare(cases))
    assert _named(fleet) == ['n6']
    assert fleet.recovered == [
        ('n5', 'StreamCheck %threads=single triad', None, 38100.0)]


def test_a_kernel_s_median_repetition_before_a_figure_stops_nothing():
    '''``best_to_median_triad`` sorts before ``triad`` and is no
    suspect's figure: the figures after it are still judged.'''
    cases = []
    for node, value in _nodes(*[38000.0] * 5, 19000.0).items():
        cases += fleet_cases.case(node, 'StreamCheck', {
            'best_to_median_triad': (0.5 if node == 'n1' else 0.99,
                                     'ratio'),
            'triad': (value, 'MB/s')}),
    fleet = _only(comparison.compare(cases))
    assert [s.figure.variable for s in fleet.spreads] == [
        'best_to_median_triad', 'triad']
    assert _named(fleet) == ['n6']
