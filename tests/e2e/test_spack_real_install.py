'''The real Spack path, offline: ci/setup-spack.sh installs a CI subset of
spack-envs/local (tests/e2e/spack_ci_environment.yaml) from the offline kit
(../shared/spack-offline, or HPC_ACCEPTANCE_SPACK_KIT), and reframe runs
memory, McCalpin's STREAM, all eight NPB benchmarks and HPCC from it.

The Spack directory (unpacked kit, configuration, install tree) is cached
under ~/.cache/hpc-acceptance/, keyed by the kit's archives and the
environment's files, so a second run installs nothing. Without the kit
these tests skip, saying where it was looked for.
'''

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import PROJECT_DIR
from report_cases import DEFAULT_VARIANTS, case_of, results

KIT = Path(os.environ.get('HPC_ACCEPTANCE_SPACK_KIT',
                          PROJECT_DIR.parent / 'shared' / 'spack-offline'))
SUBSET = Path(__file__).with_name('spack_ci_environment.yaml')
NPB_BENCHMARKS = ('bt', 'cg', 'ep', 'ft', 'is', 'lu', 'mg', 'sp')
NPB_CLASSES = ('S', 'W')
#: One check of each family: memory latency, STREAM on one core, HPCC and
#: the eight NPB benchmarks on one rank.
CHECKS = ['MemoryLatencyCheck', 'StreamCheck', 'HpccCheck',
          *(f'Npb{b.capitalize()}Check' for b in NPB_BENCHMARKS)]
#: -n pattern of those (display names without spaces).
SELECTION = ('^(MemoryLatencyCheck.*|StreamCheck.*%threads=single|'
             'HpccCheck.*|Npb(Bt|Cg|Ep|Ft|Is|Lu|Mg|Sp)Check.*%num_procs=1)$')

pytestmark = pytest.mark.skipif(
    not (KIT / 'spack.tar.gz').is_file(),
    reason=f'no offline Spack kit at {KIT} (set HPC_ACCEPTANCE_SPACK_KIT)'
)


def cache_key():
    '''What the installs depend on: the kit's archives and sources, the
    environments and the project's Spack packages.'''
    digest = hashlib.sha256()
    files = [KIT / 'spack.tar.gz', KIT / 'spack-packages.tar.gz', SUBSET,
             *sorted((PROJECT_DIR / 'spack-envs').rglob('*.yaml')),
             *sorted((PROJECT_DIR / 'spack-envs').rglob('package.py'))]
    for path in files:
        digest.update(path.read_bytes())

    return digest.hexdigest()[:16]


def cache_dir():
    base = Path(os.environ.get('XDG_CACHE_HOME', Path.home() / '.cache'))
    return base / 'hpc-acceptance' / f'spack-ci-{cache_key()}'


def ci_environment(cache):
    '''spack-envs/ copied into the cache with the subset as ci/, beside a
    link to this checkout's src/ (the kernels' develop path).'''
    envs = cache / 'spack-envs'
    lock = envs / 'ci' / 'spack.lock'
    kept = lock.read_bytes() if lock.exists() else None
    shutil.rmtree(envs, ignore_errors=True)
    shutil.copytree(PROJECT_DIR / 'spack-envs', envs,
                    ignore=shutil.ignore_patterns('spack.lock', '.spack-env',
                                                  '.build-*'))
    (envs / 'ci').mkdir()
    shutil.copy(SUBSET, envs / 'ci' / 'spack.yaml')
    if kept is not None:
        lock.write_bytes(kept)

    src = cache / 'src'
    if src.is_symlink() or src.exists():
        src.unlink()

    src.symlink_to(PROJECT_DIR / 'src')
    return envs / 'ci'


def setup_spack(cache, env_dir):
    started = time.monotonic()
    done = subprocess.run(
        [str(PROJECT_DIR / 'ci' / 'setup-spack.sh')],
        env={**os.environ, 'HPC_ACCEPTANCE_SPACK_KIT': str(KIT),
             'HPC_ACCEPTANCE_SPACK_DIR': str(cache / 'spack'),
             'HPC_ACCEPTANCE_SPACK_ENV': str(env_dir),
             'PATH': os.environ['PATH']},
        text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        timeout=2400
    )
    return done, time.monotonic() - started


@pytest.fixture(scope='module')
def installed():
    cache = cache_dir()
    (cache / 'spack').mkdir(parents=True, exist_ok=True)
    env_dir = ci_environment(cache)
    done, seconds = setup_spack(cache, env_dir)
    print(f'setup-spack: {seconds:.0f} s')
    assert done.returncode == 0, done.stdout[-3000:]
    record = cache / 'spack' / 'setup.json'
    assert record.is_file(), done.stdout[-3000:]
    return {'cache': cache, 'env': env_dir,
            'record': json.loads(record.read_text()), 'output': done.stdout}


def spack(record, *args):
    env = {**os.environ, **record['env_vars'],
           'PATH': f"{record['spack_bin']}:{os.environ['PATH']}"}
    return subprocess.run([f"{record['spack_bin']}/spack", *args], env=env,
                          text=True, capture_output=True, check=True).stdout


