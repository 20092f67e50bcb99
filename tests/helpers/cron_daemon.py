'''A cron.d file's line run by Debian's cron daemon itself (installed by
ci/setup.sh --test, its service never enabled), as it runs it at a site:
its environment (the file's variables, HOME, LOGNAME, PATH=/usr/bin:/bin,
SHELL; PAM's session), ``/bin/sh -c`` with the line's command, the line's
user.

The daemon runs in a private mount namespace whose ``/etc/cron.d`` holds
only the file, whose ``/etc/crontab`` and user crontabs are empty and whose
``/run`` is its own (its pid file; the host's cron, if any, is another).
The line's schedule is made ``@reboot``, which cron runs once at its start
(when its ``/run/crond.reboot`` is absent), so that the test does not wait
for a minute to come round; nothing else of the line changes.
'''

import os
import re
import shutil
import subprocess
import time

import pytest

#: A cron.d entry: five time fields (or an @-word), the user, the command.
_ENTRY = re.compile(r'^(?P<when>@\w+|(?:\S+\s+){4}\S+)\s+(?P<user>\S+)\s+'
                    r'(?P<command>.+)$')


def at_start(text):
    '''The cron.d file ``text`` with its one entry's schedule ``@reboot``.'''
    lines = text.splitlines()
    entries = [n for n, line in enumerate(lines)
               if line.strip() and not line.startswith('#') and
               not re.match(r'^\w+=', line)]
    assert len(entries) == 1, entries
    match = _ENTRY.match(lines[entries[0]])
    assert match, lines[entries[0]]
    lines[entries[0]] = f'@reboot {match["user"]} {match["command"]}'
    return '\n'.join(lines) + '\n'


def _name(pid):
    '''The command name of process ``pid``; '' once it has ended.'''
    try:
        with open(f'/proc/{pid}/comm') as fp:
            return fp.read().strip()
    except OSError:
        return ''


def _children(pid):
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat') as fp:
                fields = fp.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))

    return found


def _starting(daemon, root, started, done, what):
    '''Wait until ``done()``, the daemon alive and within a minute of
    ``started``; else fail saying ``what`` (or cron's log).'''
    while not done():
        assert daemon.poll() is None, (root / 'cron.log').read_text()
        assert time.monotonic() - started < 60, what
        time.sleep(0.1)


def run(text, root, timeout=1800):
    '''Run the one entry of the cron.d file ``text`` under a cron daemon
    started for it, until the command it started has ended; ``root``: a
    folder for the daemon's files. Returns the seconds it took.'''
    if shutil.which('cron') is None or shutil.which('unshare') is None:
        pytest.skip('no cron (ci/setup.sh --test installs it) or unshare')
    if os.geteuid() != 0:
        pytest.skip('cron runs a cron.d line as its user: needs root')

    cron_d = root / 'cron.d'
    spool = root / 'crontabs'
    for folder in (cron_d, spool):
        folder.mkdir(parents=True)
    (root / 'crontab').write_text('')
    # cron skips a file that is group- or world-writable, or has a dot
    (cron_d / 'hpc-acceptance').write_text(at_start(text))
    (cron_d / 'hpc-acceptance').chmod(0o644)
    mounts = ' && '.join([
        'mount -t tmpfs tmpfs /run',
        f'mount --bind {cron_d} /etc/cron.d',
        f'mount --bind {root / "crontab"} /etc/crontab',
        f'mount --bind {spool} /var/spool/cron/crontabs',
        'exec cron -f -L 15'])
    with open(root / 'cron.log', 'w') as log:
        daemon = subprocess.Popen(
            ['unshare', '--mount', '--propagation', 'private', 'sh', '-c',
             mounts], stdout=log, stderr=subprocess.STDOUT)
    started = time.monotonic()
    try:
        # the mounts are the shell's children too: the job's are cron's,
        # once the shell has become cron (exec keeps its pid)
        _starting(daemon, root, started,
                  lambda: _name(daemon.pid) == 'cron', 'cron did not start')
        # cron forks a child per job, which waits for the command
        _starting(daemon, root, started, lambda: _children(daemon.pid),
                  'cron started nothing')
        while _children(daemon.pid):
            assert time.monotonic() - started < timeout
            time.sleep(0.5)
    finally:
        daemon.terminate()
        daemon.wait(timeout=60)

    return time.monotonic() - started
