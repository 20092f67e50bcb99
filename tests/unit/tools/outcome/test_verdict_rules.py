'''The rules of the acceptance verdict (hpc_acceptance.tools.outcome.verdict)
at their edges: what counts, what is no measurement, what the fleet
comparison is given, the reports read as one run, the command's usage and
exit statuses, and the words of the verdict line a sysadmin and ``ci/``
read. Each test pins a decision a mutant of the module changed while the
other tests passed (tests/README.md, "Mutation testing").
'''

import json
import math
import sys
from types import SimpleNamespace

import pytest

from helpers import fleet_cases
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.fleet import history
from hpc_acceptance.tools.outcome import acceptance_verdict as verdict
from hpc_acceptance.tools.outcome import finished_run
from hpc_acceptance.tools.results.runs import ResultsError
from hpc_acceptance.tools.shifts import nightly as nightly_shifts

STREAM = {'StreamCheck': [('triad', 'MB/s', 38500)]}
USAGE = ('Usage: ``hpc-acceptance verdict REPORT.json REFRAME_EXIT_STATUS '
         '[REPORT.json REFRAME_EXIT_STATUS ...]``')


@pytest.fixture(autouse=True)
def no_database(tmp_path, monkeypatch):
    '''A results database of the test's own, which does not exist: its
    path, given to what is judged here and named to the commands.'''
    path = str(tmp_path / 'results.db')
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', path)
    return path


def _report(*runs, **info):
    return {'runs': [{'testcases': list(cases)} for cases in runs],
            'session_info': info}


def _one(check='StreamCheck', values=None, node='n1', **kwargs):
    '''A test case of a single-node run.'''
    if values is None:
        values = {'triad': (38500.0, 'MB/s')}

    return fleet_cases.case(node, check, values, **kwargs)


def _last(message):
    return message.splitlines()[-1]


def _write(tmp_path, name, report):
    path = tmp_path / name
    path.write_text(json.dumps(report))
    return str(path)


# -- what counts --------------------------------------------------------------

def test_a_fixture_listed_first_leaves_the_checks_counted():
    fixture = _one('BuildStream', {})
    fixture['fixture'] = True
    results, failures = verdict.tally(_report([fixture, _one(), _one(
        'MemoryDaxpyCheck', {'flops_l1': (9000.0, 'MFLOP/s')})]))
    assert results == {'pass': 2} and failures == []


def test_no_measurement_is_of_passed_checks_only_fixtures_left_out():
    fixture = _one(values={'triad': (math.nan, 'MB/s')})
    fixture['fixture'] = True
    failed = _one(values={'triad': (math.nan, 'MB/s')}, result='fail')
    nan = _one(values={'triad': (math.nan, 'MB/s')}, node='n2')
    assert verdict.no_measurements([fixture, failed, nan]) == [
        f'{nan["display_name"]}: no measurement of triad (NaN)']


def test_a_check_of_this_project_that_reported_no_figure_is_named():
    silent = _one(values={})
    site_check = _one('SiteHealthCheck', values={})
    assert verdict.no_measurements([site_check, silent]) == [
        f'{silent["display_name"]}: no measurement: no figure reported']


# -- the verdict line ---------------------------------------------------------

def test_a_figure_with_no_measurement_is_counted_in_the_verdict(no_database):
    status, message = verdict.judge(_report([_one(
        values={'triad': (math.nan, 'MB/s')})]), db_path=no_database)
    assert status == 1
    assert _last(message) == ('acceptance FAILED (1 pass): 1 figure(s) with '
                              'no measurement')


def test_a_failed_fixture_alone_fails_no_check(no_database):
    fixture = _one('BuildStream', {}, result='fail')
    fixture['fixture'] = True
    status, message = verdict.judge(_report([fixture]), db_path=no_database)
    assert status == 1
    assert _last(message) == 'acceptance FAILED (no checks): 1 failure(s)'