def test_every_package_of_the_subset_installed(installed):
    log = (installed['cache'] / 'spack' / 'install.log').read_text()
    assert 'Error' not in installed['output'], installed['output'][-3000:]
    for name in ('hpc-acceptance-kernels', 'stream', 'hpcc', 'npb'):
        prefixes = spack(installed['record'], '-e', str(installed['env']),
                         'find', '--format', '{prefix}', name).split()
        assert len(prefixes) == 1, (name, prefixes, log[-3000:])


def test_npb_installs_all_eight_benchmarks_in_each_class(installed):
    [prefix] = spack(installed['record'], '-e', str(installed['env']),
                     'find', '--format', '{prefix}', 'npb').split()
    missing = [f'{b}.{c}.x' for b in NPB_BENCHMARKS for c in NPB_CLASSES
               if not (Path(prefix) / 'bin' / f'{b}.{c}.x').is_file()]
    assert not missing, (prefix, missing)


def test_a_second_setup_installs_nothing(installed):
    done, seconds = setup_spack(installed['cache'], installed['env'])
    print(f'setup-spack again: {seconds:.0f} s')
    assert done.returncode == 0, done.stdout[-3000:]
    log = (installed['cache'] / 'spack' / 'install.log').read_text()
    assert not re.search(r'^==> Installing', log, re.M), log[-3000:]
    assert 'concretizing' not in done.stdout


def test_checks_run_from_spack(installed, run_reframe, tmp_path):
    done = run_reframe(
        '-c', 'checks/', '-r', '-n', SELECTION,
        *DEFAULT_VARIANTS, '-S', 'npb_class=S',
        '-S', 'StreamCheck.ntimes=3', '-S', 'HpccCheck.memory_fraction=0.001',
        env={'HPC_ACCEPTANCE_SPACK_DIR': str(installed['cache'] / 'spack')}
    )
    assert done.returncode == 0, done.stdout[-5000:]
    cases = results(tmp_path / 'report.json')
    assert len(cases) == len(CHECKS), list(cases)
    for check in CHECKS:
        case_of(cases, check)

    for case in cases.values():
        assert case['result'] == 'pass', case['display_name']
        assert case['dependency_source'].startswith(
            f"spack:{installed['env']}"), case['display_name']
        outputdir = Path(case['outputdir'])
        spec = (outputdir / 'spack-spec.txt').read_text()
        assert re.search(r'/[a-z0-9]{32}$', spec.strip()), spec

    # the checks' perflogs; the build fixtures log no dependency
    perflogs = list((tmp_path / 'perflogs').rglob('*Check.log'))
    assert len(perflogs) == len(CHECKS), perflogs
    lines = [line for path in perflogs
             for line in path.read_text().splitlines()[1:]]
    assert lines
    for line in lines:
        assert f"dependency=spack:{installed['env']}" in line, line


#: HPCC and the kernels, with OpenBLAS to be built by Spack instead of
#: Debian's: the kit has no OpenBLAS source, so its install fails.
WITHOUT_OPENBLAS = '''\
spack:
  include:
  - ../common.yaml
  specs:
  - hpc-acceptance-kernels
  - hpcc
  packages:
    openblas:
      buildable: true
      require:
      - '@0.3.33'
  develop:
    hpc-acceptance-kernels:
      spec: hpc-acceptance-kernels@=develop
      path: ../../src
  view: false
'''


def test_a_package_that_cannot_install_fails_only_its_checks(
        installed, run_reframe, tmp_path):
    env_dir = installed['env'].parent / 'ci-without-openblas'
    env_dir.mkdir()
    (env_dir / 'spack.yaml').write_text(WITHOUT_OPENBLAS)
    spack(installed['record'], '-e', str(env_dir), 'concretize', '-f')
    # the partition gets this environment from a setup record of its own
    spack_dir = tmp_path / 'spack'
    spack_dir.mkdir()
    (spack_dir / 'setup.json').write_text(json.dumps(
        {**installed['record'], 'environment': str(env_dir)}))
    done = run_reframe(
        '-c', 'checks/', '-r', '-n', '^(MemoryLatencyCheck|HpccCheck).*$',
        *DEFAULT_VARIANTS, '-S', 'HpccCheck.memory_fraction=0.001',
        env={'HPC_ACCEPTANCE_SPACK_DIR': str(spack_dir)}
    )
    assert done.returncode == 1, done.stdout[-5000:]
    cases = results(tmp_path / 'report.json')
    assert case_of(cases, 'MemoryLatencyCheck')['result'] == 'pass'
    hpcc = case_of(cases, 'HpccCheck')
    assert hpcc['result'] == 'fail'
    reason = hpcc['fail_reason']
    assert re.search(rf'spack: "hpcc target=\S+" is not installed in '
                     rf'{re.escape(str(env_dir))}; ', reason), reason
    # Spack's own words: the fetch that failed and the skipped hpcc
    assert re.search(r'Error: FetchError: .*openblas', reason), reason
    assert re.search(r'Skipping build of hpcc-\S+ since openblas-\S+ '
                     r'failed', reason), reason
