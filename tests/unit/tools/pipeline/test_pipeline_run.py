'''The start of a run (hpc_acceptance.tools.pipeline.run): its own options
before ReFrame's, the system it names, the fleet's node state.'''

import pytest

from hpc_acceptance.tools import cli
from hpc_acceptance.tools.common import command_settings
from hpc_acceptance.tools.pipeline import acceptance_run, run


def parsed(argv):
    '''The run's arguments as ``hpc-acceptance run ARGV`` parses them.'''
    return cli.parse('run', run, argv)[1]


def test_the_run_s_options_come_first_and_the_rest_goes_to_reframe():
    args = parsed(['--fleet=avail', '--max-jobs', '8', '--reservation=maint',
                   '--full-output', '--fleet-mode', 'distribute',
                   '--node-time-limit=30', '-n', 'Stream', '--max-jobs', '2'])
    assert (args.full_output, args.fleet, args.reservation, args.max_jobs,
            args.fleet_mode, args.node_time_limit, args.nodes_per_job) == (
        True, 'avail', 'maint', '8', 'distribute', 30, None)
    assert parsed(['--fleet', '--nodes-per-job=16']).nodes_per_job == 16
    # after the first argument of ReFrame's, everything is ReFrame's
    assert args.passed_on == ['-n', 'Stream', '--max-jobs', '2']


def test_a_plain_fleet_run_and_no_option_at_all():
    assert parsed(['--fleet', '--system', 'c']).fleet == ''
    args = parsed([])
    assert args.fleet is None and args.passed_on == []
    # a fleet run is one job per node unless asked otherwise
    assert args.fleet_mode == 'node-jobs'
    # an abbreviation is not the run's option: ReFrame is told it
    assert parsed(['--res', 'x']).passed_on == ['--res', 'x']


@pytest.mark.parametrize('argv, why', [
    (['--max-jobs', '0'], "argument --max-jobs: '0': a whole number, 1 or "
                          "more"),
    (['--max-jobs=lots'], "argument --max-jobs: 'lots': a whole number, 1 "
                          "or more"),
    (['--reservation'], 'argument --reservation: expected one argument'),
    (['--reservation', 'maint\n#SBATCH --uid=0'],
     "argument --reservation: reservation 'maint\\n#SBATCH --uid=0' is not "
     'a reservation name (letters, digits, "-", "_" and ".")'),
    (['--fleet=idle;id'], "argument --fleet: 'idle;id': a node state (idle, "
                          "avail, all, or a state of Slurm's)"),
    (['--fleet-mode=jobs'], "argument --fleet-mode: invalid choice: 'jobs' "
                            "(choose from 'node-jobs', 'distribute')"),
    (['--node-time-limit', '1h'], "argument --node-time-limit: '1h': "
                                  "minutes, a whole number, 1 or more"),
    (['--nodes-per-job', '0'], "argument --nodes-per-job: '0': a whole "
                               "number, 1 or more"),
])
def test_a_wrong_option_is_named(argv, why, capsys):
    with pytest.raises(SystemExit) as wrong:
        parsed(argv)
    assert wrong.value.code == run.NOT_RUN == 2
    err = capsys.readouterr().err
    assert err.startswith('usage: ci/acceptance.sh [--full-output] ')
    assert err.endswith(f'ci/acceptance.sh: error: {why}\n'), err


def test_a_wrong_option_stops_the_run_before_anything(capsys, tmp_path,
                                                      monkeypatch):
    monkeypatch.setenv('RFM_REPORT_FILE', str(tmp_path / 'r.json'))
    with pytest.raises(SystemExit) as wrong:
        cli.main(['run', '--max-jobs', 'x', '-n', 'Stream'])
    assert wrong.value.code == 2
    assert "ci/acceptance.sh: error: argument --max-jobs: 'x': a whole " \
        "number" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize('argv', [
    ['--nodes-per-job', '8', '-n', 'Stream'],
    ['--fleet', '--fleet-mode', 'distribute', '--nodes-per-job', '8']])
def test_nodes_per_job_outside_node_jobs_stops_the_run(argv, capsys,
                                                       tmp_path, monkeypatch):
    monkeypatch.setenv('RFM_REPORT_FILE', str(tmp_path / 'r.json'))
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))
    assert cli.main(['run', *argv]) == run.NOT_RUN
    assert capsys.readouterr().err == (
        "acceptance NOT RUN: --nodes-per-job is for a fleet run's node jobs "
        "(--fleet, --fleet-mode node-jobs)\n")
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
