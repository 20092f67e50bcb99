'''The partition's Spack environment: built once, recorded with the results.

A partition names its environment in the configuration
(``extras: {'spack_env': 'spack-envs/<system>'}``, relative to the
checkout). Every check uses :class:`SpackEnvironmentPlugin`, whose
:class:`SpackEnvironmentBuild` fixture runs ``spack -e <env> install`` with
ReFrame's Spack build system. The fixture has environment scope and is the
same class for every check, so ReFrame runs it once per partition and
programming environment, and Spack installs the environment into its own
install tree once: later runs find everything installed and only rebuild
the in-tree kernels when ``src/`` changed.

Packages succeed or fail one by one: Spack goes on past a package that
fails (unless ``--fail-fast``), and the fixture passes whatever Spack's
exit status, keeping Spack's
output in ``spack-install.log``. A check whose package is not installed
fails (never skips) with Spack's errors about that package and the build
log they name; every other check runs from its own installed package.

What Spack resolved is kept in the output directories:

- the fixture's: ``spack.lock`` (the whole concretized environment),
  ``spack-specs.txt`` (its specs with hashes and install status) and
  ``spack-install.log`` (Spack's install output);
- each check's: ``spack-spec.txt``, the concretized spec it loaded, also
  in the loggable variable ``spack_spec`` (JSON report; perflog field
  ``%(check_spack_spec)s``).

The night installs nothing (``HPC_ACCEPTANCE_SETUP=verify``, which
``ci/nightly.sh`` sets): it runs as an account that may not write to the
Spack an administrator set up, and fetches and builds nothing; the fixture
then records what is installed, and a check whose package is not installed
fails saying so.

Without an environment for the partition, or without ``spack`` on ``PATH``,
the fixture does nothing and says why; the checks then take their binaries
from modules, ``PATH`` or in-tree builds
(:mod:`hpc_acceptance.core.dependency`).
'''

import functools
import os
import re
import shlex
import shutil
import subprocess

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.builtins import (fixture, run_before, sanity_function,
                                   variable)
from reframe.core.exceptions import ReframeError

from hpc_acceptance.core.dependency import spack_environment
from hpc_acceptance.core.spack_load import load_commands

#: Copy of the environment's ``spack.lock``, in the fixture's output.
LOCK_FILE = 'spack.lock'

#: ``spack spec`` of the environment's roots, in the fixture's output.
SPECS_FILE = 'spack-specs.txt'

#: The concretized spec a check loaded, in the check's output.
SPEC_RECORD_FILE = 'spack-spec.txt'

#: ``spack find --format`` of :data:`SPEC_RECORD_FILE`: name, version,
#: variants, platform-os-target and the full hash.
SPEC_FORMAT = '{name}{@version}{variants} {arch=architecture} {/hash}'

#: Spack's install output, in the fixture's output.
INSTALL_LOG = 'spack-install.log'

#: Spack's build log of a package, in its build stage.
BUILD_LOG = 'spack-build-out.txt'

#: The build log Spack keeps, compressed, in an installed prefix's
#: ``.spack/``.
INSTALLED_BUILD_LOG = 'spack-build-out.txt.gz'

#: What the fixture's build prints when it has nothing to install.
NO_ENVIRONMENT = 'no Spack environment for'

#: The setting under which nothing is installed (``ci/nightly.sh``).
SETUP_VARIABLE = 'HPC_ACCEPTANCE_SETUP'

#: What the install log of a night that installs nothing says.
INSTALLS_NOTHING = (f'{SETUP_VARIABLE}=verify: the night installs nothing; '
                    f'an administrator installs the environment (ci/setup.sh,'
                    f' or ci/acceptance.sh run by hand)')


def installs_nothing():
    '''Whether this run only uses what is installed (the night's).'''
    return os.environ.get(SETUP_VARIABLE) == 'verify'


class SpackEnvironmentError(ReframeError):
    '''A partition's ``spack_env`` names no Spack environment, or Spack
    recorded nothing; a ReFrame error, so the check fails with this message
    alone.'''


class SpecNotInstalled(SpackEnvironmentError):
    '''Spack has no installed spec of the environment that matches.'''


