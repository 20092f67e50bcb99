'''The results database: checked, backed up, runs imported
(hpc_acceptance.tools.results.db), on real SQLite files and a real ReFrame
run report stored with ReFrame's own storage code.'''

import json
import os
import shutil
import sqlite3

import pytest
from conftest import DATA_DIR
from helpers import sqlite_limit

from hpc_acceptance.tools import cli
from hpc_acceptance.tools.results import database, runs

#: ReFrame's JSON report of an acceptance run, as ReFrame wrote it.
FIXTURE = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'
SESSION = json.loads(FIXTURE.read_text())['session_info']['uuid']


@pytest.fixture
def report(tmp_path):
    path = tmp_path / 'run-report.json'
    shutil.copy(FIXTURE, path)
    return path


@pytest.fixture
def stored(tmp_path, report):
    '''A database holding the fixture's run, and that run's report in a
    reports directory.'''
    reports = tmp_path / 'reports'
    reports.mkdir()
    shutil.copy(report, reports / 'nightly.json')
    db = tmp_path / 'results.db'
    assert cli.main(['db', 'import', '--db', str(db),
                          str(reports / 'nightly.json')]) == 0
    return db, reports


def test_an_imported_report_is_a_stored_session(stored):
    db, _ = stored
    assert database.stored(str(db), SESSION)
    database.check(str(db))


def test_the_stored_runs_are_read_from_the_database_given(
        stored, tmp_path, monkeypatch):
    '''The tools' library reads the results database it is given, never
    the one the environment names: RFM_SQLITE_DB_FILE is read once, by
    the command, at its edge (..common.command_settings).'''
    db, _ = stored
    # another results database, whole and empty, named by the environment
    empty = tmp_path / 'empty.db'
    shutil.copy(db, empty)
    with sqlite3.connect(empty) as conn:
        conn.execute('DELETE FROM testcases')
        conn.execute('DELETE FROM sessions')
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(empty))
    assert [row['UUID'] for row in runs.session_rows(SESSION, str(db))] == \
        [SESSION]
    cases = runs.stored_testcases(SESSION, str(db))
    assert cases and {case['session_uuid'] for case in cases} == {SESSION}
    assert runs.session_rows(SESSION, str(empty)) == []
    assert runs.stored_testcases(SESSION, str(empty)) == []


def test_importing_a_run_twice_keeps_one_copy(stored, capsys):
    db, reports = stored
    assert cli.main(['db', 'import', '--db', str(db),
                          str(reports / 'nightly.json')]) == 0
    assert 'already stored' in capsys.readouterr().out
    with sqlite3.connect(db) as conn:
        assert conn.execute('SELECT COUNT(*) FROM sessions').fetchone() == \
            (1,)


def test_a_file_that_is_no_run_report_is_refused_by_name(stored, capsys):
    db, reports = stored
    other = reports / 'verdict.json'
    other.write_text('{"rows": []}')
    assert cli.main(['db', 'import', '--db', str(db), str(other)]) == \
        database.UNREADABLE
    assert capsys.readouterr().err == (
        f"db: not stored: cannot read the run report {other}: the report: "
        f"no 'runs'\n")


def test_a_missing_database_is_fine_ReFrame_creates_it(tmp_path):
    database.check(str(tmp_path / 'none' / 'results.db'))


def truncated(db):
    with open(db, 'r+b') as fp:
        fp.truncate(4096)


def test_a_truncated_database_is_damaged_with_recovery_steps(stored,
                                                             capsys):
    db, reports = stored
    truncated(db)
    assert cli.main(['db', 'check', '--db', str(db),
                          '--reports', str(reports)]) == 1
    err = capsys.readouterr().err
    assert 'database disk image is malformed' in err
    # the damaged file is moved aside, and the kept report imported
    assert f'  mv {db} {db}.damaged-' in err
    assert f'db import --db {db} {reports / "nightly.json"}' in err


def test_recovery_restores_the_newest_backup_and_imports_what_is_newer(
        stored, report):
    db, reports = stored
    first = database.backup(str(db))
    newest = database.backup(str(db))
    # a run after the backup, whose report is newer than it
    later = reports / 'later.json'
    shutil.copy(report, later)
    os.utime(reports / 'nightly.json', (0, 0))
    truncated(db)
    with pytest.raises(database.DatabaseError) as err:
        database.check(str(db))

    steps = '\n'.join(database.recovery(str(db), err.value, str(reports)))
    assert f'cp {newest} {db}' in steps and first not in steps
    assert f'db import --db {db} {later}' in steps
    assert 'nightly.json' not in steps


