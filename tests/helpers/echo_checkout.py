'''A copy of the checkout for testing a script of ``ci/`` up to the
command it ends with: its ``ci/setup.sh`` does nothing and its
``.venv/bin/hpc-acceptance`` prints its arguments, one a line, so that a
test reads what the script would have run.'''

import shutil

from conftest import PROJECT_DIR


def make(folder):
    '''The copy, at ``folder / 'checkout'``.'''
    copy = folder / 'checkout'
    shutil.copytree(PROJECT_DIR, copy, ignore=shutil.ignore_patterns(
        '.venv', 'var', '.spack', '.git', '__pycache__', 'tests', 'build',
        '*.egg-info', 'node_modules'))
    (copy / 'ci' / 'setup.sh').write_text('#!/bin/sh\n')
    (copy / '.venv' / 'bin').mkdir(parents=True)
    (copy / '.venv' / 'bin' / 'hpc-acceptance').write_text(
        '#!/bin/sh\nprintf "%s\\n" "$@"\n')
    for script in ('setup.sh', '../.venv/bin/hpc-acceptance'):
        (copy / 'ci' / script).chmod(0o755)
    return copy

