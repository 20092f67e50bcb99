'''``hpc-acceptance export`` (hpc_acceptance.tools.export.export): the
samples of a stored session or run report, as the run sent them, a fleet run's
suspects, and the command's answers when the export is off or misused.'''

import copy
import json

import pytest

from conftest import DATA_DIR
from helpers import fleet_cases
from hpc_acceptance.core.export import series, spool
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.export import export, run_export
from hpc_acceptance.tools.results import database
from hpc_acceptance.tools.outcome import summary_text

NIGHTLY = DATA_DIR / 'reframe_runs' / 'nightly-report.json'
#: The nightly report as a finished run reads it.
NIGHTLY_REPORT = json.loads(NIGHTLY.read_text())


def names(samples):
    return [s['metric']['__name__'] for s in samples]


def test_a_session_s_samples_are_its_figures_and_outcomes():
    report = json.loads(NIGHTLY.read_text())
    ran = [c for c in report['runs'][0]['testcases']
           if not c['fixture'] and c['result'] != 'skip']
    samples = export.report_samples(report)
    assert names(samples).count(series.FIGURE) == sum(
        len(c['perfvalues']) for c in ran)
    assert names(samples).count(series.CHECK_PASSED) == len(ran)
    assert {s['metric']['mode'] for s in samples} == {'none'}


def test_each_attempt_of_a_retried_case_is_a_sample_of_its_own():
    report = json.loads(NIGHTLY.read_text())
    case = next(c for c in report['runs'][0]['testcases']
                if c['perfvalues'])
    retry = dict(copy.deepcopy(case), result='pass',
                 job_completion_time_unix=case['job_completion_time_unix']
                 + 60)
    case['result'] = 'fail'
    report = {'session_info': dict(report['session_info'],
                                   suite_mode='nightly', time_end_unix=2e9),
              'runs': [{'testcases': [case]}, {'testcases': [retry]}]}
    outcomes = [s['values'][0] for s in export.report_samples(report)
                if s['metric']['__name__'] == series.CHECK_PASSED]
    assert outcomes == [0, 1]


def test_a_case_failed_twice_before_its_job_ran_is_sent_once():
    report = json.loads(NIGHTLY.read_text())
    case = next(c for c in report['runs'][0]['testcases']
                if c['perfvalues'])
    case.update(result='fail', job_completion_time_unix=None, perfvalues={})
    report = {'session_info': {'time_end_unix': 2e9},
              'runs': [{'testcases': [case]}, {'testcases': [case]}]}
    assert names(export.report_samples(report)) == [series.CHECK_PASSED]


def test_a_fleet_run_sends_each_compared_node_as_suspect_or_not(tmp_path):
    cases = fleet_cases.fleet(6, slow={'n4': (0.4, ('StreamCheck',))})
    report = {'session_info': {'suite_mode': 'nightly', 'fleet': 'yes',
                               'time_end_unix': 1795624054.5},
              'runs': [{'testcases': cases}]}
    suspects = {s['metric']['node']: s['values'][0]
                for s in export.suspect_samples(
                    [report], db_path=str(tmp_path / 'results.db'))
                if s['metric']['__name__'] == series.SUSPECT}
    assert suspects == {'n1': 0, 'n2': 0, 'n3': 0, 'n4': 1, 'n5': 0,
                        'n6': 0}


def test_the_suspects_sent_are_the_verdicts_after_the_rerun(tmp_path):
    db = str(tmp_path / 'results.db')
    cases = fleet_cases.fleet(6, slow={'n4': (0.4, ('StreamCheck',))})
    first = {'session_info': {'fleet': 'yes', 'time_end_unix': 2.0},
             'runs': [{'testcases': cases}]}
    rerun = {'session_info': {'fleet': 'confirm', 'time_end_unix': 3.0},
             'runs': [{'testcases': [
                 c for c in fleet_cases.fleet(6) if c['node'] == 'n4' and
                 c['display_name'].startswith('StreamCheck')]}]}
    suspects = {s['metric']['node']: s['values'][0]
                for s in export.suspect_samples([first, rerun],
                                                db_path=db)}
    assert suspects['n4'] == 0 and set(suspects.values()) == {0}
    assert export.suspect_samples([rerun], db_path=db) == []


