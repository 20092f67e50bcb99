'''A night too large for one value of the results database, stored as
parts and read back as the one session it was
(hpc_acceptance.tools.results.session_parts): real SQLite with its limit
on one value made small (it takes 1,000,000,000 bytes where built by
default), ReFrame's own storage, real and synthetic ReFrame reports.'''

import json
import math
import os
import shutil
import subprocess
import time

import pytest
from conftest import DATA_DIR, HPC_ACCEPTANCE

from helpers import fleet_cases, sqlite_limit
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.fleet import history
from hpc_acceptance.tools.results import database, runs, session_parts
from hpc_acceptance.tools.results.report_text import ReportText

#: ReFrame's JSON report of an acceptance run: 5 test case records of 2
#: to 4 KB, 23 KB in all.
FIXTURE = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'
SESSION = json.loads(FIXTURE.read_text())['session_info']['uuid']

#: More than the session's information and one record, less than two.
LARGEST = 9_000

#: A period holding the fixture's session and its test cases.
SINCE_2026 = '20260101:now'


def _shown(cases):
    return [(c['display_name'], c['result'], c['perfvalues'],
             len(c['earlier_attempts'])) for c in cases]


@pytest.fixture
def in_parts(tmp_path, monkeypatch):
    '''The fixture's report imported into a database whose SQLite holds at
    most :data:`LARGEST` bytes in one value; ``(database, report)``.'''
    report = tmp_path / 'nightly.json'
    shutil.copy(FIXTURE, report)
    db = tmp_path / 'results.db'
    assert sqlite_limit.imported(monkeypatch, report, db, LARGEST) == 0
    return str(db), str(report)


@pytest.mark.parametrize('size, largest, parts', [
    (0, 1000, 1), (500, 1000, 1), (501, 1000, 2), (1500, 1000, 3),
    (1001, 1001, 3), (10, 1, 10), (10, 2, 10), (10, 4, 5)])
def test_each_part_is_at_most_half_of_what_sqlite_holds(size, largest,
                                                         parts):
    assert session_parts.needed(size, largest) == parts


def _split(report, parts):
    '''``report`` split into ``parts``, each part the text the results
    database keeps, parsed.'''
    return [json.loads(part.stored()) for part in
            session_parts.split(ReportText.of(report), parts)]


def _retried_night(retried):
    '''6 test cases, the first ``retried`` retried.'''
    cases = fleet_cases.fleet(2, seed=3)[:6]
    retries = [json.loads(json.dumps(c)) for c in cases[:retried]]
    return fleet_cases.as_report(cases, retries, start=0,
                                 session=fleet_cases.session_id(5))


@pytest.mark.parametrize('retried, parts, records', [
    (2, 1, [8]), (2, 2, [4, 4]), (2, 3, [4, 2, 2]), (2, 4, [2, 2, 2, 2]),
    (2, 8, [2, 2, 1, 1, 1, 1]), (1, 3, [3, 3, 1])])
def test_a_night_is_split_into_whole_test_cases_of_about_a_share_each(
        retried, parts, records):
    '''In the order the test cases first ran, about as many records a
    part; a test case retried (two records) fills a share of two.'''
    made = _split(_retried_night(retried), parts)
    assert [sum(len(run['testcases']) for run in part['runs'])
            for part in made] == records


def test_a_report_larger_than_one_value_is_stored_in_parts_within_it(
        in_parts):
    db, _ = in_parts
    sizes = sqlite_limit.stored_sessions(db)
    assert len(sizes) > 1
    assert max(sizes.values()) <= LARGEST
    assert set(sizes) == {SESSION} | {session_parts.part_uuid(SESSION, i)
                                      for i in range(1, len(sizes))}
    assert database.stored(db, SESSION)


