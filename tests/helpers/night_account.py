'''The unprivileged account the recipes run the night as
(ci/README.md, "The night's account"), made for a test as an administrator
makes it (``useradd --system``, its own group, no login shell), with its
home (systemd's ``StateDirectory=``) where the test says, and removed
with its group afterwards. Another account of the name, made by someone
else, is never touched: the test skips.
'''

import contextlib
import os
import pwd
import shutil
import subprocess

import pytest

#: The account's name: not the recipes' own (hpc-acceptance), so that a
#: site's real account is never the test's.
NAME = 'hpc-acceptance-test'


@contextlib.contextmanager
def made(home):
    '''The account (its ``pwd`` entry), whose home is ``home`` (made,
    its own), for the time of the ``with``.'''
    if os.geteuid() != 0 or shutil.which('useradd') is None:
        pytest.skip('the night\'s account: needs root and useradd')
    try:
        pwd.getpwnam(NAME)
        pytest.skip(f'an account {NAME} exists already: not the test\'s')
    except KeyError:
        pass

    subprocess.run(['useradd', '--system', '--user-group', '--home-dir',
                    str(home), '--no-create-home', '--shell',
                    '/usr/sbin/nologin', NAME], check=True,
                   capture_output=True)
    try:
        account = pwd.getpwnam(NAME)
        home.mkdir(parents=True, exist_ok=True)
        os.chown(home, account.pw_uid, account.pw_gid)
        home.chmod(0o750)
        yield account
    finally:
        subprocess.run(['userdel', NAME], capture_output=True)


def owned_outside(root, account, inside):
    '''The paths below ``root`` the account owns outside ``inside``.'''
    return [path for path in root.rglob('*')
            if path.lstat().st_uid == account.pw_uid and
            not path.is_relative_to(inside)]


def open_to_others(root):
    '''The files and folders below ``root`` (links aside) that others than
    their owner and group may read, write or enter.'''
    return [path for path in [root, *root.rglob('*')]
            if not path.is_symlink() and path.lstat().st_mode & 0o007]
