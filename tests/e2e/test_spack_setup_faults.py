'''What a nightly does to the Spack an earlier setup prepared: a run without
the kit variable keeps and uses it, a setup killed during the install is
completed by the next one, and a run that loses Spack says so.

The first two runs use the cached Spack of tests/helpers/spack_ci.py (the kit
unpacked and the CI subset installed once per machine); the killed setup
installs a small environment of its own from the offline kit. Without the
kit these tests skip, naming where it was looked for.
'''

import os
import re
import signal
import subprocess
import time

from conftest import ONE_TIMED_RUN
from helpers import machine_lock
from helpers.acceptance_run import acceptance, environment
from helpers.spack_ci import (MISSING_KIT, SETUP_SPACK, environment_copy,
                              setup_environment, spack)
import pytest

from hpc_acceptance.core import spack_setup

pytestmark = pytest.mark.skipif(MISSING_KIT is not None,
                                reason=MISSING_KIT or '')

CHECK = ('-n', 'MemoryReadBandwidthCheck', *ONE_TIMED_RUN)


def installed_prefixes(spack_dir):
    return sorted(str(p) for p in (spack_dir / 'spack' / 'opt' / 'spack')
                  .glob('*/*') if p.is_dir())


def with_recorded_spack(tmp_path, spack_ci, **changes):
    '''The environment of an acceptance run as a cron line has it: the
    Spack directory and environment the kit setup recorded, no kit.'''
    env = dict(environment(tmp_path),
               HPC_ACCEPTANCE_SPACK_DIR=str(spack_ci['cache'] / 'spack'),
               HPC_ACCEPTANCE_SPACK_ENV=str(spack_ci['env']), **changes)
    env.pop('HPC_ACCEPTANCE_SPACK_KIT', None)
    return env


@pytest.fixture(scope='module')
def run_without_kit(spack_ci, tmp_path_factory):
    '''An acceptance run after the kit setup, without the kit variable:
    ``(its directory, its output, the Spack directory's contents and
    install tree before it)``.'''
    tmp_path = tmp_path_factory.mktemp('without-kit')
    spack_dir = spack_ci['cache'] / 'spack'
    env = with_recorded_spack(tmp_path, spack_ci)
    del env['HPC_ACCEPTANCE_SPACK']
    # it writes into the Spack install tree other test runs share
    with machine_lock.held('spack-ci'):
        before = (set(os.listdir(spack_dir)), installed_prefixes(spack_dir))
        started = time.monotonic()
        done = acceptance(tmp_path, *CHECK, env=env)
        print(f'acceptance with the recorded Spack: '
              f'{time.monotonic() - started:.0f} s')
        after = (set(os.listdir(spack_dir)), installed_prefixes(spack_dir))

    return tmp_path, done, before, after


def test_a_run_without_the_kit_variable_keeps_and_uses_the_kit_spack(
        run_without_kit, spack_ci):
    tmp_path, done, (names, prefixes), (names_after, prefixes_after) = \
        run_without_kit
    assert done.returncode == 0, done.stdout[-3000:]
    assert 'setup: spack: using the offline kit' in done.stdout
    assert 'cloning' not in done.stdout
    # nothing of the unpacked Spack or its install tree went away
    assert names <= names_after
    assert prefixes_after == prefixes
    lines = [line for path in (tmp_path / 'perflogs').rglob('*Check.log')
             for line in path.read_text().splitlines()[1:]]
    assert lines
    for line in lines:
        assert f"dependency=spack:{spack_ci['env']}" in line, line