def environment_for(partition_name, partition_extras, which=shutil.which):
    '''The Spack environment to install for a partition, or why there is
    none to install.

    :arg which: ``shutil.which``-like lookup (replaceable in tests).
    :returns: ``(environment directory, None)`` or ``(None, reason)``, the
        reason starting with :data:`NO_ENVIRONMENT`.
    :raises SpackEnvironmentError: if ``extras.spack_env`` names a
        directory without a ``spack.yaml``.
    '''
    env = spack_environment(partition_extras)
    if env is None:
        return None, (f'{NO_ENVIRONMENT} {partition_name}: the partition '
                      f'names none (extras.spack_env)')

    if not os.path.isfile(os.path.join(env, 'spack.yaml')):
        raise SpackEnvironmentError(
            f'{partition_name}: extras.spack_env names {env}, which has no '
            f'spack.yaml'
        )

    if not which('spack'):
        return None, (f'{NO_ENVIRONMENT} {partition_name}: "spack" is not '
                      f'on PATH, so {env} is not installed')

    return env, None


def install_errors(log_text, package):
    '''Spack's lines about ``package`` failing in an install log: its
    errors, the dependency it waited for, and the build logs named.'''
    failed = {package}
    skipped = re.findall(
        rf'Skipping build of {re.escape(package)}-\S+ since '
        rf'(\S+?)-[^-\s]+-[^-\s]+ failed', log_text
    )
    failed.update(skipped)
    lines = []
    for line in log_text.splitlines():
        line = line.strip()
        mentions = any(re.search(rf'\b{re.escape(name)}[-@]', line)
                       for name in failed)
        if not mentions:
            continue

        if line.startswith('==> Error') or line.startswith('==> Warning: '
                                                           'Skipping'):
            lines.append(line[len('==> '):])
        elif line.endswith(BUILD_LOG):
            lines.append(f'build log: {line}')

    return lines


def not_installed_message(env, spec, log_path):
    '''Why ``spec`` cannot run from ``env``: Spack's errors about its
    package from the install log at ``log_path``.'''
    package = shlex.split(spec)[0].split('@')[0]
    try:
        with open(log_path) as fp:
            errors = install_errors(fp.read(), package)
    except FileNotFoundError:
        errors = []

    if installs_nothing():
        return (f'spack: "{spec}" is not installed in {env}, and '
                f'{INSTALLS_NOTHING}')

    said = '; '.join(errors) or f'no error about {package} in it'
    return (f'spack: "{spec}" is not installed in {env}; Spack\'s install '
            f'({log_path}): {said}')


@functools.lru_cache(maxsize=None)
def installed_specs(env, spec):
    '''The installed specs of ``env`` that ``spack load`` of ``spec``
    loads, in :data:`SPEC_FORMAT`: asked of Spack once per run, when the
    check is set up, rather than by every job.

    :raises SpecNotInstalled: if Spack matches nothing.
    :raises SpackEnvironmentError: if Spack fails otherwise.
    '''
    command = ['spack', '-e', env, 'find', '--format', SPEC_FORMAT,
               *shlex.split(spec)]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as err:
        raise SpackEnvironmentError(f'{shlex.join(command)}: {err}') from None

    lines = tuple(line.strip() for line in done.stdout.splitlines()
                  if line.strip())
    if done.returncode == 0 and lines:
        return lines

    said = done.stderr.strip() or 'no spec matched'
    not_installed = done.returncode == 0 or 'No package matches' in said
    error = SpecNotInstalled if not_installed else SpackEnvironmentError
    raise error(f'{shlex.join(command)}: {said}')


