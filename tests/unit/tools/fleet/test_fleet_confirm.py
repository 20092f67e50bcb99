'''The rerun of a fleet run's suspects before they are named
(hpc_acceptance.tools.fleet.confirm), and the run read with its rerun.'''

import copy
import json

import pytest

from helpers import fleet_cases
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.fleet import fleet_run
from hpc_acceptance.tools.fleet.confirm import without_names
from hpc_acceptance.tools.outcome import acceptance_verdict as verdict
from hpc_acceptance.tools.outcome import finished_run

SESSION = '00000000-0000-4000-8000-000000000001'


@pytest.fixture(autouse=True)
def empty_results_database(tmp_path, monkeypatch):
    '''The test's own results database, which does not exist: its path,
    given to what reads it here and named to the commands.'''
    path = str(tmp_path / 'results.db')
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', path)
    return path


def _write(tmp_path, name, *runs):
    path = tmp_path / f'{name}.json'
    path.write_text(json.dumps(fleet_cases.as_report(
        *runs, session=SESSION, start=1795500000.0,
        extras={'fleet': 'yes'})))
    return str(path)


def _slow_n3():
    cases = fleet_cases.fleet(6, slow={'n3': (0.6, ('StreamCheck',))})
    failed = next(c for c in cases if c['node'] == 'n5' and
                  c['display_name'].startswith('MemoryDaxpy'))
    failed.update(result='fail', fail_reason='did not validate')
    return cases


def test_the_suspects_checks_are_rerun_on_their_nodes_alone(
        tmp_path, empty_results_database):
    report = _write(tmp_path, 'fleet', _slow_n3())
    nodes = tmp_path / 'nodes.json'
    nodes.write_text(json.dumps({'cluster:compute': {
        'state': 'idle', 'covered': [f'n{i}' for i in range(1, 7)],
        'left_out': [{'node': 'n7', 'state': 'DRAIN', 'reason': 'x'}]}}))
    args = fleet_run.rerun_args(report, str(nodes), 'idle', [
        '-n', 'Stream', '--system', 'cluster', '-J', 'reservation=maint'],
        empty_results_database)
    assert args[:6] == ['--mode', 'fleet', '--distribute=idle',
                        f'--session-extras=fleet=confirm,fleet_confirms='
                        f'{SESSION}', '--max-retries=0', '-r']
    # the run's own name selection would add to the rerun's: left out
    assert args[6:12] == ['--system', 'cluster', '-J', 'reservation=maint',
                          '-J', 'exclude=n[1-2,4,6-7]']
    names = [args[i + 1] for i, a in enumerate(args) if a == '-n']
    assert names == [
        '^MemoryDaxpyCheck%isa=native%turbo=as\\-configured%smt=as\\-'
        'configured%threads=single$',
        '^StreamCheck%isa=native%turbo=as\\-configured%smt=as\\-'
        'configured%threads=single$']


def test_a_quiet_fleet_needs_no_rerun(tmp_path, empty_results_database):
    report = _write(tmp_path, 'fleet', fleet_cases.fleet(6))
    assert fleet_run.rerun_args(report, str(tmp_path / 'none.json'), 'idle',
                                [], empty_results_database) == []


def test_a_node_within_the_fleet_on_its_rerun_is_not_named(
        tmp_path, capsys, empty_results_database):
    cases = _slow_n3()
    first = _write(tmp_path, 'fleet', cases)
    quiet = fleet_cases.fleet(6)
    rerun = [copy.deepcopy(c) for c in quiet if c['node'] in ('n3', 'n5')
             and c['display_name'].startswith(('StreamCheck',
                                               'MemoryDaxpy'))]
    confirm = _write(tmp_path, 'confirm', rerun)
    assert cli.main(['suspects', '--run-report', first, '--run-report',
                     confirm]) == 0
    text = capsys.readouterr().out
    assert 'cluster:compute: 0 suspect node(s) of 6' in text
    assert 'passed only when retried: n5: MemoryDaxpyCheck' in text
    assert ('within the fleet on its rerun: n3: StreamCheck %threads=single'
            ' copy ' in text)
    status, message = verdict.verdict_of(
        finished_run.read([(first, 0), (confirm, 0)],
                          db_path=empty_results_database))
    assert status == 0 and 'passed only when retried: MemoryDaxpyCheck' \
        in message


def test_names_are_left_out_in_every_spelling():
    assert without_names(
        ['-n', 'A', '--name', 'B', '--name=C', '-nD', '--nocolor', '-S',
         'x=1']) == ['--nocolor', '-S', 'x=1']
