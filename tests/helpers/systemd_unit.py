'''A oneshot service's command run as systemd runs it (systemd.exec(5), for
a system service), where no systemd runs as PID 1 (this machine, CI):

- in its ``WorkingDirectory=``, as its ``User=`` (root without one), with
  stdin from /dev/null and stdout and stderr to one log (its journal);
- with systemd's environment and nothing of the caller's: systemd's default
  ``PATH`` (``systemd-path search-binaries-default``: systemd's own
  answer), ``USER``, ``LOGNAME``, ``HOME`` and ``SHELL`` only with
  ``User=``, an ``INVOCATION_ID``, then the unit's ``Environment=``
  assignments in order;
- for at most its ``TimeoutStartSec=``;
- with the sandbox its hardening asks for, where it asks: ``UMask=``;
  ``NoNewPrivileges=`` and an empty ``CapabilityBoundingSet=`` (setpriv);
  in a private mount namespace, ``ProtectSystem=strict`` (every file
  system read-only but /dev, /proc, /sys and its ``ReadWritePaths=``),
  ``StateDirectory=`` (``<state root>/<name>``, the account's, writable:
  systemd's /var/lib), ``PrivateTmp=`` (its own /tmp and /var/tmp) and
  ``ProtectHome=`` (/home and /root out of reach). So a service that
  writes anywhere else, or needs a privilege, fails here as it would
  under systemd. The rest of its hardening (system call filter, kernel
  and namespace settings) is systemd's alone: ``systemd-analyze
  security`` rates it (tests/ci/test_schedule_recipes.py).

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


#: The sandbox, as root in a private mount namespace: ``$1`` the
#: writable paths (blank-separated), ``$2`` the paths out of reach, then
#: the command that drops to the service's user.
_SANDBOX = r'''
set -e
writable=$1 hidden=$2
shift 2
mount --make-rprivate /
for path in $writable; do mount --bind "$path" "$path"; done
if [ -n "$STRICT" ]; then
    for mountpoint in $(awk '{ print $5 }' /proc/self/mountinfo | sort -u); do
        case " $writable " in *" $mountpoint "*) continue ;; esac
        case $mountpoint in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue ;;
        esac
        mount -o remount,bind,ro "$mountpoint" 2>/dev/null || true
    done
fi
if [ -n "$PRIVATE_TMP" ]; then
    mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
    mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /var/tmp
fi
for path in $hidden; do
    [ -d "$path" ] && mount -t tmpfs -o ro,mode=000 tmpfs "$path"
done
exec "$@"
'''


def _yes(settings, key):
    return settings.get(key, ['no'])[-1] in ('yes', 'true', '1', 'on')


def _sandboxed(settings, command, state_root):
    '''``command`` as the unit's hardening runs it (see the top).'''
    user = settings.get('User', ['root'])[-1]
    drop = ['setpriv', '--reuid', user, '--regid',
            settings.get('Group', [str(pwd.getpwnam(user).pw_gid)])[-1],
            '--init-groups']
    if _yes(settings, 'NoNewPrivileges'):
        drop.append('--no-new-privs')
    if settings.get('CapabilityBoundingSet') == ['']:
        drop += ['--bounding-set', '-all', '--inh-caps', '-all']
    umask = settings.get('UMask', ['0022'])[-1]
    drop += ['sh', '-c', f'umask {umask} && exec "$@"', 'sh', *command]

    writable = [p for line in settings.get('ReadWritePaths', [])
                for p in line.split()]
    for name in settings.get('StateDirectory', []):
        assert state_root, f'StateDirectory={name}: a state root is needed'
        state = state_root / name
        state.mkdir(parents=True, exist_ok=True)
        account = pwd.getpwnam(user)
        os.chown(state, account.pw_uid, account.pw_gid)
        writable.append(str(state))
    assert all(' ' not in p for p in writable), writable
    hidden = ['/home', '/root'] if settings.get('ProtectHome', ['no'])[-1] \
        in ('yes', 'true') else []
    env = {'STRICT': '1' if settings.get('ProtectSystem') == ['strict']
           else '', 'PRIVATE_TMP': '1' if _yes(settings, 'PrivateTmp')
           else ''}
    return ['unshare', '--mount', 'env', *(f'{k}={v}' for k, v in
                                            env.items()),
            'sh', '-c', _SANDBOX, 'sandbox', ' '.join(writable),
            ' '.join(hidden), *drop]


def run(text, journal, state_root=None):
    '''Run the ``ExecStart=`` of the unit file ``text`` as systemd would,
    its output to the file ``journal``: the finished process.
    ``state_root`` stands for systemd's /var/lib (``StateDirectory=``).'''
    settings = service_settings(text)
    assert settings.get('Type') == ['oneshot'], settings.get('Type')
    (command,) = settings['ExecStart']
    assert command[:1] not in '-@:+!' and '%' not in command, command
    user = settings.get('User', ['root'])[-1]
    hardened = any(key in settings for key in (
        'ProtectSystem', 'NoNewPrivileges', 'UMask', 'PrivateTmp'))
    if hardened:
        runner = _sandboxed(settings, shlex.split(command), state_root)
    elif user == pwd.getpwuid(os.geteuid()).pw_name:
        runner = shlex.split(command)
    else:
        runner = ['runuser', '-u', user, '--', *shlex.split(command)]
    timeout = settings.get('TimeoutStartSec')
    with open(journal, 'w') as log:
        return subprocess.run(
            runner,
            cwd=settings.get('WorkingDirectory', ['/'])[-1],
            env=environment(settings), stdin=subprocess.DEVNULL,
            stdout=log, stderr=subprocess.STDOUT,
            timeout=_seconds(timeout[-1]) if timeout else None)
