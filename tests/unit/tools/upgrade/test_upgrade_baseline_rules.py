'''The rules of post-upgrade's baseline
(hpc_acceptance.tools.upgrade.baseline) at their edges: what a baseline
collects, the figures with no measurement its note names, the --before
series at exactly the window, and the nightly runs without fleet runs;
the results database served at the boundary where the module asks ReFrame
for it (tests/helpers/upgrade_runs.py). Each test pins a decision a mutant of
the module changed while the other tests passed (tests/README.md, "Mutation
testing").
'''

import datetime
import math

import pytest

from helpers import upgrade_runs as runs
from hpc_acceptance.tools.upgrade import baseline

STREAM = ('StreamCheck %isa=native %turbo=as-configured %smt=as-configured '
          '%threads=all_cores')
WORK = 'array_elements=80000000;dependency=in-tree;ntimes=10'
BEFORE = {'post_upgrade': 'before', 'suite_mode': 'post-upgrade'}
AFTER = {'post_upgrade': 'after', 'suite_mode': 'post-upgrade'}
NIGHTLY = {'suite_mode': 'nightly'}
UNTIL = datetime.datetime(2026, 11, 20, 12, tzinfo=datetime.timezone.utc)


def stream(triad, **kwargs):
    return runs.case(STREAM, {'triad': (triad, 'MB/s')}, identity=WORK,
                     **kwargs)


def _cases(*reports):
    return [case for report in reports for run in report['runs']
            for case in run['testcases']]


def _serve(monkeypatch, *reports):
    store = runs.Store(list(reports))
    monkeypatch.setattr(baseline, 'session_rows', store.sessions)
    monkeypatch.setattr(baseline, 'stored_testcases', store.testcases)
    monkeypatch.setattr(baseline, 'session_testcases', store.testcases)


def _row(start, extras):
    '''A row of ``session_rows`` of a session started at ``start``.'''
    return {'UUID': f'{extras["post_upgrade"]}-{start:%m%d%H%M}',
            'Start time': start.strftime('%Y%m%dT%H%M%S%z'), **extras}


def test_a_baseline_is_of_the_passed_checks_of_every_session():
    fixture = stream(1000.0)
    fixture['fixture'] = True
    reports = [runs.session([stream(0, result='fail'), stream(38000.0),
                             fixture], UNTIL),
               runs.session([stream(38500.0)], UNTIL)]
    made = baseline.collect('before', _cases(*reports))
    key = baseline.workload_key(stream(1.0))
    assert made.values[key, 'triad', None] == [38000.0, 38500.0]
    assert made.sessions == 2
    assert made.units == {(key, 'triad'): 'MB/s'}
    assert made.names == {key: STREAM}


def test_figures_with_no_measurement_are_named_in_the_note():
    cases = [stream(value) for value in (math.nan, -1.0, math.inf, None,
                                         'n/a')]
    made = baseline.collect('before', cases)
    (note,) = made.notes
    assert note.startswith('5 figure(s) of the before runs with no '
                           'measurement left out of the baseline: ')
    assert note.endswith(' +2 more')
    assert note.count(f'{STREAM} triad (') == 3


def test_three_figures_with_no_measurement_are_all_named():
    made = baseline.collect('before', [stream(math.nan) for _ in range(3)])
    assert made.notes == [
        '3 figure(s) of the before runs with no measurement left out of the '
        'baseline: ' + '; '.join([f'{STREAM} triad (NaN)'] * 3)]


@pytest.mark.parametrize('days, series', [(7, 2), (7.01, 1)])
def test_a_series_holds_runs_up_to_the_window_apart(days, series):
    first = UNTIL - datetime.timedelta(days=days + 1)
    rows = [_row(first, BEFORE),
            _row(UNTIL - datetime.timedelta(days=1), BEFORE)]
    uuids, _ = baseline.before_series(rows, UNTIL)
    assert len(uuids) == series


@pytest.mark.parametrize('days, series', [(7, 1), (7.01, 0)])
def test_a_recheck_up_to_the_window_after_keeps_its_series(days, series):
    rows = [_row(UNTIL - datetime.timedelta(days=days + 1), BEFORE),
            _row(UNTIL - datetime.timedelta(days=days), AFTER)]
    uuids, _ = baseline.before_series(rows, UNTIL)
    assert len(uuids) == series


def test_a_run_that_starts_with_the_verdict_run_is_not_before_it():
    rows = [_row(UNTIL - datetime.timedelta(days=1), BEFORE),
            _row(UNTIL, BEFORE)]
    assert baseline.before_series(rows, UNTIL)[0] == [rows[0]['UUID']]


def test_the_before_runs_of_now(monkeypatch):
    now = datetime.datetime.now(datetime.timezone.utc)
    before = runs.session([stream(38000.0)],
                          now - datetime.timedelta(days=1), **BEFORE)
    _serve(monkeypatch, before)
    made = baseline.before_runs(db_path=runs.SERVED)
    assert made.name == 'before' and made.sessions == 1


def test_the_nightly_runs_leave_fleet_runs_out(monkeypatch):
    now = datetime.datetime.now(datetime.timezone.utc)
    nightly = runs.session([stream(38000.0)],
                           now - datetime.timedelta(days=2), **NIGHTLY)
    fleet = runs.session([stream(19000.0)], now - datetime.timedelta(days=1),
                         fleet='yes', **NIGHTLY)
    _serve(monkeypatch, nightly, fleet)
    made = baseline.nightly_runs('now-30d:now?suite_mode=="nightly"',
                                 db_path=runs.SERVED)
    key = baseline.workload_key(stream(1.0))
    assert made.name == 'nightly'
    assert made.values[key, 'triad', None] == [38000.0]
    assert made.notes == ['1 fleet run(s) left out of the nightly baseline']


def test_a_value_in_another_unit_leaves_the_values_after_it_in():
    percent = runs.case(STREAM, {'triad': (1.0, '%')}, identity=WORK)
    made = baseline.collect('before', [percent, stream(38000.0),
                                       stream(39000.0), stream(38500.0)])
    key = baseline.workload_key(stream(1.0))
    assert made.values[key, 'triad', None] == [38000.0, 39000.0, 38500.0]


def _fixture(system):
    made = runs.case('SpackEnvironmentBuild', system=system)
    made['fixture'] = True
    return made


def test_the_sessions_of_other_systems_are_counted_each_and_named_once():
    '''A fixture is no say of which system a session ran its checks on;
    two sessions of another system are two.'''
    sessions = {'a': [stream(38000.0)],
                'b': [_fixture('local'), stream(9000.0, system='other')],
                'c': [stream(9100.0, system='other')]}
    kept, notes = baseline.of_systems(sessions, {'local'})
    assert list(kept) == ['a']
    assert notes == ['--before session(s) of other systems left out of the '
                     'baseline: 2 of other']
    assert baseline.of_systems({'a': sessions['a']}, {'local'}) == (
        {'a': sessions['a']}, [])
