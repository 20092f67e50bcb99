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


def test_only_nodes_slurm_set_down_are_dead(monkeypatch):
    # sinfo --dead lists every node that missed a ping; one still up (a
    # loaded node's slurmd) may yet end its run
    def sinfo(command, **_):
        return subprocess.CompletedProcess(
            command, 0, 'n1|down*\nn2|allocated*\nn3|down+drain*\n'
            'n3|down+drain*\nn4|mixed*\n', '')

    monkeypatch.setattr(slurm_jobs.subprocess, 'run', sinfo)
    assert slurm_jobs.dead_nodes() == {'n1', 'n3'}
    monkeypatch.setattr(slurm_jobs.subprocess, 'run',
                        lambda command, **_: subprocess.CompletedProcess(
                            command, 1, '', 'slurmctld not responding'))
    assert slurm_jobs.dead_nodes() is None


def test_a_node_s_name_is_an_argument_of_sbatch_not_shell_text():
    plan = slurm_jobs.Plan('/night/job.sh', ['--exclusive'], 'hpcacc-x',
                           per_node={'n1': ['--partition=compute']})
    assert slurm_jobs.sbatch_argv(plan, ['n1']) == [
        'sbatch', '--parsable', '--job-name=hpcacc-x', '--nodes=1',
        '--exclusive', '--partition=compute', '--nodelist=n1',
        '/night/job.sh']
    assert slurm_jobs.job_name('acceptance 2026;x') == \
        'hpcacc-acceptance_2026_x'


def test_a_job_of_several_nodes_runs_the_group_script_and_outlives_one():
    plan = slurm_jobs.Plan('/night/job.sh', ['--exclusive'], 'hpcacc-x',
                           per_node={'n1': ['--partition=compute']},
                           per_job=3, group_script='/night/nodes.sh')
    assert slurm_jobs.sbatch_argv(plan, ['n1', 'n2', 'n3']) == [
        'sbatch', '--parsable', '--job-name=hpcacc-x', '--nodes=3',
        '--exclusive', '--partition=compute', '--no-kill',
        '--nodelist=n1,n2,n3', '/night/nodes.sh']


@pytest.mark.parametrize('nodes, asked, expected', [
    (4, None, 1), (slurm_jobs.MOST_JOBS, None, 1),
    (slurm_jobs.MOST_JOBS + 1, None, 2), (10000, None, 157),
    (4, 8, 4), (100, 3, 3)])
def test_how_many_nodes_a_job_covers(nodes, asked, expected):
    assert slurm_jobs.nodes_per_job(nodes, asked) == expected


def test_a_job_covers_nodes_of_one_partition_in_their_order():
    per_node = {'a1': ['-p', 'a'], 'a2': ['-p', 'a'], 'b1': ['-p', 'b'],
                'a3': ['-p', 'a']}
    assert slurm_jobs.groups(['a1', 'a2', 'b1', 'a3'], per_node, 2) == [
        ['a1', 'a2'], ['b1'], ['a3']]
    nodes = [f'n{i}' for i in range(1, 10001)]
    made = slurm_jobs.groups(nodes, {}, slurm_jobs.nodes_per_job(10000))
    assert len(made) <= slurm_jobs.MOST_JOBS
    assert [n for group in made for n in group] == nodes


def test_the_nodes_slurm_names_unavailable_are_read(monkeypatch):
    seen = []

    def scontrol(command, **_):
        seen.append(command)
        return subprocess.CompletedProcess(command, 0, 'n3\nn4\n', '')

    monkeypatch.setattr(slurm_jobs.subprocess, 'run', scontrol)
    assert slurm_jobs.unavailable('ReqNodeNotAvail, UnavailableNodes:n[3-4]',
                                  ['n1', 'n2', 'n3', 'n4']) == ['n3', 'n4']
    assert seen == [['scontrol', 'show', 'hostnames', 'n[3-4]']]
    assert slurm_jobs.unavailable('PartitionDown', ['n1']) == []


