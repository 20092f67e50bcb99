'''The site's limits on a fleet night's node jobs, read from Slurm before
the first one is submitted, and what they leave the night.

- the jobs Slurm holds at once (``scontrol show config``: ``MaxJobCount``,
  less the jobs it holds now) and a user may submit
  (``sacctmgr``: the association's and the QOS's ``MaxSubmitJobs``, less
  the user's jobs now): at most that many node jobs are queued at once,
  the next submitted as one ends;
- the Slurm partition (``scontrol show partition``): it must be up; its
  ``MaxTime`` (and its QOS's ``MaxWall``) bounds a node job's time limit,
  its ``DefaultTime`` is the limit when none is asked (else the bound,
  else :data:`DEFAULT_MINUTES`); its QOS's limits apply;
- a reservation (``scontrol show reservation``): it must exist and not
  have ended; a node job's time limit ends a minute before it does (a job
  that would outlast it never starts).

Each limit that bounds the night is said (:attr:`Limits.bounds`), in the
run's log and summary. Without an accounting database (``sacctmgr`` does
not answer) the per-user limits are unknown, and said to be.
'''

import getpass
import math
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Optional

#: Minutes a node job's time limit ends before its reservation does.
RESERVATION_MARGIN_MIN = 1

#: A node job's time limit where neither Slurm nor the run sets one: a
#: node whose job hangs must not hold the night forever.
DEFAULT_MINUTES = 120

_SETTING = re.compile(r'^(?P<name>\w+)\s*=\s*(?P<value>.*?)\s*$', re.M)
_FIELD = re.compile(r'(?P<name>\w+)=(?P<value>\S*)')
_UNBOUNDED = ('', 'UNLIMITED', 'INFINITE', 'NONE', 'N/A', '(null)')


class SlurmUnavailable(RuntimeError):
    '''Slurm could not be asked; the message says what failed.'''


def run(*args):
    '''Standard output of a Slurm command.

    :raises SlurmUnavailable: if it is missing or fails.
    '''
    if not shutil.which(args[0]):
        raise SlurmUnavailable(f'{args[0]} is not installed')

    done = subprocess.run(list(args), capture_output=True, text=True)
    if done.returncode != 0:
        raise SlurmUnavailable(f'{" ".join(args)}: '
                               f'{" ".join(done.stderr.split()) or "failed"}')

    return done.stdout


def settings(text):
    '''``{name: value}`` of ``scontrol show config``'s output.'''
    return {m['name']: m['value'] for m in _SETTING.finditer(text)}


def fields(line):
    '''``{name: value}`` of one line of ``scontrol -o show ...``.'''
    return {m['name']: m['value'] for m in _FIELD.finditer(line)}


def minutes(text):
    '''Minutes of a Slurm time (``UNLIMITED``, ``D-HH:MM:SS``, ``D-HH:MM``,
    ``D-HH``, ``HH:MM:SS``, ``MM:SS``, ``MM``), rounded up; ``None`` for
    no limit.

    :raises ValueError: if it is none of those.
    '''
    text = (text or '').strip()
    if text.upper() in _UNBOUNDED:
        return None

    days, _, clock = text.rpartition('-')
    parts = [int(p) for p in clock.split(':')]
    if len(parts) == 1:
        seconds = parts[0] * (3600 if days else 60)
    elif len(parts) == 2:
        seconds = (parts[0] * 3600 + parts[1] * 60 if days
                   else parts[0] * 60 + parts[1])
    elif len(parts) == 3:
        seconds = parts[0] * 3600 + parts[1] * 60 + parts[2]
    else:
        raise ValueError(f'{text!r} is not a Slurm time')

    seconds += int(days or 0) * 86400
    return math.ceil(seconds / 60)


def number(text):
    '''A Slurm count; ``None`` for no limit.'''
    text = (text or '').strip()
    return None if text.upper() in _UNBOUNDED or not text.isdigit() \
        else int(text)


def stamp(text):
    '''Unix time of a Slurm time stamp (local time).'''
    return datetime.fromisoformat(text).timestamp()


@dataclass
class Limits:
    '''What the site's limits leave a night of ``nodes`` node jobs.'''
    #: at most this many node jobs queued at once; ``None``: all
    queued: Optional[int] = None
    #: each node job's time limit in minutes
    minutes: Optional[int] = None
    #: the limits that bound the night, one line each
    bounds: list = field(default_factory=list)
    #: what was read and not binding, or could not be read
    notes: list = field(default_factory=list)
    #: why the night cannot run, else ``None``
    problem: Optional[str] = None


def _user_limits(ask, user, qos_names):
    """``(submit, wall)``: ``[(MaxSubmitJobs, where)]`` of the user's
    association and of the QOS ``qos_names`` and ``[(MaxWall minutes,
    where)]`` of those QOS.

    :raises SlurmUnavailable: without an accounting database.
    """
    submit, wall = [], []
    for line in ask('sacctmgr', '-nP', 'show', 'assoc', 'where',
                    f'user={user}', 'format=MaxSubmit,QOS').splitlines():
        limit, _, qos = line.partition('|')
        if number(limit) is not None:
            submit.append((number(limit), f'MaxSubmitJobs {limit} of user '
                                          f'{user}\'s association'))
        qos_names += [q for q in qos.split(',') if q]

    for name in sorted(set(q for q in qos_names if q not in _UNBOUNDED)):
        for line in ask('sacctmgr', '-nP', 'show', 'qos', 'where',
                        f'name={name}',
                        'format=Name,MaxSubmitPU,MaxWall').splitlines():
            _, most, longest = (line.split('|') + ['', ''])[:3]
            if number(most) is not None:
                submit.append((number(most), f'MaxSubmitJobsPerUser {most} '
                                             f'of QOS {name}'))
            if minutes(longest) is not None:
                wall.append((minutes(longest), f'MaxWall {longest} of QOS '
                                               f'{name}'))

    return submit, wall