def test_a_night_in_parts_reads_back_as_the_one_session_it_was(
        in_parts, tmp_path):
    '''Every reader of the database gives what it gives of the same
    report stored whole.'''
    db, report = in_parts
    whole = str(tmp_path / 'whole.db')
    assert cli.main(['db', 'import', '--db', whole, report]) == 0
    assert len(sqlite_limit.stored_sessions(whole)) == 1

    def read(path):
        return (_shown(runs.session_testcases(SESSION, path)),
                _shown(runs.stored_testcases(SESSION, path)),
                # by period: ReFrame finds each record by its uuid
                _shown(runs.stored_testcases(SINCE_2026, path)),
                [{k: v for k, v in row.items() if k != session_parts.PARTS}
                 for row in runs.session_rows(SINCE_2026, path)],
                [(s['session_info']['uuid'], [c['display_name']
                                              for r in s['runs']
                                              for c in r['testcases']])
                 for s in database.session_reports(path, 0, time.time())],
                [(c['display_name'], c['session_uuid'])
                 for c in database.stored_cases(path, 0, time.time())])

    assert read(db) == read(whole)
    assert len(read(db)[0]) == 5
    assert [(row['UUID'], row[session_parts.PARTS]) for row in
            runs.session_rows(SINCE_2026, db)] == \
        [(SESSION, str(len(sqlite_limit.stored_sessions(db))))]


