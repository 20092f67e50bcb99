'''A night's node jobs through Slurm: submitted, at most as many queued at
once as the site's limits leave (:mod:`.site_limits`), watched to their
end.

A job covers one node or several of one partition, in the night's order
(:func:`groups`, :func:`nodes_per_job`): ``sbatch --nodes=K
--nodelist=<its nodes> ...``, the names going to ``sbatch`` as arguments,
never into shell text; the script is the same for every job (``job.sh``
for one node; for several, ``nodes.sh``: one step, a task a node, each
running ``job.sh``, see :mod:`.coordinator`). One ``squeue`` a poll asks
for the night's jobs still queued or running (by the night's job name); a
job gone from it ended, and one more ``squeue`` reads how while Slurm
still holds its record (``MinJobAge``); after that each node's own record
says (:mod:`.collect`). A job pending for a reason Slurm will not resolve
by itself (a node down, drained or gone, its partition down:
:data:`STUCK`) is cancelled and its node said not to have started; in a
job of several nodes, only the nodes Slurm names as unavailable are, and
the others are submitted again without them. A running job of several
nodes is cancelled once every node of it whose run has not ended is one
Slurm has set down for not responding (:func:`dead_nodes`; asked only
while such jobs run): with ``--no-kill`` Slurm would hold it to its time
limit for the dead node (seen: the others' runs ended at 20 s, the job at
its limit), and the night with it. Polls are a second apart while jobs change,
further apart (up to :func:`slowest_poll`) while they do not.
'''

import math
import re
import signal
import subprocess
import time
from dataclasses import dataclass

from hpc_acceptance.tools.launch import reframe_call
from hpc_acceptance.tools.node_jobs.night import write_json

#: Slurm's states of a job that has ended.
ENDED = frozenset({'COMPLETED', 'FAILED', 'TIMEOUT', 'NODE_FAIL',
                   'CANCELLED', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE',
                   'PREEMPTED', 'SPECIAL_EXIT', 'REVOKED'})

#: Pending reasons that Slurm does not resolve by waiting: the job's node
#: or partition is unavailable, or the job can never run as asked
#: (reasons as ``squeue %r`` prints them).
STUCK = ('ReqNodeNotAvail', 'NodeDown', 'PartitionDown',
         'PartitionInactive', 'PartitionTimeLimit', 'PartitionNodeLimit',
         'BadConstraints', 'InvalidQOS', 'InvalidAccount', 'JobHeldAdmin',
         'DependencyNeverSatisfied', 'FrontEndDown', 'Reservation ended')

#: At most this many jobs a night by default: one a node up to this many
#: nodes, beyond it jobs of several nodes. An ``sbatch`` and a line of every
#: ``squeue`` a job are the coordinator's cost, which grows with the jobs,
#: not with the nodes (``ci/bench/README.md``, "Jobs of several nodes").
MOST_JOBS = 64

#: The first poll's delay, and the factor it grows by while nothing
#: changes.
FIRST_POLL_S = 1.0
POLL_GROWTH = 1.5

_JOB_NAME_CHARS = re.compile(r'[^A-Za-z0-9._-]')


def slowest_poll(nodes):
    '''The longest wait between polls of a night of ``nodes`` jobs: 2 s
    for a few nodes, 30 s from 3000 (a poll costs ``squeue`` a line per
    job).'''
    return min(30.0, max(2.0, nodes / 100))


def job_name(stem):
    '''The Slurm job name of a night's jobs: ``hpcacc-<report stem>``,
    in the characters Slurm takes.'''
    return 'hpcacc-' + _JOB_NAME_CHARS.sub('_', stem)[-100:]


def nodes_per_job(nodes, asked=None):
    '''The nodes a job covers on a night of ``nodes`` nodes: ``asked``
    (``--nodes-per-job``) where given, else one up to :data:`MOST_JOBS`
    nodes, and as many as keep the jobs to :data:`MOST_JOBS` beyond.'''
    if asked:
        return max(1, min(asked, nodes))
    return max(1, math.ceil(nodes / MOST_JOBS))


def groups(nodes, per_node, size):
    '''The night's jobs, each a list of nodes: ``nodes`` in their order, at
    most ``size`` a job, a job's nodes sharing their partition's ``sbatch``
    options (``per_node``: ``{node: options}``).'''
    found = []
    for node in nodes:
        options = per_node.get(node, [])
        if found and len(found[-1]) < size and \
                per_node.get(found[-1][0], []) == options:
            found[-1].append(node)
        else:
            found.append([node])

    return found


def unavailable(reason, nodes):
    '''Those of ``nodes`` that a pending job's ``reason`` names as
    unavailable (``ReqNodeNotAvail, UnavailableNodes:n[3-4]``), expanded by
    ``scontrol show hostnames``; none where it names none.'''
    _, found, named = reason.partition('UnavailableNodes:')
    named = named.split()[0].rstrip(',') if named.split() else ''
    if not found or not named:
        return []

    done = subprocess.run(['scontrol', 'show', 'hostnames', named],
                          capture_output=True, text=True)
    listed = set(done.stdout.split()) if done.returncode == 0 else set()
    return [node for node in nodes if node in listed]