class SpackEnvironmentBuild(rfm.CompileOnlyRegressionTest):
    '''Installs the partition's Spack environment and keeps ``spack.lock``
    and the concretized specs; a no-op that says why when the partition has
    no environment or ``spack`` is not on ``PATH``.'''

    #: Extra options of ``spack install``, e.g. ``--fail-fast`` or
    #: ``--jobs=16``.
    #:
    #: :type: :class:`List[str]`
    #: :default: ``[]``
    install_opts = variable(typ.List[str], value=[])

    #: The environment installed, or why none was (starts with
    #: :data:`NO_ENVIRONMENT`).
    #:
    #: :type: :class:`str`
    spack_environment = variable(str, value='unresolved', loggable=True)

    sourcesdir = None
    # Built where the checks run: the same compilers, MPI and targets.
    build_locally = False

    @run_before('compile')
    def choose_build(self):
        partition = self.current_partition
        env, reason = environment_for(partition.fullname, partition.extras)
        if env is None:
            self.spack_environment = reason
            self.build_system = 'CustomBuild'
            self.build_system.commands = [f'echo {shlex.quote(reason)}']
            return

        self.spack_environment = env
        opts = (partition.extras.get('spack_install_opts', []) +
                self.install_opts)
        install = ' '.join(['spack', '-e', env, 'install',
                            *map(shlex.quote, opts)])
        if installs_nothing():
            install = f'echo {shlex.quote(INSTALLS_NOTHING)}'
        self.build_system = 'CustomBuild'
        # Spack's exit status is not the fixture's: the checks fail one by
        # one for the packages that did not install.
        self.build_system.commands = [
            f'{install} > {INSTALL_LOG} 2>&1 || '
            f'echo "spack install failed for some packages: {INSTALL_LOG}"',
            f'cp {env}/spack.lock {LOCK_FILE}',
            f'spack -e {env} spec --long --install-status > {SPECS_FILE}',
        ]
        self.keep_files = [LOCK_FILE, SPECS_FILE, INSTALL_LOG]

    @sanity_function
    def environment_recorded(self):
        if self.spack_environment.startswith(NO_ENVIRONMENT):
            return sn.assert_found(rf'^{NO_ENVIRONMENT} ', self.stdout)

        return sn.all([
            sn.assert_true(
                os.path.getsize(os.path.join(self.stagedir, name)) > 0,
                msg=f'{name} of {self.spack_environment} is empty'
            )
            for name in (LOCK_FILE, SPECS_FILE)
        ])


class SpackEnvironmentPlugin(rfm.RegressionTestPlugin):
    '''Gives a check the partition's Spack environment, installed once by
    :class:`SpackEnvironmentBuild`, and records the spec the check loads.'''

    #: The partition's Spack environment, installed (or not, and why).
    #:
    #: :type: :class:`SpackEnvironmentBuild`
    #: :scope: *environment*
    spack_environment_build = fixture(SpackEnvironmentBuild,
                                      scope='environment')

    #: The concretized spec this check ran, or ``none`` when its binary
    #: did not come from Spack.
    #:
    #: :type: :class:`str`
    spack_spec = variable(str, value='none', loggable=True)

    def require_installed(self, env, spec):
        '''Fail, with Spack's errors, if ``spec`` of ``env`` is not
        installed (or Spack cannot say); call it from a setup hook before
        loading it.'''
        if self.is_dry_run():
            return

        try:
            installed_specs(env, spec)
        except SpecNotInstalled:
            log = os.path.join(self.spack_environment_build.stagedir,
                               INSTALL_LOG)
            raise SpackEnvironmentError(
                not_installed_message(env, spec, log)) from None

    def record_spack_spec(self, env, spec):
        '''Record the spec of ``env`` that the check loads with
        ``spack -e <env> load <spec>``, in :attr:`spack_spec` and
        :data:`SPEC_RECORD_FILE`; call it from a setup hook.'''
        if self.is_dry_run():
            return

        self.spack_spec = '; '.join(installed_specs(env, spec))
        with open(os.path.join(self.stagedir, SPEC_RECORD_FILE), 'w') as fp:
            fp.write(self.spack_spec + '\n')

        self.keep_files = self.keep_files + [SPEC_RECORD_FILE]

    def spack_load_cmds(self, env, spec, job_time_cmds):
        '''What the job runs to load ``spec`` of ``env``: ``spack load``
        worked out once per run (:func:`~hpc_acceptance.core.spack_load.
        load_commands`), or ``job_time_cmds`` where it cannot be.'''
        if self.is_dry_run():
            return job_time_cmds

        return list(load_commands(env, spec) or job_time_cmds)