def test_a_test_case_s_attempts_stay_in_one_part(tmp_path, monkeypatch):
    '''A test case retried (its second attempt in the second run) is one
    test case read back, its failed attempt kept as an earlier one.'''
    cases = fleet_cases.fleet(4, seed=2)
    first = cases[5]
    retry = json.loads(json.dumps(first))
    first.update(result='fail', fail_reason='triad below its reference')
    start = time.time() - 3600
    report = fleet_cases.as_report(cases, [retry], start=start,
                                   session=fleet_cases.session_id(7))
    path = tmp_path / 'fleet.json'
    path.write_text(json.dumps(report))
    db = str(tmp_path / 'results.db')
    assert sqlite_limit.imported(monkeypatch, path, db,
                                 os.path.getsize(path) // 2) == 0

    assert len(sqlite_limit.stored_sessions(db)) > 2
    read = runs.session_testcases(fleet_cases.session_id(7), db)
    assert _shown(read) == _shown(runs.final_testcases(report))
    (retried,) = [c for c in read if c['earlier_attempts']]
    assert retried['display_name'] == first['display_name']
    assert retried['earlier_attempts'][0]['result'] == 'fail'


def test_a_night_whose_text_encodes_longer_than_its_file_is_still_stored(
        tmp_path, monkeypatch):
    '''A node's reason in emoji, in test cases of a time of NaN: 4
    bytes each in the file, 12 as Python's json escapes them, which writes
    them (orjson writes no NaN, :mod:`..results.json_text`). The parts its
    size on disk asks for are too large; twice as many are stored, and
    read back whole.'''
    report = json.loads(FIXTURE.read_text())
    for case in report['runs'][0]['testcases']:
        case.update(fail_reason='\U0001F600' * 3000, time_total=float('nan'))
    path = tmp_path / 'nightly.json'
    path.write_text(json.dumps(report, ensure_ascii=False))
    largest = 100_000
    assert session_parts.needed(os.path.getsize(path), largest) == 2
    assert max(len(part.stored().encode()) for part in session_parts.split(
        ReportText.of(database.validated(str(path))), 2)) > largest
    db = str(tmp_path / 'results.db')
    assert sqlite_limit.imported(monkeypatch, path, db, largest) == 0

    assert len(sqlite_limit.stored_sessions(db)) > 2
    read = runs.session_testcases(SESSION, db)
    assert [c['fail_reason'] for c in read] == ['\U0001F600' * 3000] * 5
    assert all(math.isnan(c['time_total']) for c in read)


def test_a_night_is_stored_whole_or_not_at_all(tmp_path, monkeypatch,
                                               capsys):
    '''Its last record larger than SQLite holds in one value: the parts
    before it, which fit, are not stored either.'''
    report = json.loads(FIXTURE.read_text())
    report['runs'][0]['testcases'][-1]['fail_reason'] = 'x' * LARGEST
    path = tmp_path / 'nightly.json'
    path.write_text(json.dumps(report))
    db = tmp_path / 'results.db'
    assert sqlite_limit.imported(monkeypatch, path, db, LARGEST) != 0
    assert f'more than SQLite holds in one value ({LARGEST:,} bytes)' in \
        capsys.readouterr().err
    assert sqlite_limit.stored_sessions(db) == {}


def test_earlier_fleet_nights_in_parts_are_each_one_earlier_run(
        tmp_path, monkeypatch):
    '''Three earlier nights, each stored in parts, are three earlier runs
    of 8 nodes (not a run a part), and a night that lost half is judged
    against their median.'''
    db = tmp_path / 'results.db'
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(db))
    night = float(int(time.time() - 10 * 86400))

    def stored(number, cases):
        when = night + number * 86400
        for case in cases:
            case['job_completion_time_unix'] = when + 1
        report = fleet_cases.as_report(
            cases, session=fleet_cases.session_id(number), start=when,
            extras={'fleet': 'yes'})
        path = tmp_path / f'fleet-{number}.json'
        path.write_text(json.dumps(report))
        assert sqlite_limit.imported(monkeypatch, path, db,
                                     os.path.getsize(path) // 2) == 0
        return str(path), when

    for number in range(1, 4):
        stored(number, fleet_cases.fleet(8, seed=number))
    assert len(sqlite_limit.stored_sessions(db)) > 3 * 3

    slow = fleet_cases.fleet(8, seed=9, slow={
        f'n{i}': (0.5, ('StreamCheck',)) for i in range(1, 9)})
    path, when = stored(4, slow)
    earlier = history.earlier_runs(
        fleet_cases.session_id(4),
        time.strftime('%Y%m%dT%H%M%S+0000', time.gmtime(when)),
        db_path=str(db))
    assert [len({c['node'] for c in run}) for run in earlier] == [8, 8, 8]

    done = subprocess.run([str(HPC_ACCEPTANCE), 'verdict', path, '0'],
                          capture_output=True, text=True,
                          env=dict(os.environ))
    assert done.returncode == 1, done.stdout + done.stderr
    assert '(median of 3)' in done.stdout + done.stderr


@pytest.mark.parametrize('key', [session_parts.PART_OF,
                                 session_parts.PARTS])
def test_a_report_that_calls_itself_a_part_is_refused_at_the_door(
        tmp_path, key, capsys):
    '''Imported, a session naming another night in ``part_of`` would be
    read as part of it (its test cases in that night's export).'''
    first = tmp_path / 'nightly.json'
    shutil.copy(FIXTURE, first)
    db = tmp_path / 'results.db'
    assert cli.main(['db', 'import', '--db', str(db), str(first)]) == 0
    report = json.loads(FIXTURE.read_text())
    report['session_info'].update(uuid=session_parts.part_uuid(SESSION, 1),
                                  **{key: SESSION})
    forged = tmp_path / 'forged.json'
    forged.write_text(json.dumps(report))

    assert cli.main(['db', 'import', '--db', str(db), str(forged)]) != 0
    assert (f'cannot read the run report {forged}: session_info: {key!r} '
            f'is the results database\'s own') in capsys.readouterr().err
    assert list(sqlite_limit.stored_sessions(db)) == [SESSION]
    done = subprocess.run([str(HPC_ACCEPTANCE), 'verdict', str(forged), '0'],
                          capture_output=True, text=True)
    assert done.returncode == 3



def test_a_fleet_night_in_parts_is_left_out_of_the_nightly_baseline(
        tmp_path, monkeypatch):
    '''A fleet night carries ``suite_mode=nightly`` too; stored in parts,
    none of its test cases widens the post-upgrade nightly baseline (each
    record keeps the night's session UUID, which the baseline leaves
    out), and it is one fleet run left out.'''
    from hpc_acceptance.tools.upgrade import baseline

    report = fleet_cases.as_report(
        fleet_cases.fleet(6, seed=5), session=fleet_cases.session_id(9),
        start=time.time() - 86400,
        extras={'fleet': 'yes', 'suite_mode': 'nightly'})
    path = tmp_path / 'fleet.json'
    path.write_text(json.dumps(report))
    db = str(tmp_path / 'results.db')
    assert sqlite_limit.imported(monkeypatch, path, db,
                                 os.path.getsize(path) // 2) == 0
    assert len(sqlite_limit.stored_sessions(db)) > 2

    nightly = baseline.nightly_runs(db_path=db)
    assert nightly.cases == []
    assert nightly.notes == ['1 fleet run(s) left out of the nightly '
                             'baseline']
