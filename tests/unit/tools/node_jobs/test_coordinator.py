'''A night of node jobs prepared by its coordinator
(hpc_acceptance.tools.node_jobs.coordinator, .node_system), the run inside
each job (.on_node), and the nodes' perflogs added to the run's
(.perflogs).'''

import json
import os
import stat

import pytest

from conftest import CONFIG, DATA_DIR
from hpc_acceptance.core.node_scheduler import NAME as NODE_SCHEDULER
from hpc_acceptance.tools.common.command_settings import ReframeDirs
from hpc_acceptance.tools.launch import reframe_call
from hpc_acceptance.tools.node_jobs import coordinator, node_system, \
    on_node, perflogs
from hpc_acceptance.tools.node_jobs.night import Night

OVERLAY = str(DATA_DIR / 'slurm' / 'slurm_localhost.py')
NODES = {'slurm-nodes:compute': {'state': 'idle',
                                 'covered': ['n10', 'n2', 'n1'],
                                 'left_out': []}}


def _prepare(tmp_path, reframe_args, node_map=NODES,
             dirs=ReframeDirs(prefix='/site/rfm')):
    launcher = reframe_call.Launcher('acceptance', 'maint')
    return coordinator.prepare(str(tmp_path / 'fleet.json'), node_map,
                               launcher, reframe_args,
                               ['--mode', 'fleet', '-r'], dirs)


def test_the_night_runs_the_system_s_partitions_on_each_node(tmp_path):
    night, plan, options, slurm = _prepare(
        tmp_path, ['-C', OVERLAY, '--system', 'slurm-nodes', '-n', 'Daxpy',
                   '-J', 'account=ops'])
    assert list(plan['nodes']) == ['n1', 'n2', 'n10']
    assert plan['nodes']['n1'] == ['compute'] and slurm == ['compute']
    assert options['n1'] == ['--partition=compute']
    assert plan['job_options'] == ['--reservation=maint', '--account=ops']
    assert plan['extras'] == {'suite_mode': 'nightly', 'fleet': 'yes'}
    # where the run's ReFrame variables put its files, the nodes' go too
    assert (plan['stage'], plan['output']) == (
        '/site/rfm/stage/fleet-nodes', '/site/rfm/output/fleet-nodes')
    # the run's own arguments, the system named, the node's layer last
    args = plan['reframe']
    assert args[:2] == ['-C', str(CONFIG)] and args[-2:] == [
        '-C', str(node_system.NODE_CONFIG)]
    assert args[args.index('--system') + 1] == 'slurm-nodes'
    assert ['-n', 'Daxpy'] == args[args.index('-n'):args.index('-n') + 2]
    assert '--exec-policy=serial' in args
    # its partitions: the same, their scheduler the node, no access
    (partition,) = json.loads(open(night.system).read())['partitions']
    assert (partition['scheduler'], partition['access'],
            partition['max_jobs'], partition['launcher']) == \
        (NODE_SCHEDULER, [], 1, 'srun')
    # one job script for every node: no node's name in shell text
    script = open(night.script).read()
    assert 'n1' not in script.split('\n', 3)[-1]
    assert os.stat(night.script).st_mode & stat.S_IXUSR


def test_the_nodes_files_go_where_the_run_s_variables_say(tmp_path):
    _, plan, _, _ = _prepare(
        tmp_path, ['-C', OVERLAY, '--system', 'slurm-nodes'],
        dirs=ReframeDirs('/p', '/s', None, str(tmp_path / 'perf')))
    assert (plan['stage'], plan['output'], plan['perflogs']) == (
        '/s/fleet-nodes', '/p/output/fleet-nodes', str(tmp_path / 'perf'))


def test_a_system_without_slurm_partitions_runs_no_node_jobs(tmp_path):
    with pytest.raises(coordinator.NoSlurmPartition,
                       match='local has no Slurm partition'):
        _prepare(tmp_path, ['--system', 'local'],
                 {'local:default': {'covered': ['vm'], 'left_out': []}})


def _fake_reframe(tmp_path, status=0):
    '''A reframe that records its arguments and environment.'''
    path = tmp_path / 'reframe'
    path.write_text('#!/bin/sh\n'
                    f'echo "$@" > {tmp_path}/args\n'
                    f'env > {tmp_path}/env\n'
                    f'exit {status}\n')
    path.chmod(0o755)
    return str(path)


