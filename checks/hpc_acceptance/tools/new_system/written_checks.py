'''What ``hpc-acceptance new-system`` checks of the files it is about to
write, on a staging copy of the site directory: that ReFrame loads the
configuration with them and lists the nightly set for the new system, and
that Spack concretizes the new environment (when Spack is there).
'''

import os
import re
import subprocess
from collections import Counter

from hpc_acceptance.core import site
from hpc_acceptance.core.paths import PROJECT_DIR
from hpc_acceptance.tools.results.runs import CONFIG, REFRAME


class WrittenCheckError(RuntimeError):
    '''A check of the written files failed; the message has the tool's
    own words.'''


def nightly_checks(site_root, system):
    '''``{check class: test cases}`` that ``reframe --mode nightly -l``
    lists for ``system`` with the site directory ``site_root``.'''
    env = dict(os.environ, RFM_COLORIZE='n')
    env[site.VARIABLE] = str(site_root)
    done = subprocess.run(
        [REFRAME, '-C', str(CONFIG), '-c', str(PROJECT_DIR / 'checks'),
         '--system', system, '--mode', 'nightly', '-l'],
        env=env, capture_output=True, text=True, timeout=900
    )
    listed = Counter(re.findall(r'^- (\w+)', done.stdout, re.MULTILINE))
    if done.returncode != 0 or not listed:
        said = (done.stdout + done.stderr).strip()[-2000:]
        raise WrittenCheckError(
            f'reframe --system {system} --mode nightly -l with the new '
            f'files {"failed" if done.returncode else "lists no check"}: '
            f'{said}')

    return dict(listed)


def concretize(env_dir):
    '''Concretize the Spack environment ``env_dir`` with the ``spack`` on
    PATH; :class:`WrittenCheckError` with Spack's words when it cannot.'''
    done = subprocess.run(['spack', '-e', str(env_dir), 'concretize'],
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise WrittenCheckError(
            f'spack -e {env_dir} concretize failed: '
            f'{(done.stderr or done.stdout).strip()[-2000:]}')
