'''What a figure is, checked before post-upgrade compares it with its
baseline (hpc_acceptance.tools.upgrade.judgement, .baseline): one unit,
a value a node could deliver, one test case per workload and node, the
runs of the system it ran on. One rule a test, each at its edge.'''

import datetime

import pytest

from helpers import fleet_cases
from helpers import upgrade_runs as runs
from hpc_acceptance.tools.upgrade import baseline
from hpc_acceptance.tools.upgrade.judgement import (MISSING, NO_MEASUREMENT,
                                                    NOT_COMPARED, conclusion,
                                                    exit_status, judge)

STREAM = ('StreamCheck %isa=native %turbo=as-configured %smt=as-configured '
          '%threads=all_cores')
WORK = 'array_elements=80000000;dependency=in-tree;ntimes=10'
BEFORE = {'post_upgrade': 'before', 'suite_mode': 'post-upgrade'}


def stream(triad, unit='MB/s', **kwargs):
    return runs.case(STREAM, {'triad': (triad, unit)}, identity=WORK,
                     **kwargs)


def _judged(before, after):
    return judge(after, [baseline.collect('before', before),
                         baseline.collect('nightly', [])], min_runs=3)


def _row(rows):
    (row,) = rows
    return row


# -- units --------------------------------------------------------------------

def test_a_baseline_in_a_multiple_of_the_runs_unit_is_converted():
    '''A baseline in GB/s against a run in MB/s half as fast: -50 %,
    regressed (it read "improved +49890 %").'''
    row = _row(_judged([stream(38.5, 'GB/s')], [stream(19250.0)]))
    assert row['verdict'] == 'regressed'
    assert row['baseline_median'] == pytest.approx(38500.0)
    assert row['change'] == pytest.approx(-0.5)
    row = _row(_judged([stream(38500.0)], [stream(38.4, 'GB/s')]))
    assert row['verdict'] == 'within noise'


def test_a_baseline_in_a_unit_no_multiple_of_the_runs_is_not_compared():
    rows = _judged([stream(38500.0)], [stream(38500.0, '%')])
    row = _row(rows)
    assert row['verdict'] == NOT_COMPARED
    assert row['note'] == ("the baseline is in 'MB/s', not a multiple of "
                           "the '%' it is compared with")
    assert exit_status(rows, []) == 2
    assert conclusion(rows, []) == (
        f'post-upgrade NOT VALIDATED: 1 of 1 figure(s) {NOT_COMPARED} (see '
        f'their notes)')


def test_a_baselines_runs_are_in_the_unit_most_of_them_gave():
    made = baseline.collect('before', [stream(38.5, 'GB/s'), stream(38000.0),
                                       stream(39000.0), stream(1.0, '%')])
    key = baseline.workload_key(stream(1.0))
    assert made.units[key, 'triad'] == 'MB/s'
    assert made.values[key, 'triad', None] == pytest.approx(
        [38500.0, 38000.0, 39000.0])
    assert made.notes == [
        f"1 figure(s) of the before runs in another unit left out of the "
        f"baseline: {STREAM} triad (in '%', not a multiple of the 'MB/s' "
        f"it is compared with)"]


def test_partly_validated_names_both_kinds():
    latency = runs.case('MemoryLatencyCheck %threads=single',
                        {'latency': (95.0, 'ns')})
    rows = _judged([stream(38500.0), latency], [
        stream(38500.0, '%'), latency,
        runs.case('OtherCheck %threads=single', {'x': (1.0, 's')})])
    assert exit_status(rows, []) == 2
    assert conclusion(rows, []) == (
        f'post-upgrade PARTLY VALIDATED: 1 of 3 figure(s) had no baseline; '
        f'1 of 3 figure(s) {NOT_COMPARED} (see their notes); 1 compared, '
        f'none regressed')


# -- implausible --------------------------------------------------------------

def test_a_figure_beyond_a_node_is_no_measurement():
    row = _row(_judged([stream(38500.0)], [stream(1e300)]))
    assert row['verdict'] == NO_MEASUREMENT
    assert row['note'].startswith('implausible: 1e+300 MB/s, above')


def test_ten_thousand_times_the_baseline_is_no_measurement():
    figure = 'OtherCheck %threads=single'
    before = [runs.case(figure, {'eff': (1.0, '%')})]
    row = _row(_judged(before, [runs.case(figure, {'eff': (1e4, '%')})]))
    assert row['verdict'] == NO_MEASUREMENT
    assert row['note'] == ("implausible: 1e+04 times better than the "
                           "baseline's median 1 %")
    row = _row(_judged(before, [runs.case(figure, {'eff': (0.9999e4, '%')})]))
    assert row['verdict'] == 'improved'


def test_a_time_ten_thousand_times_shorter_is_no_measurement():
    figure = 'MemoryLatencyCheck %threads=single'
    before = [runs.case(figure, {'latency': (95.0, 'ns')})]
    row = _row(_judged(before, [runs.case(figure, {'latency': (0.0094,
                                                               'ns')})]))
    assert row['verdict'] == NO_MEASUREMENT


# -- one test case per workload and node -----------------------------------

def test_a_fleet_node_reported_twice_is_not_compared():
    before = [fleet_cases.case(f'n{i}', 'StreamCheck',
                               {'triad': (38500.0, 'MB/s')})
              for i in range(1, 4)]
    after = [dict(case) for case in before]
    after.append(dict(before[0], display_name=before[0]['display_name']
                      .replace('%.nid=n1', '%.nid=n9')))
    rows = _judged(before, after)
    twice = [r for r in rows if r['node'] == 'n1']
    assert [r['verdict'] for r in twice] == [NOT_COMPARED] * 2
    assert twice[0]['note'] == ('2 test cases of it on n1 in this run: '
                                'which is its figure cannot be told')
    assert {r['verdict'] for r in rows if r['node'] != 'n1'} == \
        {'within noise'}