def test_a_run_that_loses_spack_says_so_first_and_in_the_summary(
        run_without_kit, spack_ci):
    tmp_path = run_without_kit[0]
    env = with_recorded_spack(tmp_path, spack_ci)
    done = acceptance(tmp_path, *CHECK, env=env)   # HPC_ACCEPTANCE_SPACK=off
    assert done.returncode == 0, done.stdout[-3000:]
    out = done.stdout
    warning = (f"dependency source: Spack environment {spack_ci['env']} "
               f"missing since ")
    # before ReFrame starts, with the reason
    first = out.index(warning)
    assert first < out.index("acceptance: ReFrame's output goes to")
    assert 'HPC_ACCEPTANCE_SPACK=off)' in out[first:].splitlines()[0]
    # after it, in the summary, naming the checks
    summary = out[out.index('== acceptance summary'):]
    assert re.search(r'checks fell back to in-tree: '
                     r'MemoryReadBandwidthCheck\.', summary), summary


#: A small environment for a setup to be killed in: the kernels, STREAM
#: and NPB CG (the longest build, during which the setup is killed).
SMALL = '''\
spack:
  include:
  - ../common.yaml
  - {name: setup-externals, path: setup-externals, optional: true,
     prefer_modify: true}
  specs:
  - hpc-acceptance-kernels
  - stream+openmp stream_array_size=1048576
  - npb implementation=mpi names=cg classes=S
  develop:
    hpc-acceptance-kernels:
      spec: hpc-acceptance-kernels@=develop
      path: ../../src
  view: false
'''


def installed(log):
    '''Install prefixes a Spack install log shows as complete (externals,
    "[+] /usr (external ...)", left out).'''
    return set(re.findall(r'^\[\+\] (/\S+)$', log, re.M))


def test_a_setup_killed_during_the_install_is_completed_by_the_next(
        tmp_path):
    (tmp_path / 'small.yaml').write_text(SMALL)
    env_dir = environment_copy(tmp_path, 'small', tmp_path / 'small.yaml')
    spack_dir = tmp_path / 'spack'
    install_log = spack_dir / 'install.log'
    home = tmp_path / 'home'
    home.mkdir()
    started = time.monotonic()
    setup = subprocess.Popen([str(SETUP_SPACK)],
                             env=dict(setup_environment(spack_dir, env_dir),
                                      HOME=str(home)),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, start_new_session=True)
    try:
        while not (install_log.exists() and
                   'Installing npb' in install_log.read_text()):
            assert setup.poll() is None, setup.communicate()[0][-3000:]
            time.sleep(0.1)
    finally:
        os.killpg(setup.pid, signal.SIGKILL)
        setup.communicate()

    killed_log = install_log.read_text()
    print(f'setup killed after {time.monotonic() - started:.0f} s')
    before = installed(killed_log)
    assert before and not any('/npb-' in p for p in before), killed_log

    # the next setup, without the kit variable, completes the install
    started = time.monotonic()
    done = subprocess.run([str(SETUP_SPACK)],
                          env=dict(setup_environment(spack_dir, env_dir,
                                                     kit=False),
                                   HOME=str(home)),
                          text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=1800)
    print(f'next setup: {time.monotonic() - started:.0f} s')
    assert done.returncode == 0, done.stdout
    assert 'setup: spack: using the offline kit' in done.stdout
    assert 'concretizing' not in done.stdout
    # the kit's Spack is the project's own: its configuration and caches
    # are in its directory
    assert not (home / '.spack').exists()
    log = install_log.read_text()
    # what was complete was not installed again (Spack names a package
    # by its hash in both)
    for prefix in before:
        spec_hash = prefix.rsplit('-', 1)[1]
        assert not re.search(rf'^==> Installing \S+-{spec_hash} ', log,
                             re.M), prefix

    record = spack_setup.read(str(spack_dir))
    assert record and 'problem' not in record, record
    prefixes = {package: spack(record, '-e', str(env_dir), 'find',
                               '--format', '{prefix}', package).strip()
                for package in ('hpc-acceptance-kernels', 'stream', 'npb')}
    for package, prefix in prefixes.items():
        assert prefix in installed(log), (package, log[-3000:])

    assert os.path.isfile(os.path.join(prefixes['npb'], 'bin', 'cg.S.x'))
