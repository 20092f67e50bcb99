'''A site's own Spack on PATH, set up by ci/setup-spack.sh: the real Spack
of the offline kit (../shared/spack-offline, or HPC_ACCEPTANCE_SPACK_KIT),
unpacked as a site installs it, with the site's configuration in the
Spack's own etc/spack/ (the builtin repository of the kit, no
bootstrapping) and a user with a ``~/.spack/packages.yaml`` of their own,
indented by 4 spaces as YAML allows.

ci/setup-spack.sh installs the small environment :data:`PROBE_ENV` with it,
twice, as two nights would: load-probe (tests/fixtures/spack-repo), a
package with no source that needs an MPI at run time, which only the
externals setup registers can give, and load-probe-reorder, which needs
nothing. What the setup changed in the user's
and the site's configuration is compared file by file.
'''

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from helpers.spack_ci import (KIT, SETUP_EXTERNALS, SETUP_SPACK, cache_base,
                              environment_copy, kit_key)

PROJECT_DIR = Path(__file__).resolve().parents[2]
#: The tests' package repository (namespace hpc_acceptance_tests).
PROBE_REPO = (PROJECT_DIR / 'tests' / 'fixtures' / 'spack-repo' /
              'spack_repo' / 'hpc_acceptance_tests')
#: What load-probe's ``spack load`` sets, and to what, and what it unsets
#: (its package.py).
SET_NAME, SET_VALUE = 'LOAD_PROBE_SET', 'set-by-spack-load'
UNSET_NAME = 'LOAD_PROBE_UNSET'

PROBE_ENV = f'''\
spack:
  include:
  - ../common.yaml
  - {json.dumps(SETUP_EXTERNALS)}
  repos:
    hpc_acceptance_tests: {PROBE_REPO}
  specs:
  - load-probe
  - load-probe-reorder
  view: false
'''

#: The user's own packages.yaml, indented by 4 spaces.
USER_PACKAGES = '''\
# my preferences, for every Spack I use
packages:
    all:
        providers:
            mpi: [openmpi]
'''


def run(*command, **kwargs):
    subprocess.run(command, check=True, capture_output=True, **kwargs)


def site_config(spack):
    '''The site's configuration, in its Spack's own site scope.'''
    site = spack / 'etc' / 'spack' / 'site'
    (site / 'repos.yaml').write_text(
        f'repos::\n  builtin: '
        f'{spack.parent}/spack-packages/repos/spack_repo/builtin\n')
    (site / 'bootstrap.yaml').write_text('bootstrap:\n  enable: false\n')


def unpack(base):
    '''The kit's Spack unpacked into ``base`` with the site's
    configuration, and its user's home: the environment (variables) of
    that user, with the Spack on PATH.'''
    site = base / 'site'
    site.mkdir()
    for archive in ('spack.tar.gz', 'spack-packages.tar.gz'):
        run('tar', '-xzf', str(KIT / archive), '-C', str(site))

    # The site's Python for Spack, with clingo: nothing to bootstrap.
    run(sys.executable, '-m', 'venv', str(site / 'py'))
    run(str(site / 'py' / 'bin' / 'pip'), 'install', '-q', 'clingo')
    site_config(site / 'spack')
    home = base / 'home'
    (home / '.spack').mkdir(parents=True)
    (home / '.spack' / 'packages.yaml').write_text(USER_PACKAGES)
    environ = {name: value for name, value in os.environ.items()
               if not name.startswith(('SPACK_', 'HPC_ACCEPTANCE_SPACK'))}
    environ.update(
        PATH=f"{site / 'spack' / 'bin'}{os.pathsep}{os.environ['PATH']}",
        HOME=str(home), SPACK_PYTHON=str(site / 'py' / 'bin' / 'python'),
        # Spack's caches apart from the user's configuration, and kept for
        # the next test run: indexing the builtin repository the first
        # time takes a minute or more on 2 cores.
        SPACK_USER_CACHE_PATH=str(cache_base() /
                                  f'site-spack-cache-{kit_key()}'))
    return environ


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def digests(directory):
    '''``{path relative to directory: sha256}`` of every file below it.'''
    return {str(path.relative_to(directory)): digest(path)
            for path in sorted(directory.rglob('*')) if path.is_file()}


def configuration(environ, env_dir):
    '''What setup must leave alone: the user's scope, the site Spack's
    configuration, the environment's own files.'''
    spack_etc = Path(environ['PATH'].split(os.pathsep)[0]).parent / 'etc'
    return {'user': digests(Path(environ['HOME']) / '.spack'),
            'site': digests(spack_etc),
            'environment': {path.name: digest(path) for path in (
                env_dir / 'spack.yaml', env_dir.parent / 'common.yaml')}}


def set_up(base):
    '''ci/setup-spack.sh run twice with the site's Spack on PATH:
    ``{environ, env, spack_dir, runs: [(process, seconds)], before,
    after}``, where ``before`` and ``after`` are :func:`configuration`.'''
    environ = unpack(base)
    (base / 'probe.yaml').write_text(PROBE_ENV)
    env_dir = environment_copy(base, 'probe', base / 'probe.yaml')
    spack_dir = base / 'spack-dir'
    before = configuration(environ, env_dir)
    runs = []
    for _ in range(2):
        started = time.monotonic()
        done = subprocess.run(
            [str(SETUP_SPACK)], text=True, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=1200,
            env=dict(environ, HPC_ACCEPTANCE_SPACK_DIR=str(spack_dir),
                     HPC_ACCEPTANCE_SPACK_ENV=str(env_dir)))
        runs.append((done, time.monotonic() - started))

    return {'environ': environ, 'env': env_dir, 'spack_dir': spack_dir,
            'runs': runs, 'before': before,
            'after': configuration(environ, env_dir)}