def test_the_job_runs_reframe_for_its_node_and_records_it(tmp_path,
                                                          monkeypatch):
    night, plan, _, _ = _prepare(tmp_path, ['-C', OVERLAY, '--system',
                                            'slurm-nodes'])
    open(night.plan, 'w').write(json.dumps(plan))
    monkeypatch.setattr(on_node, 'REFRAME', _fake_reframe(tmp_path, 1))
    monkeypatch.setenv('SLURMD_NODENAME', 'n2')
    monkeypatch.setenv('SLURM_JOB_ID', '77')
    monkeypatch.setenv('HPC_ACCEPTANCE_MAX_JOBS', '3')
    assert on_node.main([night.folder]) == 1
    status = json.loads(open(night.status('n2')).read())
    assert (status['node'], status['job'], status['reframe_status']) == \
        ('n2', '77', 1)
    assert status['ended'] >= status['started']
    env = dict(line.split('=', 1) for line in
               (tmp_path / 'env').read_text().splitlines() if '=' in line)
    assert env['RFM_REPORT_FILE'] == night.report('n2')
    assert env['RFM_STAGE_DIR'] == os.path.join(plan['stage'], 'n2')
    assert env['RFM_ENABLE_RESULTS_STORAGE'] == 'false'
    assert env['HPC_ACCEPTANCE_ON_NODE'] == '1'
    assert 'HPC_ACCEPTANCE_MAX_JOBS' not in env
    assert json.loads(open(env['HPC_ACCEPTANCE_NODE_SYSTEM']).read())[
        'name'] == 'slurm-nodes'
    assert (tmp_path / 'args').read_text().split() == plan['reframe']


def _step_of_three(monkeypatch, tmp_path, path):
    '''The environment the job's step of ``nodes.sh`` gives n2's task
    (as the test cluster's did), ``path`` its PATH.'''
    monkeypatch.setenv('PATH', path)
    for name, value in {
            'SLURMD_NODENAME': 'n2', 'SLURM_JOB_ID': '78',
            'SLURM_JOB_NUM_NODES': '3', 'SLURM_NNODES': '3',
            'SLURM_JOB_NODELIST': 'n[1-3]', 'SLURM_NODELIST': 'n[1-3]',
            'SLURM_JOB_CPUS_PER_NODE': '2(x3)', 'SLURM_CPUS_ON_NODE': '2',
            'SLURM_STEP_ID': '0', 'SLURM_STEP_NODELIST': 'n[1-3]',
            'SLURM_NTASKS': '3', 'SLURM_NTASKS_PER_NODE': '1',
            'SLURM_TASKS_PER_NODE': '1(x3)', 'SLURM_PROCID': '1',
            'SLURM_MPI_TYPE': 'none', 'SLURM_CPU_BIND': 'quiet,none',
            'SLURM_DISTRIBUTION': 'cyclic', 'SLURM_SRUN_COMM_PORT': '4001',
            'SLURM_PMIX_MAPPING_SERV': '(vector,(0,3,1))'}.items():
        monkeypatch.setenv(name, value)


def test_a_node_sharing_its_job_runs_as_a_job_of_its_own(tmp_path,
                                                         monkeypatch):
    night, plan, _, _ = _prepare(tmp_path, ['-C', OVERLAY, '--system',
                                            'slurm-nodes'])
    open(night.plan, 'w').write(json.dumps(plan))
    monkeypatch.setattr(on_node, 'REFRAME', _fake_reframe(tmp_path))
    bin_dir = tmp_path / 'slurm-bin'
    bin_dir.mkdir()
    (bin_dir / 'srun').write_text('#!/bin/sh\n')
    (bin_dir / 'srun').chmod(0o755)
    _step_of_three(monkeypatch, tmp_path, f'{bin_dir}:/usr/bin:/bin')
    assert on_node.main([night.folder]) == 0
    env = dict(line.split('=', 1) for line in
               (tmp_path / 'env').read_text().splitlines() if '=' in line)
    # the node alone, as a job of one node; nothing of the step's
    assert {k: env[k] for k in ('SLURM_JOB_NODELIST', 'SLURM_NODELIST',
                                'SLURM_JOB_NUM_NODES', 'SLURM_NNODES',
                                'SLURM_JOB_CPUS_PER_NODE',
                                'SLURM_TASKS_PER_NODE')} == {
        'SLURM_JOB_NODELIST': 'n2', 'SLURM_NODELIST': 'n2',
        'SLURM_JOB_NUM_NODES': '1', 'SLURM_NNODES': '1',
        'SLURM_JOB_CPUS_PER_NODE': '2', 'SLURM_TASKS_PER_NODE': '1'}
    assert not [k for k in env if k.startswith(
        ('SLURM_STEP', 'SLURM_NTASKS', 'SLURM_PMIX', 'SLURM_CPU_BIND',
         'SLURM_SRUN_COMM'))
        or k in ('SLURM_PROCID', 'SLURM_MPI_TYPE', 'SLURM_DISTRIBUTION')]
    assert env['SLURM_JOB_ID'] == '78'
    # its checks' srun: the night's, which calls the real one on the node
    assert env['PATH'].split(':')[0] == night.shim_dir
    assert env[on_node.SRUN_VARIABLE] == str(bin_dir / 'srun')
    shim = open(os.path.join(night.shim_dir, 'srun')).read()
    assert '"$HPC_ACCEPTANCE_SRUN" --nodelist="$SLURMD_NODENAME" ' \
        '--overlap "$@"' in shim
    group = open(night.group_script).read()
    assert f'--kill-on-bad-exit=0 {night.script}\nexit 0\n' in group
    assert 'n2' not in group.split('\n', 3)[-1]


