'''The real Spack of the tests, offline: ci/setup-spack.sh installs a CI
subset of spack-envs/local (tests/e2e/spack_ci_environment.yaml) from the
offline kit (../shared/spack-offline, or HPC_ACCEPTANCE_SPACK_KIT).

The Spack directory (unpacked kit, configuration, install tree) is cached
under ~/.cache/hpc-acceptance/, keyed by the kit's archives and the
environments' files, so a second install in the same or a later test run
installs nothing. The session fixture ``spack_ci`` (tests/conftest.py)
installs once for every test that needs a real Spack-built package.

A cold install takes minutes of one core, mostly compiling NPB one
benchmark after the other: a session that will need it starts it ahead
(:class:`Ahead`), at a lower priority, beside the tests that need
neither it nor quiet cores (tests/conftest.py, ``READS_FIGURES``); the
others wait for it to end first, so no figure a test judges is measured
beside a build.
'''

import hashlib
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

from helpers import machine_lock

PROJECT_DIR = Path(__file__).resolve().parents[2]
KIT = Path(os.environ.get('HPC_ACCEPTANCE_SPACK_KIT',
                          PROJECT_DIR.parent / 'shared' / 'spack-offline'))
SUBSET = PROJECT_DIR / 'tests' / 'e2e' / 'spack_ci_environment.yaml'
SETUP_SPACK = PROJECT_DIR / 'ci' / 'setup-spack.sh'
#: The include of every environment's scope ``setup-externals``, where
#: ci/setup-spack.sh registers externals for a site's Spack.
SETUP_EXTERNALS = {'name': 'setup-externals', 'path': 'setup-externals',
                   'optional': True, 'prefer_modify': True}
#: Why the Spack tests skip, or None where the kit is there.
MISSING_KIT = (None if (KIT / 'spack.tar.gz').is_file() else
               f'no offline Spack kit at {KIT} (set HPC_ACCEPTANCE_SPACK_KIT)')


def files_key(files):
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())

    return digest.hexdigest()[:16]


def kit_key():
    '''The kit's archives.'''
    return files_key([KIT / 'spack.tar.gz', KIT / 'spack-packages.tar.gz'])


def cache_key():
    '''What the installs depend on: the kit's archives and sources, the
    environments and the project's Spack packages (not what a setup
    registered in this checkout's environments).'''
    envs = PROJECT_DIR / 'spack-envs'
    return files_key([
        KIT / 'spack.tar.gz', KIT / 'spack-packages.tar.gz', SUBSET,
        *sorted(path for path in envs.rglob('*.yaml')
                if 'setup-externals' not in path.parts),
        *sorted(envs.rglob('package.py'))])


def cache_base():
    '''Where the tests keep what outlives a test run.'''
    base = Path(os.environ.get('XDG_CACHE_HOME', Path.home() / '.cache'))
    return base / 'hpc-acceptance'


def cache_dir():
    return cache_base() / f'spack-ci-{cache_key()}'


def environment_copy(base, name, spack_yaml):
    '''spack-envs/ copied into ``base`` with ``spack_yaml`` (a path) as
    the environment ``name``, beside a link to this checkout's src/ (the
    kernels' develop path). An earlier copy's spack.lock is kept, so an
    unchanged environment is not concretized again.'''
    envs = base / 'spack-envs'
    lock = envs / name / 'spack.lock'
    kept = lock.read_bytes() if lock.exists() else None
    shutil.rmtree(envs, ignore_errors=True)
    shutil.copytree(PROJECT_DIR / 'spack-envs', envs,
                    ignore=shutil.ignore_patterns('spack.lock', '.spack-env',
                                                  '.build-*',
                                                  'setup-externals'))
    (envs / name).mkdir()
    shutil.copy(spack_yaml, envs / name / 'spack.yaml')
    if kept is not None:
        lock.write_bytes(kept)

    src = base / 'src'
    if src.is_symlink() or src.exists():
        src.unlink()

    src.symlink_to(PROJECT_DIR / 'src')
    return envs / name


def ci_environment(cache):
    '''The CI subset as the environment ``ci`` of a copy in the cache.'''
    return environment_copy(cache, 'ci', SUBSET)


def setup_environment(spack_dir, env_dir, kit=True):
    '''The environment of ci/setup-spack.sh installing ``env_dir`` with
    its Spack directory ``spack_dir``, from the kit if ``kit``.'''
    env = {**os.environ, 'HPC_ACCEPTANCE_SPACK_DIR': str(spack_dir),
           'HPC_ACCEPTANCE_SPACK_ENV': str(env_dir)}
    env.pop('HPC_ACCEPTANCE_SPACK_KIT', None)
    if kit:
        env['HPC_ACCEPTANCE_SPACK_KIT'] = str(KIT)

    return env


