'''A test case's figures as series of the store
(hpc_acceptance.core.export.series), from test cases shaped exactly as
ReFrame 4.10's JSON report stores them.'''

import copy

import pytest

from hpc_acceptance.core.export import series

#: A test case of a nightly's report on the embedded default, as ReFrame
#: wrote it (two of its nine figures).
CASE = {
    'display_name': 'MemoryDaxpyCheck %isa=native %turbo=as-configured '
                    '%smt=as-configured %threads=single',
    'system': 'local', 'partition': 'default', 'environ': 'gnu',
    'node': 'vm', 'fixture': False, 'result': 'pass',
    'identity': 'dependency=in-tree;executable_opts=--sizes=l1:24K,l2:220K,'
                'l3:5792K,memory:128M --repeats=1 --span-ms=1;'
                'isa_built=avx512;num_cpus_per_task=1',
    'job_completion_time_unix': 1795624054.11403,
    'job_nodelist': 'vm',
    'perfvalues': {
        'local:default:flops_l1': [20746.5, 0, None, None, 'MFLOP/s',
                                   'pass'],
        'local:default:time_per_iteration_l1': [0.0964016, 0, None, None,
                                                'ns', 'pass'],
    },
}
NIGHTLY = {'suite_mode': 'nightly', 'uuid': 'ba8e5cd5', 'hostname': 'vm'}
WHEN = 1795624054114


def named(samples, name):
    return [s for s in samples if s['metric']['__name__'] == name]


def test_each_figure_is_a_series_labelled_as_dashboards_group():
    figures = named(series.figure_lines(CASE, NIGHTLY), series.FIGURE)
    assert figures[0] == {
        'metric': {'__name__': 'hpc_acceptance_figure', 'system': 'local',
                   'partition': 'default', 'environ': 'gnu', 'node': 'vm',
                   'check': 'MemoryDaxpyCheck', 'identity': CASE['identity'],
                   'isa': 'native', 'turbo': 'as-configured',
                   'smt': 'as-configured', 'threads': 'single',
                   'mode': 'nightly', 'figure': 'flops_l1',
                   'unit': 'MFLOP/s'},
        'values': [20746.5], 'timestamps': [WHEN]}
    assert [s['metric']['figure'] for s in figures] == [
        'flops_l1', 'time_per_iteration_l1']


def test_a_figure_without_reference_has_no_reference_series():
    samples = series.figure_lines(CASE, NIGHTLY)
    assert {s['metric']['__name__'] for s in samples} == {
        series.FIGURE, series.FIGURE_PASSED}


def test_reference_and_bounds_are_absolute_as_reframe_applies_them():
    case = copy.deepcopy(CASE)
    case['perfvalues']['local:default:flops_l1'] = [
        20746.5, 30000.0, -0.2, None, 'MFLOP/s', 'fail']
    case['perfvalues']['local:default:time_per_iteration_l1'] = [
        0.0964016, 0.08, None, 0.5, 'ns', 'pass']
    samples = series.figure_lines(case, NIGHTLY)
    values = {(s['metric']['__name__'], s['metric']['figure']):
              s['values'][0] for s in samples}
    assert values == {
        (series.FIGURE, 'flops_l1'): 20746.5,
        (series.REFERENCE, 'flops_l1'): 30000.0,
        (series.LOWER_BOUND, 'flops_l1'): pytest.approx(24000.0),
        (series.FIGURE_PASSED, 'flops_l1'): 0,
        (series.FIGURE, 'time_per_iteration_l1'): 0.0964016,
        (series.REFERENCE, 'time_per_iteration_l1'): 0.08,
        (series.UPPER_BOUND, 'time_per_iteration_l1'): pytest.approx(0.12),
        (series.FIGURE_PASSED, 'time_per_iteration_l1'): 1,
    }


def test_the_outcome_of_a_test_case_is_one_series_without_figure():
    sample = series.check_line(dict(CASE, result='fail'), NIGHTLY)
    assert sample['values'] == [0] and sample['timestamps'] == [WHEN]
    assert 'figure' not in sample['metric']
    assert sample['metric']['__name__'] == series.CHECK_PASSED
    assert series.check_line(CASE, NIGHTLY)['values'] == [1]


def test_a_case_that_failed_before_its_job_ran_is_at_the_run_s_end():
    early = dict(CASE, result='fail', job_completion_time_unix=None,
                 perfvalues={})
    assert series.figure_lines(early, NIGHTLY) == []
    assert series.check_line(early, NIGHTLY) is None
    assert series.check_line(early, NIGHTLY, 1795624060.5)[
        'timestamps'] == [1795624060500]


def test_skips_and_fixtures_send_nothing():
    assert series.case_lines(dict(CASE, result='skip'), NIGHTLY, 1.0) == \
        series.figure_lines(CASE, NIGHTLY)
    assert series.case_lines(dict(CASE, fixture=True), NIGHTLY, 1.0) == []


def test_the_run_s_labels_come_from_its_session_extras():
    assert series.run_labels({}) == {'mode': 'none'}
    assert series.run_labels({'suite_mode': 'post-upgrade',
                              'post_upgrade': 'before', 'fleet': 'yes'}) == {
        'mode': 'post-upgrade', 'fleet': 'yes', 'post_upgrade': 'before'}


def test_a_fleet_case_is_labelled_with_the_node_it_was_pinned_to():
    case = dict(CASE, node='', job_nodelist=['n3'],
                display_name=CASE['display_name'] +
                ' %.part=cluster:compute %.nid=n2')
    labels = series.case_labels(case, {'fleet': 'yes'})
    assert labels['node'] == 'n2'
    assert not any(name.startswith('.') for name in labels)
    assert series.case_labels(dict(case, display_name=CASE['display_name']),
                              {})['node'] == 'n3'


def test_a_parameter_named_as_a_label_of_its_own_keeps_a_prefix():
    case = dict(CASE, display_name='NetworkCheck %node=pair %mode=fast')
    labels = series.case_labels(case, NIGHTLY)
    assert (labels['node'], labels['mode']) == ('vm', 'nightly')
    assert (labels['param_node'], labels['param_mode']) == ('pair', 'fast')


def test_empty_labels_and_values_that_are_no_number_are_left_out():
    case = copy.deepcopy(CASE)
    case['identity'] = ''
    case['perfvalues']['local:default:flops_l1'][0] = float('nan')
    samples = series.figure_lines(case, NIGHTLY)
    assert all('identity' not in s['metric'] for s in samples)
    assert [s['metric']['figure'] for s in named(samples, series.FIGURE)] \
        == ['time_per_iteration_l1']


def test_a_sample_s_key_is_its_series_and_time_not_its_value():
    sample = series.line(series.FIGURE, {'b': '2', 'a': '1'}, 1.0, 5)
    same = series.line(series.FIGURE, {'a': '1', 'b': '2'}, 2.0, 5)
    later = series.line(series.FIGURE, {'a': '1', 'b': '2'}, 1.0, 6)
    assert series.key(sample) == series.key(same) != series.key(later)


def test_a_suspect_is_one_series_per_node():
    sample = series.suspect_line('cluster:compute', 'n3', True,
                                 {'suite_mode': 'nightly', 'fleet': 'yes'},
                                 1795624054.5)
    assert sample == {
        'metric': {'__name__': series.SUSPECT, 'system': 'cluster',
                   'partition': 'compute', 'node': 'n3', 'mode': 'nightly',
                   'fleet': 'yes'},
        'values': [1], 'timestamps': [1795624054500]}
