'''A fleet night's node jobs submitted and watched
(hpc_acceptance.tools.node_jobs.slurm_jobs): against a Slurm that answers
as the test cluster did (tests/fixtures/data/slurm/squeue-night-*.txt) and
a stand-in that runs the night's jobs as told.'''

import json
import subprocess

import pytest

from conftest import DATA_DIR
from hpc_acceptance.tools.launch import reframe_call
from hpc_acceptance.tools.node_jobs import slurm_jobs

NODES = ['n1', 'n2', 'n3', 'n4']


def test_squeue_s_answer_is_read(monkeypatch):
    text = (DATA_DIR / 'slurm' / 'squeue-night-pending.txt').read_text()
    seen = []

    def squeue(command, **_):
        seen.append(command)
        return subprocess.CompletedProcess(command, 0, text, '')

    monkeypatch.setattr(slurm_jobs.subprocess, 'run', squeue)
    assert slurm_jobs.queue('capjob') == {
        '5': ('PENDING', 'ReqNodeNotAvail, UnavailableNodes:n4'),
        '6': ('RUNNING', 'None')}
    assert seen == [['squeue', '-h', '--me', '--name', 'capjob', '-o',
                     '%i|%T|%r']]
    assert slurm_jobs.is_stuck('ReqNodeNotAvail, UnavailableNodes:n4')
    assert not slurm_jobs.is_stuck('Resources')


def test_a_node_s_name_is_an_argument_of_sbatch_not_shell_text():
    plan = slurm_jobs.Plan('/night/job.sh', ['--exclusive'], 'hpcacc-x',
                           per_node={'n1': ['--partition=compute']})
    assert slurm_jobs.sbatch_argv(plan, 'n1') == [
        'sbatch', '--parsable', '--job-name=hpcacc-x', '--exclusive',
        '--partition=compute', '--nodelist=n1', '/night/job.sh']
    assert slurm_jobs.job_name('acceptance 2026;x') == \
        'hpcacc-acceptance_2026_x'


class Cluster:
    '''A stand-in Slurm: a job pends ``pending`` polls (forever where its
    node is ``down``), then runs ``running`` polls and completes.'''

    def __init__(self, down=(), refuse=(), running=2):
        self.jobs = {}
        self.down, self.refuse, self.running = set(down), set(refuse), \
            running
        self.most_queued = 0
        self.cancelled = []

    def submit(self, argv):
        node = next(a for a in argv if a.startswith('--nodelist='))[11:]
        if node in self.refuse:
            raise slurm_jobs.SubmitError('Invalid node name specified')
        job = str(len(self.jobs) + 1)
        self.jobs[job] = {'node': node, 'polls': 0, 'state': 'PENDING'}
        self.most_queued = max(self.most_queued, sum(
            j['state'] in ('PENDING', 'RUNNING')
            for j in self.jobs.values()))
        return job

    def queue(self, name, states=None):
        found = {}
        for job, entry in self.jobs.items():
            if states is None:
                entry['polls'] += 1
                if entry['state'] == 'PENDING' and \
                        entry['node'] not in self.down:
                    entry['state'] = 'RUNNING'
                elif (entry['state'] == 'RUNNING' and
                      entry['polls'] > self.running):
                    entry['state'] = 'COMPLETED'
            if entry['state'] in ('PENDING', 'RUNNING') or states:
                reason = (f'ReqNodeNotAvail, UnavailableNodes:'
                          f'{entry["node"]}' if entry['node'] in self.down
                          else 'None')
                found[job] = (entry['state'], reason)
        return found

    def cancel(self, job):
        self.cancelled.append(job)
        self.jobs[job]['state'] = 'CANCELLED'


@pytest.fixture
def stand_in_slurm(monkeypatch):
    '''A Slurm of :class:`Cluster` stand-ins (not conftest's ``cluster``,
    whose name marks a test as starting a real one).'''
    def make(**kwargs):
        made = Cluster(**kwargs)
        for name in ('submit', 'queue', 'cancel'):
            monkeypatch.setattr(slurm_jobs, name, getattr(made, name))
        return made
    return make


def _watch(tmp_path, queued=None, said=None):
    '''A watch of the night's four nodes, on a clock of its own.'''
    now = [0.0]
    plan = slurm_jobs.Plan('/night/job.sh', [], 'hpcacc-t', queued)
    return slurm_jobs.Watch(plan, NODES, str(tmp_path / 'jobs.json'),
                            (said if said is not None else []).append,
                            clock=lambda: now[0],
                            sleep=lambda s: now.__setitem__(0, now[0] + s))


def test_at_most_the_jobs_the_limits_leave_are_queued(stand_in_slurm,
                                                       tmp_path):
    slurm = stand_in_slurm()
    jobs = _watch(tmp_path, queued=2).run()
    assert slurm.most_queued == 2
    assert {n: j['state'] for n, j in jobs.items()} == dict.fromkeys(
        NODES, 'COMPLETED')
    assert json.loads((tmp_path / 'jobs.json').read_text()) == jobs


def test_a_job_that_cannot_start_is_cancelled_and_said(stand_in_slurm,
                                                       tmp_path):
    slurm = stand_in_slurm(down={'n4'}, refuse={'n3'})
    said = []
    jobs = _watch(tmp_path, said=said).run()
    assert jobs['n4']['gave_up'] == 'ReqNodeNotAvail, UnavailableNodes:n4'
    assert slurm.cancelled == [jobs['n4']['job']]
    assert jobs['n3'] == dict(jobs['n3'], job=None,
                              refused='Invalid node name specified')
    assert [j['state'] for j in map(jobs.get, ('n1', 'n2'))] == \
        ['COMPLETED'] * 2
    assert any(line.startswith('n4: its job') for line in said)


def test_a_signal_stops_the_submissions_and_leaves_the_queue(stand_in_slurm,
                                                             tmp_path):
    slurm = stand_in_slurm()
    watch = _watch(tmp_path, queued=1)
    watch.sleep = lambda s: watch.received.append(15)
    with pytest.raises(reframe_call.Interrupted):
        watch.run()
    assert len(slurm.jobs) == 1 and slurm.cancelled == []
    assert list(json.loads((tmp_path / 'jobs.json').read_text())) == ['n1']


def test_polls_come_further_apart_on_a_bigger_night():
    assert slurm_jobs.slowest_poll(4) == 2.0
    assert slurm_jobs.slowest_poll(10000) == 30.0
