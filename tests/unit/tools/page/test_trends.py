'''Trends: runs of the same figure, their band and this run's verdict.'''

from hpc_acceptance.tools.page import trends
from hpc_acceptance.tools.results.runs import figure_key


def _case(session, when, value, ref=(0, None, None), result='pass',
          name='MemoryDaxpyCheck %isa=native %threads=single'):
    return {'display_name': name, 'system': 'local', 'partition': 'default',
            'environ': 'gnu', 'fixture': False, 'result': 'pass',
            'session_uuid': session, 'job_completion_time_unix': when,
            'perfvalues': {'local:default:flops': [value, *ref, 'MFLOP/s',
                                                   result]}}


def test_the_key_is_check_partition_environ_parameters_and_identity():
    case = _case('s', 1, 1.0)
    assert figure_key(case) == ('MemoryDaxpyCheck', 'local:default', 'gnu',
                                (('isa', 'native'), ('threads', 'single')),
                                '')
    assert figure_key(dict(case, identity='repeats=5')) != figure_key(case)


def test_one_run_is_a_trend_of_one_point_in_a_floor_wide_band():
    (trend,) = trends.build([_case('now', 10, 100.0)], [])
    assert trend.points == [(10, 100.0)]
    assert trend.band_kind == 'noise'
    assert trend.band[0] < 100.0 < trend.band[1]
    assert trend.verdict == 'pass'


def test_earlier_runs_of_other_variants_and_later_runs_are_left_out():
    history = [_case(f's{i}', i, 100.0 + i) for i in range(5)]
    history.append(_case('other', 3, 5.0, name='MemoryDaxpyCheck %isa=avx2'))
    history.append(_case('later', 99, 7.0))
    current = _case('now', 10, 101.0)
    (trend,) = trends.build([current], history + [current])
    assert [v for _, v in trend.points] == [100, 101, 102, 103, 104, 101]


def test_at_most_runs_points():
    history = [_case(f's{i}', i, 100.0) for i in range(100)]
    (trend,) = trends.build([_case('now', 1000, 100.0)], history, runs=30)
    assert len(trend.points) == 30


def test_a_value_out_of_the_noise_of_earlier_runs_drifted():
    history = [_case(f's{i}', i, v) for i, v in enumerate([100, 101, 99])]
    (trend,) = trends.build([_case('now', 10, 80.0)], history)
    assert trend.verdict == 'drift'
    (steady,) = trends.build([_case('now', 10, 100.5)], history)
    assert steady.verdict == 'pass'


def test_two_earlier_runs_are_too_few_to_drift_from():
    history = [_case(f's{i}', i, v) for i, v in enumerate([100, 101])]
    (trend,) = trends.build([_case('now', 10, 50.0)], history)
    assert trend.verdict == 'pass'


def test_a_reference_gives_the_band_and_reframe_the_verdict():
    (trend,) = trends.build(
        [_case('now', 10, 80.0, ref=(100.0, -0.1, 0.2), result='fail')], [])
    assert trend.band_kind == 'reference'
    assert trend.band == (90.0, 120.0)
    assert trend.verdict == 'fail'


def test_a_word_or_an_implausible_figure_is_no_point_of_a_trend():
    '''A word where a figure belongs, NaN or 1e300 MFLOP/s: no point, not
    a traceback; a run where no node measured it has no trend (its verdict
    names it).'''
    history = [_case('s1', 1, 100.0), _case('s2', 2, 'n/a'),
               _case('s3', 3, float('nan')), _case('s4', 4, 1e300)]
    current = _case('now', 10, 101.0)
    (trend,) = trends.build([current], history + [current])
    assert [v for _, v in trend.points] == [100.0, 101.0]
    assert trends.build([_case('now', 10, 'n/a')], history) == []


def test_a_point_is_in_the_trends_unit():
    earlier = _case('s1', 1, 0.1)
    earlier['perfvalues']['local:default:flops'][4] = 'GFLOP/s'
    odd = _case('s2', 2, 5.0)
    odd['perfvalues']['local:default:flops'][4] = '%'
    current = _case('now', 10, 101.0)
    (trend,) = trends.build([current], [earlier, odd, current])
    assert [v for _, v in trend.points] == [100.0, 101.0]