class SubmitError(RuntimeError):
    '''``sbatch`` refused a job; the message is its.'''


def submit(argv):
    '''The id of the job ``sbatch --parsable ...`` submitted.

    :raises SubmitError: if sbatch refused it.
    '''
    done = subprocess.run(argv, capture_output=True, text=True)
    job = done.stdout.strip().split(';')[0]
    if done.returncode != 0 or not job.isdigit():
        raise SubmitError(' '.join(done.stderr.split()) or
                          f'sbatch exited {done.returncode}')

    return job


def queue(name, states=None):
    '''``{job id: (state, reason)}`` of the jobs called ``name``
    (``states``: ``all``, else those queued or running); ``None`` when
    squeue does not answer.'''
    command = ['squeue', '-h', '--me', '--name', name, '-o', '%i|%T|%r']
    if states:
        command[2:2] = ['-t', states]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return None

    found = {}
    for line in done.stdout.splitlines():
        job, state, reason = (line.split('|', 2) + ['', ''])[:3]
        found[job.strip()] = (state.strip(), reason.strip())

    return found


def cancel(job):
    subprocess.run(['scancel', job], capture_output=True)


def dead_nodes():
    '''The nodes Slurm has set down for not responding (``sinfo --dead``,
    in state ``down``): a node that missed a ping alone (a loaded node's
    slurmd may) is not, its run may still end; ``None`` when sinfo does
    not answer.'''
    done = subprocess.run(['sinfo', '-h', '--dead', '-N', '-o', '%N|%T'],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return None

    return {node for node, _, state in (
        line.partition('|') for line in done.stdout.split())
        if state.lower().startswith('down')}


def is_stuck(reason):
    return any(reason.startswith(word) for word in STUCK)


@dataclass
class Plan:
    '''How a night's jobs are submitted.'''
    #: the job script
    script: str
    #: ``sbatch`` arguments every node's job has, before ``--nodelist``
    options: list
    #: the night's job name
    name: str
    #: at most this many queued at once; ``None``: all
    queued: int = None
    #: ``{node: sbatch arguments of its partition}`` (its ``access``)
    per_node: dict = None
    #: the nodes a job covers at most (:func:`nodes_per_job`)
    per_job: int = 1
    #: the job script of a job of several nodes
    group_script: str = None


def sbatch_argv(plan, nodes):
    '''``sbatch``'s arguments for the job of ``nodes``; a node that fails
    in a job of several does not end the job (``--no-kill``).'''
    several = len(nodes) > 1
    return ['sbatch', '--parsable', f'--job-name={plan.name}',
            f'--nodes={len(nodes)}', *plan.options,
            *(plan.per_node or {}).get(nodes[0], []),
            *(['--no-kill'] if several else []),
            f'--nodelist={",".join(nodes)}',
            plan.group_script if several else plan.script]


def _named(nodes):
    return nodes[0] if len(nodes) == 1 else \
        f'{len(nodes)} nodes ({nodes[0]} to {nodes[-1]})'


class Watch:
    '''The night's jobs, submitted and watched (:meth:`run`); ``jobs``:
    ``{node: {job, nodes, submitted, state, reason, started, ended,
    gave_up, refused, lost}}`` (``nodes``: how many its job covers, where
    more than one), kept in ``path`` as they change; ``finished(node)``:
    whether the node's run recorded its end.'''

    def __init__(self, plan, nodes, path, say, finished,
                 clock=time.time, sleep=time.sleep):
        self.plan = plan
        self.finished = finished
        self.waiting = groups(list(nodes), plan.per_node or {},
                              plan.per_job)
        self.path = path
        self.say = say
        self.clock = clock
        self.sleep = sleep
        self.jobs = {}
        #: ``{job: its nodes}`` of the jobs queued or running
        self.active = {}
        self.window = plan.queued
        self.slowest = slowest_poll(len(nodes))
        self.received = []
        #: sbatch's and squeue's asked so far
        self.submissions = 0
        self.polls = 0

    def _update(self, nodes, **values):
        for node in nodes:
            self.jobs[node].update(values)

    def _submit_more(self):
        changed = False
        while self.waiting and (self.window is None or
                                len(self.active) < self.window):
            nodes = self.waiting.pop(0)
            self.submissions += 1
            try:
                job = submit(sbatch_argv(self.plan, nodes))
            except SubmitError as err:
                if 'limit' in str(err).lower() and self.active:
                    # the user's or the QOS's limit, reached by jobs
                    # submitted since the night started: wait for ours
                    self.waiting.insert(0, nodes)
                    self.window = len(self.active)
                    self.say(f'sbatch refused {_named(nodes)}\'s job '
                             f'({err}): at most {self.window} queued from '
                             f'now on')
                    return changed
                for node in nodes:
                    self.jobs[node] = {'job': None, 'refused': str(err),
                                       'ended': self.clock()}
                self.say(f'{_named(nodes)}: sbatch refused its job: {err}')
            else:
                self.active[job] = nodes
                several = {'nodes': len(nodes)} if len(nodes) > 1 else {}
                for node in nodes:
                    self.jobs[node] = {'job': job, **several,
                                       'submitted': self.clock(),
                                       'state': 'PENDING', 'reason': '',
                                       'started': None, 'ended': None}
            changed = True

        return changed

    def _give_up(self, job, nodes, reason):
        '''Cancel ``job``, stuck for ``reason``: its nodes Slurm names as
        unavailable (all, for a job of one node or where it names none)
        did not start; the others wait to be submitted again.'''
        cancel(job)
        del self.active[job]
        lost = (len(nodes) > 1 and unavailable(reason, nodes)) or nodes
        others = [node for node in nodes if node not in lost]
        self._update(lost, gave_up=reason, ended=self.clock())
        for node in others:
            del self.jobs[node]
        if others:
            self.waiting.insert(0, others)
        self.say(f'{_named(lost)}: {"its" if len(lost) == 1 else "their"} '
                 f'job {job} cannot start ({reason}): cancelled'
                 + (f'; its {len(others)} other node(s) submitted again'
                    if others else ''))

    def _end_held(self):
        '''Cancel each running job of several nodes whose runs left are
        all on nodes Slurm has set down (:func:`dead_nodes`); those nodes
        are said ``lost``, the job ended. Whether any was.'''
        running = [(job, nodes) for job, nodes in self.active.items()
                   if len(nodes) > 1 and
                   self.jobs[nodes[0]]['state'] == 'RUNNING']
        dead = dead_nodes() if running else None
        if not dead:
            return False

        changed = False
        for job, nodes in running:
            # a node's record is read only for a job with a dead node:
            # a site's cluster has some at any time, its night's jobs not
            if dead.isdisjoint(nodes):
                continue
            left = [node for node in nodes if not self.finished(node)]
            if left and dead.issuperset(left):
                cancel(job)
                del self.active[job]
                self._update(nodes, state='CANCELLED', ended=self.clock())
                self._update(left, lost='Slurm set the node down: not '
                                        'responding')
                self.say(f'{_named(left)}: down, not responding; the other '
                         f'nodes\' runs ended: job {job} cancelled')
                changed = True

        return changed

    def _poll(self):
        '''Update the jobs from Slurm; whether any changed.'''
        self.polls += 1
        queued = queue(self.plan.name)
        if queued is None:
            return False

        changed = False
        gone = []
        for job, nodes in list(self.active.items()):
            state, reason = queued.get(job, (None, None))
            if state is None:
                gone.append(job)
                continue

            entry = self.jobs[nodes[0]]
            if state != 'PENDING' and entry['started'] is None:
                self._update(nodes, started=self.clock())
            if (state, reason) != (entry['state'], entry['reason']):
                self._update(nodes, state=state, reason=reason)
                changed = True
            if state == 'PENDING' and is_stuck(reason):
                self._give_up(job, nodes, reason)
                changed = True

        if gone:
            ended = queue(self.plan.name, 'all') or {}
            for job in gone:
                state, reason = ended.get(job, (None, ''))
                nodes = self.active.pop(job)
                self._update(nodes, state=state or 'ENDED',
                             ended=self.clock())
                if state and state != 'COMPLETED':
                    self._update(nodes, reason=reason)
            changed = True

        return self._end_held() or changed

    def _wait(self, seconds):
        '''Sleep ``seconds``, or until a signal came.'''
        deadline = self.clock() + seconds
        while not self.received and self.clock() < deadline:
            self.sleep(min(0.2, seconds))

    def _on_signal(self, signum, _frame):
        self.received.append(signum)

    def run(self):
        '''Submit and watch until every node's job has ended; the jobs.

        :raises reframe_call.Interrupted: on Ctrl-C or SIGTERM: nothing
            more is submitted, the jobs queued go on (see
            :mod:`.collect`).
        '''
        handlers = {signum: signal.signal(signum, self._on_signal)
                    for signum in (signal.SIGINT, signal.SIGTERM)}
        try:
            delay = FIRST_POLL_S
            while (self.waiting or self.active) and not self.received:
                submitted = self._submit_more()
                if submitted:
                    write_json(self.path, self.jobs)
                self._wait(delay)
                if self.received:
                    break
                polled = self._poll()
                if polled:
                    write_json(self.path, self.jobs)
                delay = FIRST_POLL_S if polled or submitted else min(
                    delay * POLL_GROWTH, self.slowest)
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            write_json(self.path, self.jobs)

        if self.received:
            raise reframe_call.Interrupted(self.received[0])

        return self.jobs