class Cluster:
    '''A stand-in Slurm: a job pends ``pending`` polls (forever where its
    node is ``down``), then runs ``running`` polls and completes; a job
    with a node that dies while it runs (``dead``, which Slurm sets down
    once ``dead_after`` polls have passed) runs until cancelled, as
    ``--no-kill`` keeps it to its time limit.'''

    def __init__(self, down=(), refuse=(), running=2, dead=(),
                 dead_after=4):
        self.jobs = {}
        self.down, self.refuse, self.running = set(down), set(refuse), \
            running
        self.dead, self.dead_after, self.polls = set(dead), dead_after, 0
        self.most_queued = 0
        self.cancelled = []
        self.submitted = []

    def submit(self, argv):
        nodes = next(a for a in argv
                     if a.startswith('--nodelist='))[11:].split(',')
        if self.refuse.intersection(nodes):
            raise slurm_jobs.SubmitError('Invalid node name specified')
        job = str(len(self.jobs) + 1)
        self.jobs[job] = {'nodes': nodes, 'polls': 0, 'state': 'PENDING'}
        self.submitted.append(nodes)
        self.most_queued = max(self.most_queued, sum(
            j['state'] in ('PENDING', 'RUNNING')
            for j in self.jobs.values()))
        return job

    def queue(self, name, states=None):
        found = {}
        self.polls += states is None
        for job, entry in self.jobs.items():
            if states is None:
                entry['polls'] += 1
                if entry['state'] == 'PENDING' and \
                        not self.down.intersection(entry['nodes']):
                    entry['state'] = 'RUNNING'
                elif (entry['state'] == 'RUNNING' and
                      entry['polls'] > self.running and
                      not self.dead.intersection(entry['nodes'])):
                    entry['state'] = 'COMPLETED'
            if entry['state'] in ('PENDING', 'RUNNING') or states:
                down = sorted(self.down.intersection(entry['nodes']))
                reason = (f'ReqNodeNotAvail, UnavailableNodes:'
                          f'{",".join(down)}' if down else 'None')
                found[job] = (entry['state'], reason)
        return found

    def cancel(self, job):
        self.cancelled.append(job)
        self.jobs[job]['state'] = 'CANCELLED'

    def dead_nodes(self):
        return self.dead if self.polls > self.dead_after else set()

    def finished(self, node):
        '''Whether ``node``'s run ended: it ran and did not die.'''
        return node not in self.dead and any(
            node in j['nodes'] and j['polls'] > self.running
            for j in self.jobs.values())


@pytest.fixture
def stand_in_slurm(monkeypatch):
    '''A Slurm of :class:`Cluster` stand-ins (not conftest's ``cluster``,
    whose name marks a test as starting a real one).'''
    def make(**kwargs):
        made = Cluster(**kwargs)
        for name in ('submit', 'queue', 'cancel', 'dead_nodes'):
            monkeypatch.setattr(slurm_jobs, name, getattr(made, name))
        # Slurm's host list, as scontrol expands it, of these plain names
        monkeypatch.setattr(slurm_jobs, 'unavailable', lambda reason, nodes: [
            n for n in nodes
            if n in reason.partition('UnavailableNodes:')[2].split(',')])
        return made
    return make