def test_the_suspects_and_the_findings_are_counted_in_the_verdict(no_database):
    cases = fleet_cases.fleet(6, figures=STREAM, slow={
        'n5': (0.5, ('StreamCheck',)), 'n6': (0.5, ('StreamCheck',))})
    status, message = verdict.judge(_report(cases), db_path=no_database)
    assert status == 1
    assert _last(message) == (
        'acceptance FAILED (6 pass): 2 suspect node(s): n5 '
        '(cluster:compute), n6 (cluster:compute); see hpc-acceptance '
        'suspects')

    cases = fleet_cases.fleet(10, figures=STREAM, slow={
        f'n{i}': (0.5, ('StreamCheck',)) for i in range(6, 11)})
    status, message = verdict.judge(_report(cases), db_path=no_database)
    assert status == 1
    assert _last(message) == ('acceptance FAILED (10 pass): 1 finding(s) '
                              'on a whole partition')


def test_a_fleet_that_cannot_be_compared_fails_saying_why(no_database):
    cases = fleet_cases.fleet(4, figures=STREAM)
    cases[0]['fleet_floors'] = 'Stream=0.5'
    cases[1]['fleet_floors'] = 'Stream=0.4'
    status, message = verdict.judge(_report(cases), db_path=no_database)
    assert status == 1
    assert message.splitlines()[0] == (
        "  fleet comparison: test cases of cluster:compute recorded "
        "different fleet floors: ['Stream=0.4', 'Stream=0.5']")


@pytest.mark.parametrize('cases, said', [
    ([], 'no check was selected (no checks)'),
    ([_one(result='skip'), _one(result='skip', node='n2')],
     'every check was skipped (2 skip)'),
], ids=['nothing', 'all skipped'])
def test_nothing_validated_says_why(cases, said, no_database):
    assert verdict.judge(_report(cases), db_path=no_database) == (
        2, f'acceptance NOT VALIDATED: {said}; see the skip reasons above')


def test_a_pass_says_every_limit_of_its_judgement(no_database):
    '''A fleet judged across its nodes only, beside a check of the
    embedded system that no reference file bounded: both are said.'''
    cases = fleet_cases.fleet(4, figures=STREAM, system='local')
    lonely = _one('MemoryDaxpyCheck', {'flops_l1': (9000.0, 'MFLOP/s')},
                  system='local')
    lonely['reference_file'] = 'none'
    status, message = verdict.judge(_report(cases + [lonely]),
                                    db_path=no_database)
    assert status == 0
    assert message == ('acceptance passed — not judged against references '
                       f'— {verdict.ACROSS_NODES_ONLY} (5 pass)')


def test_checks_that_passed_only_when_retried_are_all_named(no_database):
    first = [_one(result='fail'), _one('MemoryDaxpyCheck', {
        'flops_l1': (9000.0, 'MFLOP/s')}, result='fail')]
    retry = [_one(), _one('MemoryDaxpyCheck', {
        'flops_l1': (9000.0, 'MFLOP/s')})]
    status, message = verdict.judge(_report(first, retry), db_path=no_database)
    assert status == 0
    names = sorted(case['display_name'] for case in retry)
    assert message.endswith(f'; passed only when retried: {names[0]}, '
                            f'{names[1]}')


def test_a_figure_shifted_across_nights_fails_the_run(no_database):
    '''Only the shifts that fail the run (beyond their limit) count;
    each is named on a line of its own.'''
    shifts = [SimpleNamespace(failing=True, describe=lambda: 'triad -30 %'),
              SimpleNamespace(failing=False, describe=lambda: 'copy -3 %')]
    status, message = verdict.judge(_report([_one(system='local')]),
                                    shifts=shifts, db_path=no_database)
    assert status == 1
    assert message.splitlines() == [
        '  shift across nights: triad -30 %',
        'acceptance FAILED (1 pass): 1 figure(s) shifted across nights']
    assert verdict.judge(_report([_one(system='local')]),
                         shifts=shifts[1:], db_path=no_database)[0] == 0


