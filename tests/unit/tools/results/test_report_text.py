'''A run report held as the JSON text of its records
(tools/results/report_text): written as the report it is, each record
under the uuid it has where it is written, its session first where
ReFrame's database looks; stored in the results database as ReFrame
stores a run, and read back by ReFrame.'''

import json
import math
import sqlite3
import tracemalloc

from conftest import DATA_DIR
from hpc_acceptance.tools.results import database, json_text, runs
from hpc_acceptance.tools.results.report_text import Record, ReportText

FIXTURE = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'


def _joined(text):
    return json.loads(''.join(text.chunks()))


def test_a_report_as_text_is_the_report_it_was():
    report = json.loads(FIXTURE.read_text())
    text = ReportText.of(report)
    assert report == json.loads(FIXTURE.read_text()), 'the report changed'
    assert _joined(text) == report
    assert json.loads(text.stored()) == report
    assert [json.loads(record.json()) for record in text.records()] == \
        [case for run in report['runs'] for case in run['testcases']]


def test_a_record_without_a_uuid_stays_without_and_a_null_stays_null():
    '''ReFrame's schema asks no record for a ``uuid``.'''
    report = {'session_info': {'uuid': 's'}, 'runs': [
        {'run_index': 0, 'testcases': [{'name': 'a'}, {'uuid': None},
                                       {'uuid': 'u', 'name': 'b'}]},
        {'testcases': []}, {}], 'restored_cases': []}
    report['runs'][2] = {'testcases': [{}]}
    assert _joined(ReportText.of(report)) == report


def test_a_record_placed_under_another_uuid_shares_its_text():
    record = Record({'uuid': 'night:0:3', 'display_name': 'a', 'system': 's',
                     'result': 'pass'})
    placed = record.placed('part:0:0')
    assert placed.body is record.body
    assert json.loads(placed.json()) == {'uuid': 'part:0:0', 'display_name':
                                         'a', 'system': 's', 'result': 'pass'}
    assert json.loads(record.json())['uuid'] == 'night:0:3'
    assert placed.key() == record.key() == ('a', 's', None, None)


def test_a_record_s_test_case_is_told_as_a_parsed_record_s():
    '''The night's counts take each test case's last record as text, as
    the tools take a parsed one's.'''
    attempts = [{'display_name': name, 'system': 's', 'partition': part,
                 'environ': env, 'result': result}
                for name, part, env, result in [
                    ('A', 'p', 'e', 'fail'), ('A', 'q', 'e', 'pass'),
                    ('A', 'p', 'f', 'skip'), ('A', 'p', 'e', 'abort'),
                    ('B', 'p', None, 'fail')]]
    records = [Record(case) for case in attempts]
    assert [r.result for r in runs.last_records(records, key=Record.key)] \
        == [c['result'] for c in runs.last_records(attempts)] == \
        ['abort', 'pass', 'skip', 'fail']


def test_a_figure_of_nan_is_written_as_nan_in_its_record_alone():
    report = json_text.loads(b'{"session_info": {"uuid": "s"}, "runs": '
                             b'[{"testcases": [{"time_total": NaN, "r": '
                             b'"\xc3\xbc"}, {"r": "\xc3\xbc"}]}]}')
    text = ReportText.of(report)
    first, second = (record.json() for record in text.records())
    assert first == '{"time_total":NaN,"r":"\\u00fc"}'
    assert second == '{"r":"ü"}'
    (run,) = json.loads(text.stored())['runs']
    assert math.isnan(run['testcases'][0]['time_total'])


def test_a_record_s_text_holds_no_more_memory_than_its_own_size():
    '''orjson's text holds the buffer it grew to write it, 32 KB for a
    5 KB record: a night of 400,000 records held 12 GB of them.'''
    case = json.loads(FIXTURE.read_text())['runs'][0]['testcases'][0]
    size = len(json_text.encoded(case))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        held = [Record(case) for _ in range(100)]
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(held) == 100 and grown < 100 * (size + 1000)


def test_a_report_is_stored_with_its_session_first_as_reframe_finds_it():
    '''ReFrame finds a session's info by the first ``"session_info": {``
    with a space: one a test case's text spells, before it, would be
    taken for the session's.'''
    report = {'runs': [{'testcases': [{'fail_reason':
                                       '"session_info": {"uuid": "x"}'}]}],
              'session_info': {'uuid': 'u', 'nested': {'a': 1}}}
    text = ReportText.of(report).stored()
    assert text.startswith('{"session_info": {"uuid":"u"')
    assert json.loads(text) == report
    assert ReportText({'session_info': {}, 'runs': []}, []).stored() == \
        '{"session_info": {},"runs":[]}'




def _rows(path):
    conn = sqlite3.connect(path)
    try:
        sessions = [row[:3] + (json.loads(row[3]), row[4]) for row in
                    conn.execute('SELECT * FROM sessions')]
        return sessions, conn.execute('SELECT * FROM testcases').fetchall()
    finally:
        conn.close()


def test_a_run_is_stored_as_reframe_stores_it_and_read_back_by_reframe(
        tmp_path):
    '''Our insert beside ReFrame's own (``store``): the same rows, the same
    report in them, and ReFrame's own readers read ours.'''
    from reframe.frontend.reporting.utility import QuerySelectorTestcase

    report = json.loads(FIXTURE.read_text())
    report['runs'][0]['testcases'][0]['fail_reason'] = 'ünïcode 😀'
    theirs, ours = str(tmp_path / 'theirs.db'), str(tmp_path / 'ours.db')
    database.reframe_storage(theirs).store(report, '/r.json')
    storage = database.reframe_storage(ours)
    assert database.store_validated(ours, [('/r.json', report)]) == \
        (['/r.json'], [], [])
    assert _rows(ours) == _rows(theirs)

    uuid = report['session_info']['uuid']
    (session,) = storage.fetch_sessions(QuerySelectorTestcase(uuid=uuid))
    assert session == report
    (session,) = storage.fetch_sessions(QuerySelectorTestcase(
        sess_filter=f'uuid=="{uuid}"'))
    assert session['session_info'] == report['session_info']
    cases = storage.fetch_testcases(QuerySelectorTestcase(uuid=uuid))
    assert [c['display_name'] for c in cases] == \
        [c['display_name'] for c in report['runs'][0]['testcases']]