def _reservation(ask, name, now):
    """``(minutes left for a node job, end)`` of reservation ``name``.

    :raises ValueError: if it cannot be read or leaves no time.
    """
    try:
        found = fields(ask('scontrol', '-o', 'show', 'reservation', name))
        ends = stamp(found['EndTime'])
        starts = stamp(found.get('StartTime') or found['EndTime'])
    except (SlurmUnavailable, KeyError, ValueError):
        raise ValueError(f'reservation {name} cannot be read from Slurm '
                         f'(does it exist?)') from None

    left = math.floor((ends - max(now, starts)) / 60) - \
        RESERVATION_MARGIN_MIN
    if left < 1:
        raise ValueError(f'reservation {name} ends at {found["EndTime"]}: '
                         f'no time left for a node job')

    return left, found['EndTime']


def read(nodes, partition=None, reservation=None, asked_minutes=None,
         asked_queued=None, ask=run, now=None, user=None):
    """:func:`limits`, or the :class:`Limits` of a Slurm whose answers
    cannot be read (its ``problem`` says which)."""
    try:
        return limits(nodes, partition, reservation, asked_minutes,
                      asked_queued, ask, now, user)
    except ValueError as err:
        return Limits(problem=f'Slurm\'s limits cannot be read: {err}')


def limits(nodes, partition=None, reservation=None, asked_minutes=None,
           asked_queued=None, ask=run, now=None, user=None):
    """The :class:`Limits` of a night of ``nodes`` node jobs in Slurm
    partition ``partition`` (``None``: Slurm's default), in
    ``reservation``, with a time limit of ``asked_minutes`` and at most
    ``asked_queued`` queued (``--max-jobs``) where asked. ``ask`` runs a
    Slurm command (:func:`run`)."""
    now = time.time() if now is None else now
    user = user or getpass.getuser()
    limits = Limits()
    try:
        conf = settings(ask('scontrol', 'show', 'config'))
        held = len(ask('squeue', '-h', '-o', '%i').split())
        mine = len(ask('squeue', '-h', '-u', user, '-o', '%i').split())
        shown = [fields(line) for line in
                 ask('scontrol', '-o', 'show', 'partition').splitlines()]
    except SlurmUnavailable as err:
        limits.problem = f'Slurm cannot be asked: {err}'
        return limits

    part = next((p for p in shown if (
        p.get('PartitionName') == partition if partition else
        p.get('Default') == 'YES')), None)
    if part is None:
        limits.problem = (f'Slurm has no partition {partition}' if partition
                          else 'Slurm has no default partition')
        return limits

    name = part['PartitionName']
    if part.get('State') != 'UP':
        limits.problem = f'partition {name} is {part.get("State")}'
        return limits

    rooms, walls = [], []
    if asked_queued is not None:
        rooms.append((asked_queued, f'--max-jobs {asked_queued}'))
    most = number(conf.get('MaxJobCount'))
    if most is not None:
        rooms.append((most - held, f'MaxJobCount {most} (Slurm holds '
                                   f'{held} job(s) now)'))
    if minutes(part.get('MaxTime')) is not None:
        walls.append((minutes(part['MaxTime']), f'MaxTime '
                      f'{part["MaxTime"]} of partition {name}'))

    try:
        submit, wall = _user_limits(ask, user, [part.get('QoS', '')])
        rooms += [(limit - mine, f'{why} ({user} has {mine} job(s) now)')
                  for limit, why in submit]
        walls += wall
    except SlurmUnavailable:
        limits.notes.append('no accounting database (sacctmgr does not '
                            'answer): per-user and QOS limits unknown')

    if reservation:
        try:
            left, ends = _reservation(ask, reservation, now)
        except ValueError as err:
            limits.problem = str(err)
            return limits

        walls.append((left, f'reservation {reservation} ends at {ends}'))

    room = min(rooms, default=None)
    if room is not None and room[0] < nodes:
        limits.queued = max(1, room[0])
        limits.bounds.append(f'at most {limits.queued} node job(s) queued '
                             f'at once of {nodes}: {room[1]}')

    wanted = asked_minutes or minutes(part.get('DefaultTime'))
    wall = min(walls, default=None)
    if wall is not None and (wanted is None or wall[0] < wanted):
        limits.minutes = wall[0]
        asked = f' (asked: {asked_minutes} min)' if asked_minutes else ''
        limits.bounds.append(f'a node job\'s time limit {wall[0]} min: '
                             f'{wall[1]}{asked}')
    elif wanted is not None:
        limits.minutes = wanted
    else:
        limits.minutes = DEFAULT_MINUTES
        limits.notes.append(f'no time limit from Slurm or '
                            f'--node-time-limit: a node job\'s is '
                            f'{DEFAULT_MINUTES} min')

    return limits