# -- the fleet's earlier runs -------------------------------------------------

def test_the_fleet_is_held_to_the_earlier_runs_of_its_session(
        monkeypatch, no_database):
    asked = []

    def earlier_runs(session, started, *, db_path):
        asked.append((session, started, db_path))
        return [fleet_cases.fleet(6, figures=STREAM, seed=seed)
                for seed in (1, 2, 3)]

    monkeypatch.setattr(history, 'earlier_runs', earlier_runs)
    slow = fleet_cases.fleet(6, figures=STREAM, seed=4, slow={
        f'n{i}': (0.5, ('StreamCheck',)) for i in range(1, 7)})
    status, message = verdict.judge(_report(
        slow, uuid='s4', time_start='20261126T010000+0000', fleet='yes'),
        db_path=no_database)
    assert asked == [('s4', '20261126T010000+0000', no_database)]
    assert status == 1
    assert 'the fleet as a whole lost StreamCheck' in message


def test_earlier_runs_that_cannot_be_read_are_said_so(monkeypatch,
                                                      no_database):
    def earlier_runs(session, started, *, db_path):
        raise ResultsError('the results database is locked')

    monkeypatch.setattr(history, 'earlier_runs', earlier_runs)
    status, message = verdict.judge(_report(
        fleet_cases.fleet(4, figures=STREAM), uuid='s1', fleet='yes'),
        db_path=no_database)
    assert status == 0
    assert message.startswith(
        f'acceptance passed — {verdict.ACROSS_NODES_ONLY} (the earlier '
        f'fleet runs could not be read: the results database is locked)')


# -- the reports of a run -----------------------------------------------------

def test_the_reports_of_a_run_are_read_as_one(tmp_path, no_database):
    first = fleet_cases.as_report(fleet_cases.fleet(4, figures=STREAM),
                                  session=fleet_cases.session_id(1),
                                  start=1000)
    rerun = fleet_cases.as_report([_one()],
                                  session=fleet_cases.session_id(2),
                                  start=2000)
    read = finished_run.read([
        (str(tmp_path / 'no-test-case-ran.json'), 0),
        (_write(tmp_path, 'first.json', first), 0),
        (_write(tmp_path, 'rerun.json', rerun), 0)],
        db_path=no_database).report
    assert read['session_info'] == first['session_info']
    assert read['runs'] == first['runs'] + rerun['runs']


def test_a_run_reads_the_stored_history_once_and_holds_it(tmp_path,
                                                         monkeypatch):
    stored = [_one(system='local')]
    reads = []
    database = tmp_path / 'results.db'
    database.write_text('')
    monkeypatch.setattr(nightly_shifts, 'stored_testcases',
                        lambda query, db_path: reads.append(db_path) or
                        stored)
    report = fleet_cases.as_report([_one(system='local')],
                                   session=fleet_cases.session_id(1),
                                   start=1000)
    run = finished_run.read([(_write(tmp_path, 'r.json', report), 0)],
                            db_path=str(database))
    # what its shifts were found against, and what its page draws from
    assert reads == [str(database)] and run.shift_history == stored
    # a history given is not read again
    finished_run.read([(_write(tmp_path, 'r.json', report), 0)],
                      shift_history=[], db_path=str(database))
    assert len(reads) == 1


# -- the command --------------------------------------------------------------

@pytest.mark.parametrize('argv', [[], ['report.json'],
                                  ['report.json', 'x'],
                                  ['a.json', '0', 'b.json', 'x']],
                         ids=['nothing', 'no status', 'a word',
                              'a word second'])
def test_usage_is_exit_3(argv, capsys):
    assert cli.main(['verdict', *argv]) == 3
    assert capsys.readouterr().err == USAGE + '\n'


