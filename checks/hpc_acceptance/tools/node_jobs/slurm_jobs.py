'''A night's node jobs through Slurm: submitted, at most as many queued at
once as the site's limits leave (:mod:`.site_limits`), watched to their
end.

Each node's job is ``sbatch --nodelist=<node> ... job.sh``: the node's name
goes to ``sbatch`` as an argument, never into shell text; the script is
the same for every node. One ``squeue`` a poll asks for the night's jobs
still queued or running (by the night's job name); a job gone from it
ended, and one more ``squeue`` reads how while Slurm still holds its record
(``MinJobAge``); after that the job's own record on the node says
(:mod:`.collect`). A job pending for a reason Slurm will not resolve by
itself (its node down, drained or gone, its partition down: :data:`STUCK`)
is cancelled and its node said not to have started. Polls are a second
apart while jobs change, further apart (up to :func:`slowest_poll`) while
they do not.
'''

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


def sbatch_argv(plan, node):
    return ['sbatch', '--parsable', f'--job-name={plan.name}', *plan.options,
            *(plan.per_node or {}).get(node, []), f'--nodelist={node}',
            plan.script]


class Watch:
    '''The night's jobs, submitted and watched (:meth:`run`); ``jobs``:
    ``{node: {job, submitted, state, reason, started, ended, gave_up,
    refused}}``, kept in ``path`` as they change.'''

    def __init__(self, plan, nodes, path, say, clock=time.time,
                 sleep=time.sleep):
        self.plan = plan
        self.waiting = list(nodes)
        self.path = path
        self.say = say
        self.clock = clock
        self.sleep = sleep
        self.jobs = {}
        self.window = plan.queued
        self.slowest = slowest_poll(len(nodes))
        self.received = []
        #: squeue's asked so far
        self.polls = 0

    def _queued(self):
        return [n for n, j in self.jobs.items()
                if j.get('job') and j.get('ended') is None]

    def _submit_more(self):
        changed = False
        while self.waiting and (self.window is None or
                                len(self._queued()) < self.window):
            node = self.waiting.pop(0)
            argv = sbatch_argv(self.plan, node)
            try:
                job = submit(argv)
            except SubmitError as err:
                if 'limit' in str(err).lower() and self._queued():
                    # the user's or the QOS's limit, reached by jobs
                    # submitted since the night started: wait for ours
                    self.waiting.insert(0, node)
                    self.window = len(self._queued())
                    self.say(f'sbatch refused {node}\'s job ({err}): at '
                             f'most {self.window} queued from now on')
                    return changed
                self.jobs[node] = {'job': None, 'refused': str(err),
                                   'ended': self.clock(), 'sbatch': argv}
                self.say(f'{node}: sbatch refused its job: {err}')
            else:
                self.jobs[node] = {'job': job, 'submitted': self.clock(),
                                   'state': 'PENDING', 'reason': '',
                                   'started': None, 'ended': None,
                                   'sbatch': argv}
            changed = True

        return changed

    def _poll(self):
        '''Update the jobs from Slurm; whether any changed.'''
        self.polls += 1
        active = queue(self.plan.name)
        if active is None:
            return False

        changed = False
        gone = []
        for node in self._queued():
            entry = self.jobs[node]
            state, reason = active.get(entry['job'], (None, None))
            if state is None:
                gone.append(node)
                continue

            if state != 'PENDING' and entry['started'] is None:
                entry['started'] = self.clock()
            if (state, reason) != (entry['state'], entry['reason']):
                entry['state'], entry['reason'] = state, reason
                changed = True
            if state == 'PENDING' and is_stuck(reason):
                cancel(entry['job'])
                entry.update(gave_up=reason, ended=self.clock())
                self.say(f'{node}: its job {entry["job"]} cannot start '
                         f'({reason}): cancelled')
                changed = True

        if gone:
            ended = queue(self.plan.name, 'all') or {}
            for node in gone:
                entry = self.jobs[node]
                state, reason = ended.get(entry['job'], (None, ''))
                entry.update(state=state or 'ENDED', ended=self.clock())
                if state and state != 'COMPLETED':
                    entry['reason'] = reason
            changed = True

        return changed

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
            while (self.waiting or self._queued()) and not self.received:
                changed = self._submit_more()
                write_json(self.path, self.jobs)
                self._wait(delay)
                if self.received:
                    break
                changed = self._poll() or changed
                delay = FIRST_POLL_S if changed else min(
                    delay * POLL_GROWTH, self.slowest)
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            write_json(self.path, self.jobs)

        if self.received:
            raise reframe_call.Interrupted(self.received[0])

        return self.jobs