# -- the system ---------------------------------------------------------------

def _serve(monkeypatch, *reports):
    store = runs.Store(list(reports))
    monkeypatch.setattr(baseline, 'session_rows', store.sessions)
    monkeypatch.setattr(baseline, 'stored_testcases', store.testcases)
    monkeypatch.setattr(baseline, 'session_testcases', store.testcases)


def test_another_systems_before_run_is_left_out_and_named(monkeypatch):
    now = datetime.datetime.now(datetime.timezone.utc)
    own = runs.session([stream(38000.0)], now - datetime.timedelta(days=2),
                       **BEFORE)
    other = runs.session([stream(9000.0, system='other')],
                         now - datetime.timedelta(days=1), **BEFORE)
    _serve(monkeypatch, own, other)
    made = baseline.before_runs(systems={'local'}, db_path=runs.SERVED)
    key = baseline.workload_key(stream(1.0))
    assert made.sessions == 1
    assert made.values[key, 'triad', None] == [38000.0]
    assert made.notes == ['--before session(s) of other systems left out of '
                          'the baseline: 1 of other']
    # no system given: every one, as before
    assert baseline.before_runs(db_path=runs.SERVED).sessions == 2


def test_another_systems_verdict_run_does_not_end_the_series(monkeypatch):
    now = datetime.datetime.now(datetime.timezone.utc)
    own = runs.session([stream(38000.0)], now - datetime.timedelta(days=20),
                       **BEFORE)
    other = runs.session([stream(9000.0, system='other')],
                         now - datetime.timedelta(days=10),
                         post_upgrade='after', suite_mode='post-upgrade')
    _serve(monkeypatch, own, other)
    assert baseline.before_runs(systems={'local'},
                                db_path=runs.SERVED).sessions == 1


def test_another_systems_nightly_runs_are_left_out(monkeypatch):
    now = datetime.datetime.now(datetime.timezone.utc)
    nightly = runs.session([stream(38000.0), stream(9000.0, system='other')],
                           now - datetime.timedelta(days=2),
                           suite_mode='nightly')
    _serve(monkeypatch, nightly)
    made = baseline.nightly_runs('now-30d:now?suite_mode=="nightly"',
                                 {'local'}, db_path=runs.SERVED)
    key = baseline.workload_key(stream(1.0))
    assert made.values[key, 'triad', None] == [38000.0]


# -- rows the mutants found unpinned (ci/bench/mutation.sh) -------------------

def _figures(**figures):
    return runs.case(STREAM, figures, identity=WORK)


def test_a_unit_no_multiple_names_its_baseline_and_judges_the_next_figure():
    before = [_figures(copy=(36000.0, 'MB/s'), triad=(38500.0, 'MB/s'))
              for _ in range(3)]
    rows = _judged(before, [_figures(copy=(36000.0, '%'),
                                     triad=(38400.0, 'MB/s'))])
    copy, triad = sorted(rows, key=lambda r: r['figure'])
    assert (copy['verdict'], copy['baseline'], copy['baseline_runs']) == (
        NOT_COMPARED, 'before', 3)
    # the figure after it is judged as ever
    assert triad['verdict'] == 'within noise'


def test_how_steady_the_repetitions_were_is_said_not_judged():
    after = _figures(triad=(38400.0, 'MB/s'),
                     best_to_median_triad=(0.5, 'ratio'),
                     triad_median=(19200.0, 'MB/s'))
    for before in ([], [_figures(triad=(38500.0, 'MB/s'),
                                 best_to_median_triad=(0.98, 'ratio'),
                                 triad_median=(37700.0, 'MB/s'))] * 3):
        rows = {r['figure']: r for r in _judged(before, [after])}
        for figure in ('best_to_median_triad', 'triad_median'):
            assert (rows[figure]['verdict'], rows[figure]['note']) == (
                'not judged',
                'how steady the repetitions were; the best one is judged')


def test_a_skipped_case_beside_a_run_one_is_no_second_record():
    before = [stream(38500.0) for _ in range(3)]
    skipped = runs.case(STREAM, {}, identity=WORK, result='skip',
                        skip_reason='no AVX-512')
    rows = _judged(before, [stream(38400.0), skipped])
    assert [r['verdict'] for r in rows] == ['within noise']


def test_a_figure_missing_after_the_upgrade_keeps_its_baseline_s_unit():
    before = [_figures(copy=(36000.0, 'MB/s'), triad=(38500.0, 'MB/s'))
              for _ in range(3)]
    rows = {r['figure']: r for r in _judged(
        before, [_figures(triad=(38400.0, 'MB/s'))])}
    assert (rows['copy']['verdict'], rows['copy']['unit']) == (
        MISSING, 'MB/s')


def test_every_figure_of_a_workload_run_twice_is_not_compared():
    both = {'copy': (36000.0, 'MB/s'), 'triad': (38500.0, 'MB/s')}
    before = [runs.case(STREAM, both, identity=WORK) for _ in range(3)]
    rows = _judged(before, [runs.case(STREAM, both, identity=WORK)
                            for _ in range(2)])
    assert [(r['figure'], r['verdict']) for r in rows] == [
        ('copy', NOT_COMPARED), ('copy', NOT_COMPARED),
        ('triad', NOT_COMPARED), ('triad', NOT_COMPARED)]
