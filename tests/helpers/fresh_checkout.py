'''A checkout that never ran: a ``git clone`` of this checkout into a new
folder, with no ``.venv/``, ``.spack/`` or ``var/``, as a site clones the
project onto a node.

The clone is of HEAD with this working tree's changes on top, committed in
the clone (the tracked files' diff and the files git does not ignore): what
a clean clone of the next commit holds, and exactly a clone of HEAD where
the tree is clean, as on CI.
'''

import shutil
import subprocess

import pytest

from conftest import PROJECT_DIR

#: Who the clone's own commit of the working tree's changes is by.
_AUTHOR = ['-c', 'user.name=hpc-acceptance tests',
           '-c', 'user.email=tests@hpc-acceptance.invalid']


def _git(*args, cwd=PROJECT_DIR, **kwargs):
    return subprocess.run(['git', *args], cwd=cwd, check=True,
                          capture_output=True, **kwargs)


def clone(dest):
    '''The fresh checkout at ``dest``; skips where this checkout is no git
    checkout.'''
    if shutil.which('git') is None or subprocess.run(
            ['git', 'rev-parse', '--git-dir'], cwd=PROJECT_DIR,
            capture_output=True).returncode != 0:
        pytest.skip('not a git checkout: a fresh checkout is a clone of it')

    _git('clone', '--quiet', '--no-hardlinks', str(PROJECT_DIR), str(dest))
    diff = _git('diff', 'HEAD', '--binary').stdout
    if diff:
        _git('apply', '--whitespace=nowarn', cwd=dest, input=diff)

    untracked = _git('ls-files', '--others', '--exclude-standard',
                     '-z').stdout.decode().split('\0')
    for name in filter(None, untracked):
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT_DIR / name, dest / name)

    commit(dest, 'the working tree of the checkout under test')
    return dest


def commit(checkout, message):
    '''Commit everything in ``checkout``, as a site's repository holds its
    files (a runner's clean removes what is not committed).'''
    _git('add', '--all', cwd=checkout)
    if _git('status', '--porcelain', cwd=checkout).stdout:
        _git(*_AUTHOR, 'commit', '--quiet', '-m', message, cwd=checkout)