def setup_spack(cache, env_dir, niceness=0, started=None):
    '''ci/setup-spack.sh on ``env_dir`` with its Spack directory in
    ``cache``, ``niceness`` added to its priority; ``started(process)`` is
    called with it running. The finished process and the seconds it
    took.'''
    began = time.monotonic()
    with subprocess.Popen(
            [str(SETUP_SPACK)],
            env=setup_environment(cache / 'spack', env_dir), text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            preexec_fn=(lambda: os.nice(niceness)) if niceness else None
    ) as process:
        if started:
            started(process)
        try:
            output, _ = process.communicate(timeout=2400)
        except subprocess.TimeoutExpired:
            process.kill()
            raise

    done = subprocess.CompletedProcess(process.args, process.returncode,
                                       output)
    return done, time.monotonic() - began


def install(niceness=0, started=None):
    '''Installs the CI subset: ``{cache, env, record, output}``, where
    ``record`` is setup-spack's setup.json. AssertionError, with the end
    of setup's output, when the setup failed. ``niceness`` and
    ``started``: as :func:`setup_spack`'s. Once a test run: its other
    pytest worker takes the first one's install as it is, instead of
    setting the tree up again under the tests already using it.'''
    cache = cache_dir()
    (cache / 'spack').mkdir(parents=True, exist_ok=True)
    # another checkout's test run may be installing into the same cache
    with machine_lock.held('spack-ci'):
        output = _installed_in_this_run(cache)
        if output is None:
            done, seconds = setup_spack(cache, ci_environment(cache),
                                        niceness, started)
            print(f'setup-spack: {seconds:.0f} s')
            output = done.stdout
            assert done.returncode == 0, output[-3000:]
            _remember_this_run(cache, output)

    record = cache / 'spack' / 'setup.json'
    assert record.is_file(), output[-3000:]
    record = json.loads(record.read_text())
    remember_concretizations(record)
    return {'cache': cache, 'env': cache / 'spack-envs' / 'ci',
            'record': record, 'output': output}


#: pytest-xdist's id of the test run, the same in each of its workers.
TEST_RUN = 'PYTEST_XDIST_TESTRUNUID'


def _installed_in_this_run(cache):
    '''The output of this test run's earlier install, or None.'''
    stamp = cache / 'installed-in-run.json'
    if TEST_RUN not in os.environ or not stamp.is_file():
        return None

    installed = json.loads(stamp.read_text())
    return installed['output'] if installed['run'] == os.environ[TEST_RUN] \
        else None


def _remember_this_run(cache, output):
    if TEST_RUN in os.environ:
        (cache / 'installed-in-run.json').write_text(json.dumps(
            {'run': os.environ[TEST_RUN], 'output': output}))


#: Spack's concretization cache, in the user scope of the tests' Spack
#: only (never a site's: Spack calls it experimental). ``new-system``
#: concretizes the environment it writes before it writes it, a few
#: minutes of both cores: the cluster's environment and this host's are
#: the same problem, solved once a test run.
CONCRETIZATION_CACHE = '''\
concretizer:
  concretization_cache:
    enable: true
'''


def remember_concretizations(record):
    '''The concretization cache on in the user scope ``record`` (a
    setup.json) names.'''
    scope = Path(record['env_vars']['SPACK_USER_CONFIG_PATH'])
    (scope / 'concretizer.yaml').write_text(CONCRETIZATION_CACHE)


class Ahead:
    ''':func:`install` started in a thread of its own, at a lower
    priority (nice 10), for the tests to go on beside it.'''

    def __init__(self):
        self.result = None
        self.error = None
        self.process = None
        self._thread = threading.Thread(target=self._install, daemon=True,
                                        name='spack-ci install')
        self._thread.start()

    def _install(self):
        try:
            # a test waiting to run alone may be waiting for this install
            with machine_lock.beside_others(turnstile=False):
                self.result = install(niceness=10, started=self._started)
        except BaseException as err:  # re-raised in the test that waits
            self.error = err

    def _started(self, process):
        self.process = process

    def running(self):
        return self._thread.is_alive()

    def wait(self):
        '''The install's result, once it ended; its error raised.'''
        self._thread.join()
        if self.error is not None:
            raise self.error
        return self.result

    def stop(self):
        '''End the install if it still runs (the session was cut short).'''
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
        self._thread.join(timeout=60)


def spack(record, *args):
    '''Runs the installed Spack with ``args``: its standard output.'''
    env = {**os.environ, **record['env_vars'],
           'PATH': f"{record['spack_bin']}:{os.environ['PATH']}"}
    return subprocess.run([f"{record['spack_bin']}/spack", *args], env=env,
                          text=True, capture_output=True, check=True).stdout


def prefix_of(installed, package):
    '''Install prefix of ``package`` in the CI environment.'''
    [prefix] = spack(installed['record'], '-e', str(installed['env']),
                     'find', '--format', '{prefix}', package).split()
    return Path(prefix)
