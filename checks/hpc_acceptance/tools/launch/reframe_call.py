'''One ReFrame run started by a tool, its output in a log file.

A tool that runs ReFrame itself (``hpc-acceptance post-upgrade``,
``hpc-acceptance suspects --resume``)
holds the checkout's run lock (:mod:`.lock`) unless the script that
called it does, and lets Ctrl-C and a batch system's SIGTERM reach ReFrame
(which stops its checks and stores what it ran) rather than kill it first.
'''

import contextlib
import os
import signal
import subprocess
import sys

from hpc_acceptance.tools.launch import lock
from hpc_acceptance.tools.launch import report_file
from hpc_acceptance.tools.results.runs import CONFIG, REFRAME


class Interrupted(Exception):
    '''Ctrl-C or SIGTERM arrived while ReFrame ran; the signal number.'''


class Busy(Exception):
    '''Another run holds the checkout's run lock; who.'''


@contextlib.contextmanager
def signals_to_reframe():
    '''Ctrl-C and SIGTERM reach the whole process group: ReFrame stops its
    checks and stores what it ran. Here they only stop what follows;
    Python's default would kill ReFrame before it stored anything.'''
    received = []
    handlers = {signum: signal.signal(signum,
                                      lambda n, _: received.append(n))
                for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)

    if received:
        raise Interrupted(received[0])


@contextlib.contextmanager
def run_lock_held(command, given):
    '''Hold the run lock of the settings ``given`` for the ``with`` block,
    unless the calling script holds it already.

    :raises Busy: naming the run that holds it.
    '''
    if given.lock_held:
        yield
        return

    path = given.lock_file
    held = lock.acquire(path, command, wait=False)
    if held is None:
        raise Busy(lock.describe(lock.holder(path)))

    with held:
        yield


def log_of(report):
    '''The log file beside a JSON report.'''
    return report_file.stem(report) + '.log'


def run(args, report, prefix, env=None, echo=False):
    '''Run ``reframe -C CONFIG ARGS`` writing its JSON report to
    ``report`` and its output to the log beside it, said on a line that
    starts with ``prefix`` (``echo``: the output shown as it comes, too);
    ReFrame's exit status.

    :raises Interrupted: if a signal stopped the run.
    '''
    log = log_of(report)
    print(f"{prefix}: ReFrame's output goes to {log}", flush=True)
    # only a file sees the output, or a file too: no colour codes in it
    command = [REFRAME, '-C', str(CONFIG), *args]
    env = dict(os.environ, RFM_REPORT_FILE=report, RFM_COLORIZE='n',
               **(env or {}))
    with open(log, 'w') as out, signals_to_reframe():
        if not echo:
            return subprocess.run(command, env=env, stdout=out,
                                  stderr=subprocess.STDOUT).returncode

        with subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) as shown:
            for line in shown.stdout:
                out.write(line)
                sys.stdout.write(line)
                sys.stdout.flush()

        return shown.returncode


class Launcher:
    '''How the ReFrame runs of one run are made: the word their lines start
    with, the reservation, options every run gets, the environment they
    add, whether their output shows on the console too, and the system
    ReFrame runs for without ``--system`` (the settings' ``RFM_SYSTEM``).'''

    def __init__(self, prefix, reservation=None, extra=(), env=None,
                 echo=False, system=None):
        self.prefix = prefix
        self.job = ['-J', f'reservation={reservation}'] if reservation \
            else []
        self.extra = list(extra)
        #: what the runs' environment adds to this process's
        self.env = dict(env or {})
        self.echo = echo
        self.system = system

    def arguments(self, head, reframe_args):
        '''ReFrame's arguments of a run: ``head`` (its mode and what
        selects it), the reservation, the options every run gets, then the
        run's own ``reframe_args``.'''
        return [*head, *self.job, *self.extra, *reframe_args]

    def reframe(self, report, args):
        '''``(report, ReFrame's exit status)`` of ``reframe ARGS``.

        :raises Interrupted: if a signal stopped it.
        '''
        return report, run(args, report, self.prefix, self.env, self.echo)