def test_a_fleet_too_small_to_compare_sends_no_suspect_series(tmp_path):
    report = {'session_info': {'fleet': 'yes', 'time_end_unix': 1.0},
              'runs': [{'testcases': fleet_cases.fleet(3)}]}
    assert export.suspect_samples(
        [report], db_path=str(tmp_path / 'results.db')) == []


def test_without_the_setting_the_command_says_it_is_off(tmp_path, capsys,
                                                        monkeypatch):
    monkeypatch.setenv('HPC_ACCEPTANCE_SITE_DIR', str(tmp_path))
    assert cli.main(['export', '--replay']) == 2
    assert 'export: off: no export.yaml in the site directory' in \
        capsys.readouterr().err
    # after a run: nothing to do
    assert cli.main(['export', '--run-report', str(NIGHTLY)]) == 0


def test_a_date_that_is_none_is_named(capsys):
    try:
        cli.main(['export', '--since', 'yesterday'])
    except SystemExit as stop:
        assert stop.code == 2

    assert "'yesterday': a date, YYYY-MM-DD or YYYY-MM-DDTHH:MM" in \
        capsys.readouterr().err


def test_the_summary_ends_with_what_waits_for_the_store_within_40_lines():
    report = json.loads(NIGHTLY.read_text())
    cases = report['runs'][0]['testcases']
    failed = [dict(copy.deepcopy(cases[-1]), result='fail',
                   fail_phase='sanity', fail_reason='x' * 300,
                   display_name=f'Broken{n}') for n in range(60)]
    footer = ('export: 12 figure(s) (40 values) wait for the store since '
              '2026-11-25 02:00 (HTTP 429 Too Many Requests); '
              '"hpc-acceptance export --replay" sends them')
    skipped = [(f'Check{n} %x=1', f'reason number {n}') for n in range(40)]
    lines = summary_text.render(cases + failed, skipped, footer=[footer])
    assert len(lines) <= summary_text.MAX_LINES
    assert ' '.join(' '.join(lines[-2:]).split()) == footer


@pytest.fixture
def site(tmp_path, monkeypatch):
    '''A site directory whose export setting names a store nobody
    answers at (nothing here reaches it).'''
    (tmp_path / 'site').mkdir()
    (tmp_path / 'site' / 'export.yaml').write_text(
        'url: http://127.0.0.1:9\ntimeout_s: 1\n')
    monkeypatch.setenv('HPC_ACCEPTANCE_SITE_DIR', str(tmp_path / 'site'))
    monkeypatch.delenv('RFM_SQLITE_DB_FILE', raising=False)
    return tmp_path / 'site'


@pytest.mark.parametrize('mode', [['--since', '2026-01-01'], ['--verify'],
                                  ['--replay']])
def test_a_database_named_that_does_not_exist_is_an_error_naming_it(
        site, tmp_path, capsys, mode):
    missing = tmp_path / 'no-such' / 'results.db'
    assert cli.main(['export', *mode, '--db', str(missing)]) == 2
    assert capsys.readouterr().err == (
        f'export: the results database {missing} (--db) does not exist: '
        f'no run was stored there\n')


def test_the_default_database_missing_is_named_with_its_source(
        site, tmp_path, capsys, monkeypatch):
    missing = tmp_path / 'var' / 'results.db'
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(missing))
    assert cli.main(['export', '--since', '2026-01-01']) == 2
    assert f'{missing} (RFM_SQLITE_DB_FILE) does not exist' in \
        capsys.readouterr().err
    # nothing waits where no run stored anything: a replay has nothing to do
    assert cli.main(['export', '--replay']) == 0
    assert 'export: 0 value(s) waiting in the spool: 0 sent' in \
        capsys.readouterr().out


@pytest.mark.parametrize('argv, said', [
    ([], 'one of --replay, --since, --run-report, --verify is needed'),
    (['--replay', '--since', '2026-01-01'], '--replay and --since: one at '
                                            'a time'),
    (['--verify', '--replay'], '--replay and --verify: one at a time'),
])
def test_one_thing_at_a_time(site, capsys, argv, said):
    with pytest.raises(SystemExit) as stop:
        cli.main(['export', *argv])

    assert stop.value.code == 2
    assert said in capsys.readouterr().err


