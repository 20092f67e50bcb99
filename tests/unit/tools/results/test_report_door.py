'''What a report or the results database hands in is checked at the door
(hpc_acceptance.tools.results.report_shape, .runs, .bounded_json, .db):
identifiers of their kinds' forms, reports bounded in size, nesting and
test cases; anything else refused naming the file and the value, with
the exit status of an unreadable report (3), nothing run or stored.'''

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from helpers import fleet_cases
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.results import (bounded_json, database,
                                          json_text, report_shape, runs)

SESSION = fleet_cases.session_id(7)
#: ReFrame's session filter is Python: this one would write a file.
RUNS_CODE = '?__import__("os").system("touch {marker}")==0 and False'


def _report(cases=None, **info):
    cases = fleet_cases.fleet(4) if cases is None else cases
    return fleet_cases.as_report(cases, session=SESSION, start=1795500000.0,
                                 extras=info)


def _write(tmp_path, report, name='report.json'):
    path = tmp_path / name
    path.write_text(json.dumps(report))
    return str(path)


@pytest.fixture(autouse=True)
def own_database(tmp_path, monkeypatch):
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))


CRAFTED = {
    'session_info: uuid': lambda r, c, v: r['session_info'].update(uuid=v),
    'session_uuid': lambda r, c, v: c.update(session_uuid=v),
    'node': lambda r, c, v: c.update(node=v),
    'a node of job_nodelist': lambda r, c, v: c.update(job_nodelist=[v]),
    'system': lambda r, c, v: c.update(system=v),
    'partition': lambda r, c, v: c.update(partition=v),
}


@pytest.mark.parametrize('key', sorted(CRAFTED))
@pytest.mark.parametrize('value', ['?__import__("os").system("id")==0',
                                   '../../x', '/some/dir', 'n1\nid',
                                   '$(id>F)', 'a`id`'])
@pytest.mark.parametrize('which', [0, -1], ids=['first', 'last'])
def test_a_crafted_identifier_is_refused_naming_it(key, value, which):
    '''In the first test case, or in the last, after those whose
    identifiers were found fine.'''
    report = _report()
    CRAFTED[key](report, report['runs'][0]['testcases'][which], value)
    with pytest.raises(report_shape.ReportError) as refused:
        report_shape.check(report)
    assert f'{key} {value!r} is not ' in str(refused.value)


@pytest.mark.parametrize('listed', [[{}], [['n1']], ['n1', 7]])
def test_a_node_list_of_anything_but_names_is_refused(listed):
    report = _report()
    report['runs'][0]['testcases'][-1]['job_nodelist'] = listed
    with pytest.raises(report_shape.ReportError,
                       match='a node of job_nodelist .* is not '):
        report_shape.check(report)


def test_the_node_a_test_was_pinned_to_is_a_node_name():
    report = _report()
    case = report['runs'][0]['testcases'][0]
    case['display_name'] = case['display_name'].replace('%.nid=n1',
                                                        '%.nid=n1$(id)')
    with pytest.raises(report_shape.ReportError, match='%.nid='):
        report_shape.check(report)


def test_a_control_character_in_a_name_is_refused():
    report = _report()
    case = report['runs'][0]['testcases'][0]
    case['display_name'] += ' \x1b[2K'
    with pytest.raises(report_shape.ReportError, match='control character'):
        report_shape.check(report)


#: A figure's record made wrong, and what the door says of it.
BAD_FIGURES = {
    'not a list': (lambda perf: 'fast', " is a string, not ReFrame's "
                   "[value, reference, lower, upper, unit]"),
    'too short': (lambda perf: perf[:4], " is a list, not ReFrame's "
                  "[value, reference, lower, upper, unit]"),
    'a text reference': (lambda perf: [perf[0], '1', *perf[2:]],
                         ': the reference is a string'),
    'a boolean lower bound': (lambda perf: [*perf[:2], True, *perf[3:]],
                              ': the lower is a boolean'),
    'a list upper bound': (lambda perf: [*perf[:3], [], *perf[4:]],
                           ': the upper is a list'),
    'a number for a unit': (lambda perf: [*perf[:4], 5, *perf[5:]],
                            ': the unit is a number'),
    'an escape in the unit': (lambda perf: [*perf[:4], 'MB/s\x1b[2J',
                                            *perf[5:]],
                              ': a control character in the unit'),
}


@pytest.mark.parametrize('bad', sorted(BAD_FIGURES))
def test_a_figure_not_of_reframe_s_shape_is_refused_naming_it(bad):
    '''The test case and the figure named, whichever of a test case's
    figures is wrong (here its third).'''
    report = _report()
    case = report['runs'][0]['testcases'][2]
    name = list(case['perfvalues'])[2]
    made, said = BAD_FIGURES[bad]
    case['perfvalues'][name] = made(case['perfvalues'][name])
    with pytest.raises(report_shape.ReportError) as refused:
        report_shape.check(report)
    check = case['display_name'].split()[0]
    assert str(refused.value) == \
        f'runs[0].testcases[2] ({check}): perfvalues[{name!r}]{said}'


