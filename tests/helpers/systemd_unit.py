'''A oneshot service's command run as systemd runs it (systemd.exec(5), for
a system service), where no systemd runs as PID 1 (this machine, CI):

- in its ``WorkingDirectory=``, as its ``User=`` (root without one), with
  stdin from /dev/null and stdout and stderr to one log (its journal);
- with systemd's environment and nothing of the caller's: systemd's default
  ``PATH`` (``systemd-path search-binaries-default``: systemd's own
  answer), ``USER``, ``LOGNAME``, ``HOME`` and ``SHELL`` only with
  ``User=``, an ``INVOCATION_ID``, then the unit's ``Environment=``
  assignments in order;
- for at most its ``TimeoutStartSec=``.

``systemd-analyze verify`` checks the files themselves (the tests).
'''

import os
import pwd
import re
import shlex
import subprocess
import uuid

#: systemd's time units in TimeoutStartSec=, in seconds.
_UNITS = {'s': 1, 'sec': 1, 'min': 60, 'm': 60, 'h': 3600, 'hr': 3600,
          'd': 86400}


def service_settings(text):
    '''``{key: [values in order]}`` of a unit file's ``[Service]``.'''
    settings = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(('#', ';')):
            continue
        if line.startswith('['):
            section = line
            continue
        if section == '[Service]':
            key, _, value = line.partition('=')
            settings.setdefault(key.strip(), []).append(value.strip())

    return settings


def _seconds(text):
    match = re.fullmatch(r'(\d+)\s*([a-z]*)', text)
    assert match, f'TimeoutStartSec={text}'
    return int(match[1]) * _UNITS[match[2] or 's']


def environment(settings):
    '''The environment systemd gives the service's command.'''
    path = subprocess.run(['systemd-path', 'search-binaries-default'],
                          capture_output=True, text=True,
                          check=True).stdout.strip()
    env = {'PATH': path, 'INVOCATION_ID': uuid.uuid4().hex}
    if settings.get('User'):
        user = pwd.getpwnam(settings['User'][-1])
        env.update(USER=user.pw_name, LOGNAME=user.pw_name,
                   HOME=user.pw_dir, SHELL=user.pw_shell)

    for line in settings.get('Environment', []):
        assert '%' not in line, f'a specifier in Environment={line}'
        if not line:
            env = {k: v for k, v in env.items()
                   if k in ('PATH', 'INVOCATION_ID', 'USER', 'LOGNAME',
                            'HOME', 'SHELL')}
            continue
        for word in shlex.split(line):
            name, _, value = word.partition('=')
            env[name] = value

    return env


def run(text, journal):
    '''Run the ``ExecStart=`` of the unit file ``text`` as systemd would,
    its output to the file ``journal``: the finished process.'''
    settings = service_settings(text)
    assert settings.get('Type') == ['oneshot'], settings.get('Type')
    (command,) = settings['ExecStart']
    assert command[:1] not in '-@:+!' and '%' not in command, command
    user = settings.get('User', ['root'])[-1]
    runner = [] if user == pwd.getpwuid(os.geteuid()).pw_name else \
        ['runuser', '-u', user, '--']
    timeout = settings.get('TimeoutStartSec')
    with open(journal, 'w') as log:
        return subprocess.run(
            [*runner, *shlex.split(command)],
            cwd=settings.get('WorkingDirectory', ['/'])[-1],
            env=environment(settings), stdin=subprocess.DEVNULL,
            stdout=log, stderr=subprocess.STDOUT,
            timeout=_seconds(timeout[-1]) if timeout else None)
