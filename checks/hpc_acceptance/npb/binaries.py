'''Where an NPB binary (``<bench>.<class>.x``) comes from.

NPB builds one binary per benchmark and class, so the check looks for the
exact file it needs, in this order:

1. a directory the site built NPB into: the check's ``npb_dir`` variable,
   else the ``NPB_BIN_DIR`` environment variable; when one is set, the
   binary must be there (the site said where its build is);
2. the partition's Spack environment (``extras.spack_env``) with ``spack``
   on ``PATH``: an installed ``npb implementation=mpi`` whose ``bin/`` has
   the binary. An installed npb without it is a failure, not a skip: a
   benchmark failed to compile (``make suite`` exits 0 all the same); npb
   not installed at all fails the check with Spack's install errors;
3. a module mapped to the binary in ``extras.modules``, or the binary on
   ``PATH`` (:func:`hpc_acceptance.core.dependency.resolve`).

When none has it, the reason names the binary and every place looked in.
'''

import functools
import os
import shutil
import subprocess

from hpc_acceptance.core import dependency
from hpc_acceptance.core.dependency import Requirement, Resolution
from hpc_acceptance.core.spack import INSTALLED_BUILD_LOG

#: Environment variable naming a directory of NPB binaries.
BIN_DIR_VARIABLE = 'NPB_BIN_DIR'


def binary_name(benchmark, npb_class):
    return f'{benchmark}.{npb_class}.x'


def spack_spec(benchmark, npb_class):
    '''The Spack spec that installs ``<benchmark>.<npb_class>.x``.'''
    return (f'npb implementation=mpi names={benchmark} '
            f'classes={npb_class}')


def _build_hint(benchmark, npb_class):
    return (f'build NPB 3.4 (NPB3.4-MPI: make {benchmark} '
            f'CLASS={npb_class}) and set -S npb_dir=DIR or '
            f'{BIN_DIR_VARIABLE}=DIR to its bin/ directory')


@functools.lru_cache(maxsize=None)
def spack_npb_prefixes(spack_env):
    '''Installation prefixes of ``npb implementation=mpi`` in a Spack
    environment (empty when there is none), asked of Spack once per run.'''
    done = subprocess.run(
        ['spack', '-e', spack_env, 'find', '--format', '{prefix}',
         'npb implementation=mpi'],
        capture_output=True, text=True
    )
    if done.returncode != 0:
        return ()

    return tuple(line.strip() for line in done.stdout.splitlines()
                 if line.strip())


def locate(benchmark, npb_class, *, npb_dir, partition_name,
           partition_extras, dry_run=False, environ=os.environ,
           which=shutil.which, spack_prefixes=spack_npb_prefixes):
    '''Find ``<benchmark>.<npb_class>.x``; see the module documentation.

    :arg npb_dir: the check's ``npb_dir`` variable (empty: not set).
    :arg dry_run: the job script is only generated (``--dry-run``), maybe
        on a machine without the partition's Spack: a configured Spack
        environment is taken to provide the binary, so the script shows the
        ``spack load`` the real run would do.
    :arg environ, which, spack_prefixes: the process environment, a
        ``shutil.which``-like lookup and :func:`spack_npb_prefixes`
        (replaceable in tests).
    :returns: a :class:`hpc_acceptance.core.dependency.Resolution`.
    '''
    exe = binary_name(benchmark, npb_class)
    spec = spack_spec(benchmark, npb_class)
    if npb_dir or environ.get(BIN_DIR_VARIABLE):
        origin = ('variable npb_dir' if npb_dir else
                  f'environment variable {BIN_DIR_VARIABLE}')
        directory = os.path.abspath(npb_dir or environ[BIN_DIR_VARIABLE])
        path = os.path.join(directory, exe)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return Resolution(source='npb_dir', executable=path,
                              detail=path)

        return Resolution(source=None, reason=(
            f'{exe} not found: no executable {path} (directory from '
            f'{origin}). To provide it: '
            f'{_build_hint(benchmark, npb_class)}'
        ))

    extras = partition_extras or {}
    spack_env = dependency.spack_environment(extras)
    spack_load = dependency.spack_resolution(spack_env, spec, exe)
    if spack_env and dry_run:
        return spack_load

    if spack_env and which('spack'):
        prefixes = spack_prefixes(spack_env)
        if not prefixes or any(
                os.path.isfile(os.path.join(prefix, 'bin', exe))
                for prefix in prefixes):
            # Not installed at all: the check fails with Spack's install
            # errors (SpackEnvironmentPlugin.require_installed).
            return spack_load

        logs = ', '.join(os.path.join(prefix, '.spack', INSTALLED_BUILD_LOG)
                         for prefix in prefixes)
        return Resolution(source=None, failure=(
            f'{exe} missing: npb is installed in the Spack environment '
            f'{spack_env} of partition {partition_name!r}, but '
            f'{" and ".join(p + "/bin" for p in prefixes)} '
            f'{"has" if len(prefixes) == 1 else "have"} no {exe}: a '
            f'benchmark that failed to compile (NPB\'s make suite exits 0 '
            f'all the same); see the build log {logs}'
        ))

    requirement = Requirement(executable=exe, spack_spec=spec,
                              hint=_build_hint(benchmark, npb_class))
    # Its reason names the Spack, module and PATH lookups, and the hint
    # says how to point the check at a build of one's own.
    return dependency.resolve(requirement, partition_name=partition_name,
                              partition_extras=extras, which=which)