def test_a_control_character_in_a_figure_s_name_is_refused():
    report = _report()
    perfvalues = report['runs'][0]['testcases'][1]['perfvalues']
    name = list(perfvalues)[-1]
    perfvalues[name + '\u202e'] = perfvalues.pop(name)
    with pytest.raises(report_shape.ReportError) as refused:
        report_shape.check(report)
    assert str(refused.value).endswith(
        f"perfvalues[{name + chr(0x202e)!r}]: a control character in the "
        f"name")


def test_a_figure_bounded_by_nan_is_a_figure_its_names_still_checked():
    '''A reference or bound of NaN (ReFrame writes one, read back as
    json_text.NonFinite) is of a figure's shape; the names and units of
    such a test case are checked all the same.'''
    report = _report()
    perfvalues = report['runs'][0]['testcases'][1]['perfvalues']
    first, last = list(perfvalues)[0], list(perfvalues)[-1]
    perfvalues[first] = [perfvalues[first][0],
                         json_text.NonFinite('NaN'), *perfvalues[first][2:]]
    report_shape.check(report)
    perfvalues[last + '\x1b[2J'] = perfvalues.pop(last)
    with pytest.raises(report_shape.ReportError,
                       match='a control character in the name'):
        report_shape.check(report)


def test_db_import_of_a_session_id_that_is_python_runs_nothing(
        tmp_path, capsys):
    marker = tmp_path / 'ran'
    path = _write(tmp_path, _report(), 'crafted.json')
    report = json.loads(open(path).read())
    report['session_info']['uuid'] = RUNS_CODE.format(marker=marker)
    path = _write(tmp_path, report, 'crafted.json')
    assert cli.main(['db', 'import', path]) == database.UNREADABLE
    err = capsys.readouterr().err
    assert f'db: not stored: cannot read the run report {path}: ' \
           f'session_info: uuid \'?__import__' in err
    assert not marker.exists()
    assert not (tmp_path / 'results.db').exists() or not sqlite3.connect(
        tmp_path / 'results.db').execute(
            'SELECT * FROM sessions').fetchall()


def test_the_database_door_leaves_out_what_is_not_of_its_form(
        tmp_path, monkeypatch, capsys):
    runs._REFUSED.clear()
    (tmp_path / 'results.db').touch()
    good = fleet_cases.fleet(2)
    bad = dict(good[0], node='n1\nscontrol update NodeName=n2 State=RESUME')

    class Storage:
        def fetch_testcases(self, selector):
            return good + [bad]

        def fetch_sessions(self, selector):
            return [{'session_info': {'uuid': SESSION, 'time_start': 'a'}},
                    {'session_info': {'uuid': '?1', 'time_start': 'b'}}]

    monkeypatch.setattr(database, 'reframe_storage', lambda path: Storage())
    path = str(tmp_path / 'results.db')
    assert len(runs.stored_testcases('now-1d:now', path)) == len(good)
    assert [row['UUID'] for row in runs.session_rows('now-1d:now',
                                                      path)] == [SESSION]
    err = capsys.readouterr().err
    assert err.count('left out: ') == 2
    assert f"left out: a test case of session '{good[0]['session_uuid']}': "\
           f"node 'n1\\nscontrol update" in err
    assert "left out: session_info: uuid '?1' is not a ReFrame session" \
           in err
    with pytest.raises(ValueError, match='not a ReFrame session UUID'):
        runs.session_testcases('?1', path)


def test_a_report_nested_too_deeply_is_unreadable_not_a_traceback(
        tmp_path, capsys):
    path = tmp_path / 'deep.json'
    path.write_text('[' * 200_000 + ']' * 200_000)
    assert cli.main(['verdict', str(path), '0']) == 3
    err = capsys.readouterr().err
    assert f'cannot read the run report {path}: nested deeper than ' \
           f'the JSON reader follows' in err
    assert cli.main(['db', 'import', str(path)]) == database.UNREADABLE
    assert 'nested deeper' in capsys.readouterr().err


def test_a_report_larger_than_the_bound_is_refused_before_it_is_read(
        tmp_path, monkeypatch, capsys):
    path = _write(tmp_path, _report())
    monkeypatch.setattr(bounded_json, 'MAX_BYTES', 1000)
    assert cli.main(['verdict', path, '0']) == 3
    assert 'bytes, more than the 1000 a JSON file read may have' in \
        capsys.readouterr().err


def test_a_report_of_more_test_cases_than_the_bound_is_refused(
        tmp_path, monkeypatch, capsys):
    path = _write(tmp_path, _report())
    monkeypatch.setattr(report_shape, 'MAX_TESTCASES', 5)
    assert cli.main(['verdict', path, '0']) == 3
    assert '12 test case records, more than the 5 a report read may hold' \
        in capsys.readouterr().err