def test_a_node_sharing_its_job_without_srun_runs_nothing(tmp_path,
                                                          monkeypatch,
                                                          capsys):
    night, plan, _, _ = _prepare(tmp_path, ['-C', OVERLAY, '--system',
                                            'slurm-nodes'])
    open(night.plan, 'w').write(json.dumps(plan))
    monkeypatch.setattr(on_node, 'REFRAME', _fake_reframe(tmp_path))
    _step_of_three(monkeypatch, tmp_path, str(tmp_path / 'nothing'))
    assert on_node.main([night.folder]) == 2
    assert not (tmp_path / 'args').exists()
    assert 'no srun on PATH' in capsys.readouterr().err


@pytest.mark.parametrize('node', ['n9', 'n1;reboot', '-n1'])
def test_a_job_on_a_node_not_in_the_plan_runs_nothing(tmp_path, monkeypatch,
                                                      node, capsys):
    night, plan, _, _ = _prepare(tmp_path, ['-C', OVERLAY, '--system',
                                            'slurm-nodes'])
    open(night.plan, 'w').write(json.dumps(plan))
    monkeypatch.setattr(on_node, 'REFRAME', _fake_reframe(tmp_path))
    monkeypatch.setenv('SLURMD_NODENAME', node)
    assert on_node.main([night.folder]) == 2
    assert not (tmp_path / 'args').exists()
    assert 'on_node: ' in capsys.readouterr().err


def test_a_node_s_perflogs_follow_reframe_s_header_rule(tmp_path):
    node, run = tmp_path / 'node' / 'sys' / 'part', tmp_path / 'run'
    node.mkdir(parents=True)
    (node / 'Check.log.h0').write_text('a|b\nold|1\n')
    (node / 'Check.log').write_text('a|b|c\nnew|1|2\n')
    target = run / 'sys' / 'part'
    target.mkdir(parents=True)
    (target / 'Check.log').write_text('a|b\nbefore|0\n')
    with perflogs.RunPerflogs(str(run)) as run_perflogs:
        assert run_perflogs.merge(str(tmp_path / 'node'), 'n1') == 2
        assert run_perflogs.not_its_own == {}
        # on disk once merged, before the collecting ends
        assert (target / 'Check.log.h0').read_text() == \
            'a|b\nbefore|0\nold|1\n'
        assert (target / 'Check.log').read_text() == 'a|b|c\nnew|1|2\n'

        # the next node's, of the first header again and of the second
        (node / 'Check.log.h0').write_text('a|b\nolder|3\n')
        (node / 'Check.log').write_text(
            'a|b|c\nnewer|3|4\nX %.nid=n9|5|6\nY %.nid=n1.example.org|7|8\n')
        assert run_perflogs.merge(str(tmp_path / 'node'), 'n1') == 3
        assert run_perflogs.not_its_own == {'n1': 1}

    assert (target / 'Check.log.h1').read_text() == 'a|b|c\nnew|1|2\n'
    assert (target / 'Check.log.h2').read_text() == 'a|b\nolder|3\n'
    assert (target / 'Check.log').read_text() == \
        'a|b|c\nnewer|3|4\nY %.nid=n1.example.org|7|8\n'


def test_a_node_s_perflog_lines_are_added_as_the_bytes_it_wrote(tmp_path):
    '''A byte that is no UTF-8 stopped the collecting of the whole night
    (a decoding error); a last line without its newline gets one.'''
    node, run = tmp_path / 'node' / 'sys' / 'part', tmp_path / 'run'
    node.mkdir(parents=True)
    (node / 'Check.log').write_bytes(
        b'a|b\nx\xff\xfe %.nid=n1|1\r\ny %.nid=n9|2\nz|3')
    with perflogs.RunPerflogs(str(run)) as run_perflogs:
        assert run_perflogs.merge(str(tmp_path / 'node'), 'n1') == 2
        assert run_perflogs.not_its_own == {'n1': 1}

    assert (run / 'sys' / 'part' / 'Check.log').read_bytes() == \
        b'a|b\nx\xff\xfe %.nid=n1|1\r\nz|3\n'


def test_the_night_s_folder_is_named_after_its_report(tmp_path):
    night = Night.of_report(str(tmp_path / 'acceptance-1.json'))
    assert night.folder == str(tmp_path / 'acceptance-1-node-runs')
    with pytest.raises(ValueError):
        night.node_dir('../etc')