def _watch(tmp_path, queued=None, said=None, per_job=1, slurm=None):
    '''A watch of the night's four nodes, on a clock of its own; its
    nodes' runs end as ``slurm``'s jobs do.'''
    now = [0.0]
    plan = slurm_jobs.Plan('/night/job.sh', [], 'hpcacc-t', queued,
                           per_job=per_job, group_script='/night/nodes.sh')
    return slurm_jobs.Watch(plan, NODES, str(tmp_path / 'jobs.json'),
                            (said if said is not None else []).append,
                            slurm.finished if slurm else lambda node: False,
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


def test_a_job_of_several_nodes_drops_the_one_slurm_cannot_give(
        stand_in_slurm, tmp_path):
    slurm = stand_in_slurm(down={'n2'})
    said = []
    jobs = _watch(tmp_path, said=said, per_job=4).run()
    assert slurm.submitted == [NODES, ['n1', 'n3', 'n4']]
    assert slurm.cancelled == ['1']
    assert jobs['n2'] == dict(jobs['n2'], job='1', nodes=4,
                              gave_up='ReqNodeNotAvail, UnavailableNodes:n2')
    assert {n: (jobs[n]['job'], jobs[n]['nodes'], jobs[n]['state'])
            for n in ('n1', 'n3', 'n4')} == dict.fromkeys(
                ('n1', 'n3', 'n4'), ('2', 3, 'COMPLETED'))
    assert 'n2: its job 1 cannot start (ReqNodeNotAvail, ' \
        'UnavailableNodes:n2): cancelled; its 3 other node(s) submitted ' \
        'again' in said


def test_a_job_held_by_a_dead_node_alone_is_cancelled_its_node_lost(
        stand_in_slurm, tmp_path):
    slurm = stand_in_slurm(dead={'n2'})
    said = []
    jobs = _watch(tmp_path, said=said, per_job=4, slurm=slurm).run()
    # cancelled once Slurm set n2 down, not at a time limit
    assert slurm.cancelled == ['1']
    assert slurm.polls == slurm.dead_after + 1
    assert jobs['n2']['lost'] == 'Slurm set the node down: not responding'
    assert [jobs[n].get('lost') for n in ('n1', 'n3', 'n4')] == [None] * 3
    assert {jobs[n]['state'] for n in NODES} == {'CANCELLED'}
    assert 'n2: down, not responding; the other nodes\' runs ended: job ' \
        '1 cancelled' in said


def test_a_dead_node_s_job_waits_for_the_others_runs(stand_in_slurm,
                                                     tmp_path):
    # n2 found dead at once, the others' runs still going for two polls
    slurm = stand_in_slurm(dead={'n2'}, dead_after=0, running=3)
    jobs = _watch(tmp_path, per_job=4, slurm=slurm).run()
    assert slurm.cancelled == ['1']
    assert slurm.polls == slurm.running + 1
    assert jobs['n2']['lost']


def test_a_job_of_one_node_is_slurm_s_to_end(stand_in_slurm, tmp_path):
    # without --no-kill Slurm ends it when it finds the node down; a node
    # alive but not yet ended (a slow run) is never cancelled for
    slurm = stand_in_slurm(dead={'n2'}, dead_after=0)
    watch = _watch(tmp_path, slurm=slurm)
    sleep = watch.sleep

    def until_twenty_polls(seconds):
        if slurm.polls > 20:
            watch.received.append(15)
        sleep(seconds)

    watch.sleep = until_twenty_polls
    with pytest.raises(reframe_call.Interrupted):
        watch.run()
    assert slurm.cancelled == []
    # a dead node of the cluster in none of the night's jobs: no node's
    # record is read for it, no job cancelled
    slurm = stand_in_slurm(dead={'n9'}, dead_after=0)
    read = []
    slurm.finished = read.append
    jobs = _watch(tmp_path, per_job=4, slurm=slurm).run()
    assert slurm.cancelled == [] and jobs['n1']['state'] == 'COMPLETED'
    assert read == []


def test_a_job_that_names_no_unavailable_node_gives_up_all_of_them(
        stand_in_slurm, tmp_path, monkeypatch):
    stand_in_slurm(down={'n2'})
    monkeypatch.setattr(slurm_jobs, 'unavailable', lambda *_: [])
    jobs = _watch(tmp_path, per_job=2).run()
    assert [jobs[n].get('gave_up', '')[:15] for n in NODES] == [
        'ReqNodeNotAvail', 'ReqNodeNotAvail', '', '']


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
