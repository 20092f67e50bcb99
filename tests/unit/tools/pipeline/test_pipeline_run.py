'''The start of a run (hpc_acceptance.tools.pipeline.run): its own options
before ReFrame's, the system it names, the fleet's node state.'''

import pytest

from hpc_acceptance.tools import cli
from hpc_acceptance.tools.common import command_settings
from hpc_acceptance.tools.pipeline import acceptance_run, run


def test_the_run_s_options_come_first_and_the_rest_goes_to_reframe():
    options, rest = run._options(['--fleet=avail', '--max-jobs', '8',
                                  '--reservation=maint', '--full-output',
                                  '--fleet-mode', 'distribute',
                                  '--node-time-limit=30',
                                  '-n', 'Stream', '--max-jobs', '2'])
    assert options == {'full_output': True, 'fleet': 'avail',
                       'reservation': 'maint', 'max_jobs': '8',
                       'fleet_mode': 'distribute', 'node_time_limit': 30}
    # after the first argument of ReFrame's, everything is ReFrame's
    assert rest == ['-n', 'Stream', '--max-jobs', '2']


def test_a_plain_fleet_run_and_no_option_at_all():
    assert run._options(['--fleet', '--system', 'c'])[0]['fleet'] == ''
    options, rest = run._options([])
    assert options['fleet'] is None and rest == []
    # a fleet run is one job per node unless asked otherwise
    assert options['fleet_mode'] == 'node-jobs'


@pytest.mark.parametrize('argv, why', [
    (['--max-jobs', '0'], '--max-jobs 0: a whole number, 1 or more'),
    (['--max-jobs=lots'], '--max-jobs lots: a whole number, 1 or more'),
    (['--reservation'], '--reservation: a value after it'),
    (['--fleet='], '--fleet=: a node state after the "="'),
    (['--fleet-mode=jobs'], '--fleet-mode jobs: one of node-jobs, '
                            'distribute'),
    (['--node-time-limit', '1h'], '--node-time-limit 1h: minutes, a whole '
                                  'number, 1 or more'),
])
def test_a_wrong_option_is_named(argv, why):
    with pytest.raises(run.UsageError) as wrong:
        run._options(argv)
    assert str(wrong.value) == why


def test_a_wrong_option_stops_the_run_before_anything(capsys, tmp_path,
                                                      monkeypatch):
    monkeypatch.setenv('RFM_REPORT_FILE', str(tmp_path / 'r.json'))
    assert cli.main(['run', '--max-jobs', 'x', '-n', 'Stream']) == run.NOT_RUN
    assert 'acceptance: --max-jobs x: a whole number' in \
        capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize('variable, value', [
    ('HPC_ACCEPTANCE_SHIFT_LIMIT', 'a lot'),
    ('HPC_ACCEPTANCE_SHIFT_LIMIT', '1.5'),
    ('HPC_ACCEPTANCE_DB_BACKUPS', '0'),
    ('HPC_ACCEPTANCE_MAX_JOBS', 'many'),
])
def test_a_bad_setting_stops_the_run_before_anything(
        capsys, tmp_path, monkeypatch, variable, value):
    '''A setting that cannot be used is refused before the report is
    named, the database touched or ReFrame started, with the status of a
    run that could not start as asked (2): never after the night, where
    it would hide a failed check's 1.'''
    monkeypatch.setenv('RFM_REPORT_FILE', str(tmp_path / 'r.json'))
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))
    monkeypatch.setenv(variable, value)
    assert cli.main(['run', '-n', 'Stream']) == run.NOT_RUN == 2
    err = capsys.readouterr().err
    assert err.startswith(f'acceptance NOT RUN: {variable}=')
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize('argv, variable, system', [
    ([], None, 'local'),
    ([], 'cluster', 'cluster'),
    (['--system', 'other:gpu', '-n', 'x'], 'cluster', 'other'),
    (['-n', 'x', '--system=third'], None, 'third'),
])
def test_the_system_is_the_one_reframe_is_given(argv, variable, system,
                                                monkeypatch):
    if variable:
        monkeypatch.setenv('HPC_ACCEPTANCE_SYSTEM', variable)
    else:
        monkeypatch.delenv('HPC_ACCEPTANCE_SYSTEM', raising=False)
    # HPC_ACCEPTANCE_SYSTEM is read with the command's settings
    assert acceptance_run.system_named(
        argv, command_settings.read().system) == system


def test_a_fleet_run_takes_idle_nodes_or_a_reservation_s_all():
    assert acceptance_run.fleet_state('', None) == 'idle'
    assert acceptance_run.fleet_state('', 'maint') == 'avail'
    assert acceptance_run.fleet_state('mixed', 'maint') == 'mixed'
