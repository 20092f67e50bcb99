'''One acceptance or post-upgrade run per checkout at a time.

    python3 -m hpc_acceptance.tools.launch.lock [--wait] -- COMMAND [ARGS...]

Runs COMMAND holding an exclusive ``flock`` on ``var/run.lock``. Two runs
in one checkout would share stage directories, perflogs and the results
database and read each other's half-written output; the second one
instead refuses (exit 4), naming the running one's pid, start time and
command, or with ``--wait`` waits for it.

The lock is the kernel's: it goes with the process holding it, so a run
killed in any way (Ctrl-C, SIGTERM from a batch time limit, SIGKILL)
leaves no stale lock. SIGINT and SIGTERM are passed on to COMMAND, and its
exit status is returned (128 + signal if a signal ended it).

Standard library only: ``ci/acceptance.sh`` takes the lock before it sets
up the virtual environment.
'''

import argparse
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hpc_acceptance.tools.common import command_settings, file_modes

#: Exit status when another run holds the lock.
BUSY = 4


def holder(path):
    '''``{pid, started, command}`` of the run that holds the lock, as it
    wrote them; ``{}`` if they cannot be read.'''
    try:
        return json.loads(Path(path).read_text() or '{}')
    except (OSError, json.JSONDecodeError):
        return {}


def describe(info):
    if not info:
        return 'another run (no details recorded)'

    return (f'pid {info.get("pid")}, started {info.get("started")}: '
            f'{" ".join(info.get("command", []))}')


def acquire(path, command, wait):
    '''The open lock file, locked, with this run's details in it; ``None``
    if another run holds it and ``wait`` is false.'''
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fp = open(path, 'a+')
    try:
        fcntl.flock(fp, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if not wait:
            fp.close()
            return None

        print(f'run_lock: waiting for {describe(holder(path))}',
              file=sys.stderr)
        fcntl.flock(fp, fcntl.LOCK_EX)

    fp.seek(0)
    fp.truncate()
    fp.write(json.dumps({
        'pid': os.getpid(),
        'started': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
        'command': command,
    }))
    fp.flush()
    return fp


class Forwarder:
    '''Passes SIGINT and SIGTERM on to the run once it has started;
    before that (waiting for the lock) they end this process.'''

    def __init__(self):
        self.child = None
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self.forward)

    def forward(self, signum, _frame):
        if self.child is None:
            sys.exit(128 + signum)

        # To the whole group: a shell dies of SIGTERM at once, leaving the
        # ReFrame it runs in the foreground to go on without the lock.
        try:
            os.killpg(self.child.pid, signum)
        except ProcessLookupError:
            pass

    def run(self, command, env):
        '''Run ``command``; its exit status, 128 + signal if one ended
        it. Returns only when every process of the run has ended.'''
        # In a process group of its own, so that Ctrl-C reaches it once,
        # from here, rather than twice (from the terminal and from here).
        self.child = subprocess.Popen(command, env=env, process_group=0)
        status = self.child.wait()
        while _group_alive(self.child.pid):
            time.sleep(0.2)

        return 128 - status if status < 0 else status


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False

    return True


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='run_lock', description=__doc__.split('\n\n')[0])
    parser.add_argument('--wait', action='store_true',
                        help='wait for a running run instead of refusing')
    parser.add_argument('--lock-file',
                        help=f'the lock (default: '
                             f'${command_settings.LOCK_FILE}, else '
                             f'{command_settings.DEFAULT_LOCK})')
    parser.add_argument('command', nargs='+', help='the run, after --')
    args = parser.parse_args(argv)
    try:
        given = command_settings.read()
    except command_settings.BadSetting as err:
        print(f'run_lock: {err}', file=sys.stderr)
        return 2
    args.lock_file = args.lock_file or given.lock_file

    # var/, the lock and all the run writes: the site's and its account's
    file_modes.keep_private()
    forwarder = Forwarder()
    lock = acquire(args.lock_file, args.command, args.wait)
    if lock is None:
        print(f'run_lock: refused: {describe(holder(args.lock_file))} is '
              f'running in this checkout ({args.lock_file}); wait for it, '
              f'or run again with HPC_ACCEPTANCE_WAIT=1 to wait for it',
              file=sys.stderr)
        return BUSY

    with lock:
        return forwarder.run(args.command,
                             dict(os.environ,
                                  **{command_settings.LOCK_HELD: '1'}))


if __name__ == '__main__':
    sys.exit(main())