def test_the_command_reads_its_own_arguments(tmp_path, monkeypatch, capsys):
    report = fleet_cases.as_report([_one(system='local')],
                                   session=fleet_cases.session_id(1),
                                   start=1000)
    monkeypatch.setattr(sys, 'argv', [
        'hpc-acceptance', 'verdict', _write(tmp_path, 'r.json', report),
        '0'])
    assert cli.main() == 0
    assert capsys.readouterr().out.startswith('acceptance passed')


def test_a_report_of_no_test_case_is_not_validated(tmp_path, capsys):
    report = fleet_cases.as_report([], session=fleet_cases.session_id(1),
                                   start=1000)
    assert cli.main(['verdict', _write(tmp_path, 'r.json', report), '0']) == 2
    assert capsys.readouterr().err == (
        'acceptance NOT VALIDATED: no check was selected (ReFrame ran no '
        'test case and wrote no report)\n')


def test_a_shift_limit_that_cannot_be_read_is_not_validated(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(nightly_shifts, 'history', lambda: [])
    monkeypatch.setenv('HPC_ACCEPTANCE_SHIFT_LIMIT', 'a lot')
    report = fleet_cases.as_report([_one(system='local')],
                                   session=fleet_cases.session_id(1),
                                   start=1000)
    assert cli.main(['verdict', _write(tmp_path, 'r.json', report), '0']) == 2
    assert capsys.readouterr().err.startswith(
        "acceptance NOT VALIDATED: HPC_ACCEPTANCE_SHIFT_LIMIT='a lot': ")


def test_the_command_judges_the_shifts_of_its_run(tmp_path, monkeypatch):
    shifted = SimpleNamespace(failing=True, describe=lambda: 'triad -30 %')
    monkeypatch.setattr(nightly_shifts, 'find',
                        lambda cases, history, *settings, **where: [shifted])
    report = fleet_cases.as_report([_one(system='local')],
                                   session=fleet_cases.session_id(1),
                                   start=1000)
    assert cli.main(['verdict', _write(tmp_path, 'r.json', report), '0']) == 1


# -- a finished run judged ----------------------------------------------------

def _finished(cases, **read):
    return finished_run.FinishedRun(pairs=[], report=_report(cases), **read)


def test_a_finished_run_is_judged_with_what_was_found_of_it():
    '''verdict_of hands the run's own findings on: why the shifts could
    not be judged, why the fleet could not be compared, what the fleet
    was judged without.'''
    cases = fleet_cases.fleet(4, figures=STREAM, system='local')
    assert verdict.verdict_of(_finished(
        cases, shift_error='the limit cannot be read')) == (
        2, 'acceptance NOT VALIDATED: the limit cannot be read')

    status, message = verdict.verdict_of(_finished(
        cases, fleet_error='two floors', fleets=[]))
    assert status == 1
    assert message.splitlines()[0] == '  fleet comparison: two floors'

    fleets, note = history.compare(cases, None, None,
                                   db_path='/nonexistent/results.db')
    status, message = verdict.verdict_of(_finished(
        cases, fleets=fleets, fleet_note='the earlier runs were not read'))
    assert status == 0
    assert '(the earlier runs were not read)' in message


def test_every_test_case_with_no_measurement_is_named():
    first = _one(values={'triad': (math.nan, 'MB/s')})
    second = _one(values={'triad': (math.inf, 'MB/s')}, node='n2')
    assert verdict.no_measurements([first, second]) == sorted([
        f'{first["display_name"]}: no measurement of triad (NaN)',
        f'{second["display_name"]}: no measurement of triad (+inf)'])


def test_a_fleet_comparison_given_is_the_one_judged(no_database):
    '''``fleets`` made by the caller (the confirmation rerun's, say) are
    judged as given, not made again from the report.'''
    cases = fleet_cases.fleet(6, figures=STREAM, slow={
        'n6': (0.5, ('StreamCheck',))})
    status, message = verdict.judge(_report(cases), fleets=[],
                                    db_path=no_database)
    assert (status, _last(message)) == (0, 'acceptance passed (6 pass)')