def test_an_empty_file_and_a_foreign_database_are_damaged(tmp_path):
    empty = tmp_path / 'empty.db'
    empty.touch()
    with pytest.raises(database.DatabaseError, match='empty'):
        database.check(str(empty))

    foreign = tmp_path / 'foreign.db'
    with sqlite3.connect(foreign) as conn:
        conn.execute('CREATE TABLE t (x)')
    with pytest.raises(database.DatabaseError,
                       match='not a ReFrame results database'):
        database.check(str(foreign))


def test_backups_keep_the_newest_and_are_whole_databases(stored):
    db, _ = stored
    made = [database.backup(str(db), keep=2) for _ in range(3)]
    assert database.backups(str(db)) == made[1:]
    assert not os.path.exists(made[0])
    database.check(made[-1])
    assert database.stored(made[-1], SESSION)


def test_a_run_that_was_stored_passes_the_after_run_check(stored, capsys):
    db, reports = stored
    assert cli.main(['db', 'check', '--db', str(db), '--run',
                          str(reports / 'nightly.json')]) == 0


def test_a_run_that_was_not_stored_says_where_its_results_are(
        tmp_path, report, capsys):
    log = tmp_path / 'run.log'
    log.write_text('WARNING: failed to store results in the database: '
                   'database disk image is malformed\n')
    assert cli.main(['db', 'check', '--db', str(tmp_path / 'results.db'),
                          '--run', str(report), '--log', str(log)]) == 1
    err = capsys.readouterr().err
    assert f'session {SESSION}) is not in the results database' in err
    assert '(database disk image is malformed)' in err
    assert f'only in {report}' in err
    assert f'db import --db {tmp_path / "results.db"} {report}' in err


@pytest.fixture
def small_sqlite(monkeypatch):
    '''SQLite itself, holding at most 3,000 bytes in one value: less than
    one of the report's test case records (2 to 4 KB), so that no parts
    of it (..results.session_parts) can be stored either.'''
    sqlite_limit.limit(monkeypatch, 3_000)


def test_a_session_too_large_for_sqlite_is_refused_saying_so(
        tmp_path, report, small_sqlite, capsys):
    db = tmp_path / 'results.db'
    assert cli.main(['db', 'import', '--db', str(db), str(report)]) != 0
    err = capsys.readouterr().err
    assert (f'{report}: string or blob too big: ReFrame keeps a session\'s '
            f'whole report as one value, more than SQLite holds in one '
            f'value (3,000 bytes)') in err
    assert not database.stored(str(db), SESSION)


def test_after_a_run_too_large_to_store_no_import_is_offered(
        tmp_path, report, small_sqlite):
    db = tmp_path / 'results.db'
    _, _, [error] = database.store_validated(
        str(db), [(str(report), database.validated(str(report)))])
    log = tmp_path / 'reframe.log'
    log.write_text(f'WARNING: failed to store results in the database: '
                   f'{error}\n')
    ok, lines = database.run_check(str(db), str(report), str(log))
    assert not ok
    assert lines == [
        f'db: this run (session {SESSION}) is not in the results database '
        f'{db} ({error}); its results are only in {report}, which no '
        f'import can store either']


def test_a_node_s_line_in_the_log_is_no_word_on_what_was_stored(
        tmp_path, stored):
    '''A fleet night's log holds its nodes' skip lines: one that says a
    session was stored, or why it was not, is the node's text, not
    ReFrame's.'''
    db, _ = stored
    report = tmp_path / 'night.json'
    report.write_text('{"session_info": {"uuid": ')
    log = tmp_path / 'night.log'
    log.write_text(
        f'[      SKIP ] (1/2) n4: Current session stored with UUID: '
        f'{SESSION}\n'
        f'[      SKIP ] (2/2) n4: WARNING: failed to store results in the '
        f'database: all is well\n')
    assert database.run_check(str(db), str(report), str(log)) == (False, [
        f'db: this run\'s results are lost: its report {report} could not '
        f'be written and nothing was stored in {db}'])

    report.write_text(FIXTURE.read_text())
    with open(log, 'a') as fp:
        fp.write('WARNING: failed to store results in the database: '
                 'database is locked\n')
    ok, lines = database.run_check(str(tmp_path / 'other.db'), str(report),
                                   str(log))
    assert not ok and '(database is locked)' in lines[0]