def test_this_run_s_values_are_counted_as_the_store_took_them(
        site, tmp_path):
    db = str(tmp_path / 'results.db')
    ours = export.report_samples(json.loads(NIGHTLY.read_text()))
    waiting = spool.Spool(tmp_path / 'results-export.db',
                          'http://127.0.0.1:9')
    assert run_export.status_lines([NIGHTLY_REPORT], db, site) == [
        f"export: this run's {len(ours)} value(s): 0 taken by the store "
        f"http://127.0.0.1:9, {len(ours)} not sent (the export was not on "
        f'for them: "hpc-acceptance export --since" sends them)']

    waiting.delivered(ours[2:])
    waiting.hold(ours[:2], 'HTTP 429 Too Many Requests')
    first, second = run_export.status_lines([NIGHTLY_REPORT], db, site)
    assert first == (f"export: this run's {len(ours)} value(s): "
                     f'{len(ours) - 2} taken by the store '
                     f'http://127.0.0.1:9, 2 waiting')
    assert second.startswith('export: ')
    assert '(2 values) wait for the store since ' in second
    assert '(HTTP 429 Too Many Requests); "hpc-acceptance export --replay" ' \
        'sends them' in second


def test_the_database_named_is_the_one_the_suspects_and_shifts_read(
        site, tmp_path, monkeypatch):
    '''``export --db``: a fleet run's suspects (its earlier fleet runs)
    and its shifts (the year of stored runs) are read from the database
    named, never from the environment's.'''
    named, other = tmp_path / 'named.db', tmp_path / 'other.db'
    named.touch()
    other.touch()
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(other))
    asked = []

    class Storage:
        def fetch_sessions(self, selector):
            return []

        def fetch_testcases(self, selector):
            return []

    def storage(path):
        asked.append(str(path))
        return Storage()

    monkeypatch.setattr(database, 'reframe_storage', storage)
    report = fleet_cases.as_report(fleet_cases.fleet(6),
                                   session=fleet_cases.session_id(1),
                                   start=1000, extras={'fleet': 'yes'})
    path = tmp_path / 'run.json'
    path.write_text(json.dumps(report))
    cli.main(['export', '--run-report', str(path), '--db', str(named)])
    # the earlier fleet runs (suspects) and the history (shifts) were read
    assert len(asked) >= 2
    assert set(asked) == {str(named)}


@pytest.mark.parametrize('node', ['n1\nscontrol update NodeName=n2',
                                  '$(touch ran)', '../../etc'])
def test_a_crafted_report_is_refused_at_the_door_and_nothing_sent(
        site, tmp_path, capsys, node):
    report = fleet_cases.as_report(fleet_cases.fleet(6),
                                   session=fleet_cases.session_id(1),
                                   start=1000, extras={'fleet': 'yes'})
    report['runs'][0]['testcases'][0]['node'] = node
    path = tmp_path / 'run.json'
    path.write_text(json.dumps(report))
    (tmp_path / 'results.db').touch()
    assert cli.main(['export', '--run-report', str(path), '--db',
                     str(tmp_path / 'results.db')]) == 1
    err = capsys.readouterr().err
    assert f'export: cannot read the run report {path}: ' in err
    assert 'node ' in err and len(err.splitlines()) == 1
    # nothing made to be sent: nothing waits in the spool beside the
    # database for the store nobody answers at
    assert spool.Spool(tmp_path / 'results-export.db',
                       'http://127.0.0.1:9').waiting().samples == 0


def test_the_site_directory_is_the_one_the_settings_name(site, tmp_path,
                                                         monkeypatch):
    '''The summary's export lines read the export setting of the site
    directory they are given (the command's settings), not one the
    environment names deeper down.'''
    monkeypatch.setenv('HPC_ACCEPTANCE_SITE_DIR', str(tmp_path / 'other'))
    db = str(tmp_path / 'results.db')
    [line] = run_export.status_lines([NIGHTLY_REPORT], db, site)
    assert line.startswith("export: this run's ") and \
        'http://127.0.0.1:9' in line
    assert run_export.status_lines([NIGHTLY_REPORT], db, None) == []