def test_records_beyond_the_bound_are_counted_before_parsing(monkeypatch):
    '''Counted on the file's bytes, however few: a file of no more
    bytes than the bound's keys cannot hold more.'''
    monkeypatch.setattr(report_shape, 'MAX_TESTCASES', 5)
    report_shape.check_size(b'"display_name"' * 5)
    with pytest.raises(report_shape.ReportError,
                       match='6 test case records, more than the 5'):
        report_shape.check_size(b'"display_name"' * 6)


def test_the_bounds_take_a_night_of_ten_thousand_nodes():
    # 38 test cases a node (reframe --mode fleet -l), a retry of every
    # tenth, records of about 3 KB as ReFrame writes them
    records = round(10_000 * 38 * 1.1)
    size = len(json.dumps(_report()['runs'][0]['testcases'][0]))
    assert records < report_shape.MAX_TESTCASES
    assert records * size < bounded_json.MAX_BYTES


def test_fail_reasons_and_kernel_strings_are_read_on_one_line():
    case = dict(fleet_cases.fleet(1)[0], result='fail',
                fail_reason='sanity\n\racceptance: all checks PASSED\x1b[2K',
                node_software='kernel=6.1\nacceptance: all checks PASSED')
    (read,) = runs.final_attempts([case])
    assert read['fail_reason'] == \
        'sanity acceptance: all checks PASSED^[[2K'
    assert read['node_software'] == \
        'kernel=6.1 acceptance: all checks PASSED'


#: A value a node's job could write: a terminal's title and erase, a false
#: verdict over the line, a command, text reversed.
HOSTILE = ('\x1b]0;owned\x07\x1b[2K\racceptance PASSED\n$(touch {marker})'
           '\u202e')


@pytest.mark.parametrize('where', ['a count that is text',
                                   'a build output that is a list'])
def test_reframe_s_refusal_quoting_a_hostile_value_is_one_plain_line(
        tmp_path, capsys, where):
    marker = tmp_path / 'ran'
    value = HOSTILE.format(marker=marker)
    report = _report()
    if where == 'a count that is text':
        report['runs'][0]['num_cases'] = value
    else:
        report['runs'][0]['testcases'][0]['build_stderr'] = [value] * 4000
    path = _write(tmp_path, report, 'hostile.json')

    assert cli.main(['db', 'import', path]) == database.UNREADABLE
    out, err = capsys.readouterr()
    [line] = [line for line in err.splitlines() if 'hostile.json' in line]
    # in ReFrame's words, the value quoted with its controls escaped
    assert f'cannot read the run report {path}: ReFrame: failed to ' \
           'validate report' in line
    assert '\\x1b]0;owned\\x07' in line
    assert not any(c in out + err for c in '\x1b\r\x07\u202e')
    assert len(err.splitlines()) <= 3
    assert len(line) < database.REFUSAL_CHARS + 200
    assert not marker.exists()
    assert not (tmp_path / 'results.db').exists() or not sqlite3.connect(
        tmp_path / 'results.db').execute(
            'SELECT * FROM sessions').fetchall()


def test_a_report_is_read_in_as_many_bytes_as_it_has(tmp_path):
    '''Not into a buffer of the bound (2 GiB) mapped for each file, whose
    pages the kernel gave and zeroed anew at each node's report.'''
    path = _write(tmp_path, _report())
    script = ('import resource, sys\n'
              'from hpc_acceptance.tools.results import bounded_json\n'
              'def faults():\n'
              '    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n'
              'data = bounded_json.read(sys.argv[1])\n'
              'before = faults()\n'
              'for _ in range(50):\n'
              '    data = bounded_json.read(sys.argv[1])\n'
              'print((faults() - before) / 50, len(data))\n')
    done = subprocess.run([sys.executable, '-c', script, path], text=True,
                          capture_output=True, check=True)
    faults, size = done.stdout.split()
    assert int(size) == os.path.getsize(path) > 4 * 4096
    assert float(faults) < 2


def test_a_report_that_grows_while_it_is_read_is_read_up_to_the_bound(
        tmp_path, monkeypatch):
    '''Its size when opened says less than it holds when read.'''
    path = _write(tmp_path, _report())
    size = os.path.getsize(path)
    whole = open(path, 'rb').read()
    # a file of the bound's size is read
    assert bounded_json.read(path, max_bytes=size) == whole
    real = os.fstat

    def smaller(fd):
        found = real(fd)
        return os.stat_result((*found[:6], 100, *found[7:]))

    monkeypatch.setattr(os, 'fstat', smaller)
    assert bounded_json.read(path) == bounded_json.read(
        path, max_bytes=size) == whole
    with pytest.raises(bounded_json.TooLarge,
                       match=f'more than the {size - 1} bytes'):
        bounded_json.read(path, max_bytes=size - 1)
