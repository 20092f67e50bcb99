'''hpc-acceptance suspects: its formats and its drain lines, on synthetic
fleet runs (tests/helpers/fleet_cases.py).'''

import json
import shlex

import pytest

from helpers import fleet_cases
from helpers.fleet_cases import SESSION
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.fleet.suspect_drains import drain_commands


@pytest.fixture(autouse=True)
def empty_results_database(tmp_path, monkeypatch):
    '''The previous fleet run is looked up in a database of the test's
    own, empty: never in the checkout's var/.'''
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))


def _report(tmp_path, cases):
    path = tmp_path / 'report.json'
    path.write_text(json.dumps({'session_info': {'fleet': 'yes',
                                                 'uuid': SESSION},
                                'runs': [{'testcases': cases}]}))
    return str(path)


def _slow_fleet():
    return fleet_cases.fleet(6, slow={'n5': (0.6, ('StreamCheck',))},
                             when=1795500000.0)


def test_slurm_format_prints_one_drain_line_per_suspect(tmp_path, capsys):
    status = cli.main(['suspects', '--run-report',
                       _report(tmp_path, _slow_fleet()), '--format', 'slurm'])
    assert status == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("scontrol update NodeName=n5 State=DRAIN "
                           "'Reason=hpc-acceptance: 2026-11-24 StreamCheck "
                           "%threads=single ")
    assert line.endswith("% vs fleet median (+4 more)'")
    assert shlex.split(line)[:4] == ['scontrol', 'update', 'NodeName=n5',
                                     'State=DRAIN']


def test_text_names_the_suspect_and_json_carries_its_figures(tmp_path,
                                                             capsys):
    report = _report(tmp_path, _slow_fleet())
    assert cli.main(['suspects', '--run-report', report]) == 1
    text = capsys.readouterr().out
    assert 'cluster:compute: 1 suspect node(s) of 6:' in text
    assert '\n  n5: StreamCheck %threads=single ' in text
    assert cli.main(['suspects', '--run-report', report, '--format', 'json']) == 1
    (partition,) = json.loads(capsys.readouterr().out)['partitions']
    (suspect,) = partition['suspects']
    assert suspect['node'] == 'n5' and len(suspect['figures']) == 5
    assert all(f['change'] < -0.5 for f in suspect['figures'])


def test_a_quiet_fleet_exits_0(tmp_path, capsys):
    report = _report(tmp_path, fleet_cases.fleet(6))
    assert cli.main(['suspects', '--run-report', report, '--format', 'slurm']) == 0
    assert capsys.readouterr().out.strip() == ''


def test_a_run_on_one_node_is_not_a_fleet_run(tmp_path, capsys):
    report = _report(tmp_path, fleet_cases.fleet(1))
    assert cli.main(['suspects', '--run-report', report]) == 2
    assert 'not a fleet run' in capsys.readouterr().err


def test_the_nodes_left_out_are_listed(tmp_path, capsys):
    nodes = tmp_path / 'nodes.json'
    nodes.write_text(json.dumps({'cluster:compute': {
        'state': 'idle', 'covered': ['n1'],
        'left_out': [{'node': 'n9', 'state': 'DRAIN+IDLE',
                      'reason': 'memory errors'}]}}))
    report = _report(tmp_path, fleet_cases.fleet(6))
    assert cli.main(['suspects', '--run-report', report, '--nodes',
                     str(nodes)]) == 0
    assert ('cluster:compute: left out: n9 (drain+idle: memory errors)'
            in capsys.readouterr().out)


def test_a_failure_is_the_drain_reason_before_any_figure():
    cases = _slow_fleet()
    failed = next(c for c in cases if c['node'] == 'n5' and
                  c['display_name'].startswith('MemoryDaxpy'))
    failed['result'] = 'fail'
    (partition,) = comparison.compare(cases)
    (command,) = drain_commands([partition], '2026-11-24')
    assert command[:4] == ['scontrol', 'update', 'NodeName=n5',
                           'State=DRAIN']
    assert command[4] == ('Reason=hpc-acceptance: 2026-11-24 failed '
                          'MemoryDaxpyCheck %threads=single (+5 more)')


def test_a_bad_floor_is_refused_naming_the_option(tmp_path, capsys):
    report = _report(tmp_path, fleet_cases.fleet(6))
    try:
        cli.main(['suspects', '--run-report', report, '--floor', 'Disk=2'])
    except SystemExit as stop:
        assert stop.code == 2

    assert "--floor: 'Disk=2': unknown family 'Disk'" in \
        capsys.readouterr().err


def test_a_check_that_failed_on_every_node_fails_naming_it(tmp_path,
                                                           capsys):
    '''"0 suspect node(s)", exit 0 was what it said: the check's failure
    is a finding of the partition, also where nothing else could be
    compared.'''
    report = _report(tmp_path, fleet_cases.fleet(6, result='fail'))
    assert cli.main(['suspects', '--run-report', report]) == 1
    assert ('cluster:compute: StreamCheck %threads=single failed on 6 of '
            '6 node(s) (n1, n2, n3, n4, n5, n6): validation failed') in \
        capsys.readouterr().out
    cases = fleet_cases.fleet(6)
    for case in cases:
        if case['display_name'].startswith('StreamCheck'):
            case.update(result='fail')
    assert cli.main(['suspects', '--run-report', _report(tmp_path, cases)]) \
        == 1


def test_a_report_without_its_session_is_refused(tmp_path, capsys):
    path = tmp_path / 'report.json'
    path.write_text(json.dumps({'session_info': {'fleet': 'yes'},
                                'runs': [{'testcases': _slow_fleet()}]}))
    assert cli.main(['suspects', '--run-report', str(path)]) == 3
    assert 'no session uuid' in capsys.readouterr().err
