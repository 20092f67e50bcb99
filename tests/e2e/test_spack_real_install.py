'''The real Spack path, offline: ci/setup-spack.sh installs a CI subset of
spack-envs/local (tests/e2e/spack_ci_environment.yaml) from the offline kit
(../shared/spack-offline, or HPC_ACCEPTANCE_SPACK_KIT), and reframe runs
memory, McCalpin's STREAM, all eight NPB benchmarks and HPCC from it.

The install is the session fixture ``spack_ci`` (tests/helpers/spack_ci.py:
cached, keyed by the kit and the environments). Without the kit these
tests skip, saying where it was looked for.
'''

import json
import re
from pathlib import Path

from helpers.report_cases import DEFAULT_VARIANTS, case_of, results
from helpers.spack_ci import MISSING_KIT, prefix_of, setup_spack, spack
from hpc_acceptance.core import identity
import pytest

NPB_BENCHMARKS = ('bt', 'cg', 'ep', 'ft', 'is', 'lu', 'mg', 'sp')
#: The classes of the CI subset (tests/e2e/spack_ci_environment.yaml).
NPB_CLASSES = ('S',)
#: One check of each family: memory latency, STREAM on one core, HPCC and
#: the eight NPB benchmarks on one rank.
CHECKS = ['MemoryLatencyCheck', 'StreamCheck', 'HpccCheck',
          *(f'Npb{b.capitalize()}Check' for b in NPB_BENCHMARKS)]
#: -n pattern of those (display names without spaces).
SELECTION = ('^(MemoryLatencyCheck.*|StreamCheck.*%threads=single|'
             'HpccCheck.*|Npb(Bt|Cg|Ep|Ft|Is|Lu|Mg|Sp)Check.*%num_procs=1)$')

pytestmark = pytest.mark.skipif(MISSING_KIT is not None,
                                reason=MISSING_KIT or '')


def test_every_package_of_the_subset_installed(spack_ci):
    log = (spack_ci['cache'] / 'spack' / 'install.log').read_text()
    assert 'Error' not in spack_ci['output'], spack_ci['output'][-3000:]
    for name in ('hpc-acceptance-kernels', 'stream', 'hpcc', 'npb'):
        prefixes = spack(spack_ci['record'], '-e', str(spack_ci['env']),
                         'find', '--format', '{prefix}', name).split()
        assert len(prefixes) == 1, (name, prefixes, log[-3000:])


def test_npb_installs_all_eight_benchmarks_in_each_class(spack_ci):
    prefix = prefix_of(spack_ci, 'npb')
    missing = [f'{b}.{c}.x' for b in NPB_BENCHMARKS for c in NPB_CLASSES
               if not (prefix / 'bin' / f'{b}.{c}.x').is_file()]
    assert not missing, (prefix, missing)


def test_a_second_setup_installs_nothing(spack_ci):
    done, seconds = setup_spack(spack_ci['cache'], spack_ci['env'])
    print(f'setup-spack again: {seconds:.0f} s')
    assert done.returncode == 0, done.stdout[-3000:]
    log = (spack_ci['cache'] / 'spack' / 'install.log').read_text()
    assert not re.search(r'^==> Installing', log, re.M), log[-3000:]
    assert 'concretizing' not in done.stdout


def test_checks_run_from_spack(spack_ci, run_reframe, tmp_path):
    done = run_reframe(
        '-c', 'checks/', '-r', '-n', SELECTION,
        *DEFAULT_VARIANTS, '-S', 'npb_class=S',
        '-S', 'StreamCheck.ntimes=3', '-S', 'HpccCheck.memory_fraction=0.001',
        env={'HPC_ACCEPTANCE_SPACK_DIR': str(spack_ci['cache'] / 'spack')}
    )
    assert done.returncode == 0, done.stdout[-5000:]
    cases = results(tmp_path / 'report.json')
    assert len(cases) == len(CHECKS), list(cases)
    for check in CHECKS:
        case_of(cases, check)

    for case in cases.values():
        assert case['result'] == 'pass', case['display_name']
        assert case['dependency_source'].startswith(
            f"spack:{spack_ci['env']}"), case['display_name']
        outputdir = Path(case['outputdir'])
        spec = (outputdir / 'spack-spec.txt').read_text()
        assert re.search(r'/[a-z0-9]{32}$', spec.strip()), spec
        # Spack was asked once, when the check was set up: the job script
        # loads without it (core/spack_load.py).
        script = (outputdir / 'rfm_job.sh').read_text()
        assert 'worked out when the check was set up' in script, script
        assert not re.search(r'(^|\$\(|[;&|]) *spack ', script, re.M), \
            script

    # McCalpin's array size and repetitions are compiled in (the subset's
    # stream_array_size, STREAM's default NTIMES): recorded as they ran,
    # not as the rule's minimum and -S StreamCheck.ntimes=3
    ran = identity.parse(case_of(cases, 'StreamCheck')['identity'])
    assert (ran['array_elements'], ran['ntimes']) == ('268435456', '10')

    # the checks' perflogs; the build fixtures log no dependency
    perflogs = list((tmp_path / 'perflogs').rglob('*Check.log'))
    assert len(perflogs) == len(CHECKS), perflogs
    lines = [line for path in perflogs
             for line in path.read_text().splitlines()[1:]]
    assert lines
    for line in lines:
        assert f"dependency=spack:{spack_ci['env']}" in line, line


#: The CI subset with OpenBLAS to be built by Spack instead of Debian's:
#: the kit has no OpenBLAS source, so its install fails, and HPCC's.
WITHOUT_OPENBLAS = '''\
spack:
  include:
  - ../common.yaml
  specs:
  - hpc-acceptance-kernels
  - stream+openmp stream_array_size=268435456 cflags="-O3 -mcmodel=medium"
  - hpcc
  - npb implementation=mpi names=bt,cg,ep,ft,is,lu,mg,sp classes=S
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
        spack_ci, run_reframe, tmp_path):
    env_dir = spack_ci['env'].parent / 'ci-without-openblas'
    env_dir.mkdir()
    (env_dir / 'spack.yaml').write_text(WITHOUT_OPENBLAS)
    spack(spack_ci['record'], '-e', str(env_dir), 'concretize', '-f')
    # the partition gets this environment from a setup record of its own
    spack_dir = tmp_path / 'spack'
    spack_dir.mkdir()
    (spack_dir / 'setup.json').write_text(json.dumps(
        {**spack_ci['record'], 'environment': str(env_dir)}))
    done = run_reframe(
        '-c', 'checks/', '-r', '-n',
        '^(MemoryLatencyCheck.*|StreamCheck.*%threads=single|'
        'NpbCgCheck.*%num_procs=1|HpccCheck.*)$',
        *DEFAULT_VARIANTS, '-S', 'HpccCheck.memory_fraction=0.001',
        '-S', 'StreamCheck.ntimes=3', '-S', 'npb_class=S',
        env={'HPC_ACCEPTANCE_SPACK_DIR': str(spack_dir)}
    )
    assert done.returncode == 1, done.stdout[-5000:]
    cases = results(tmp_path / 'report.json')
    # memory, STREAM and NPB run from their own installed packages
    for check in ('MemoryLatencyCheck', 'StreamCheck', 'NpbCgCheck'):
        case = case_of(cases, check)
        assert case['result'] == 'pass', (check, case['fail_reason'])
        assert case['dependency_source'].startswith(f'spack:{env_dir}')
    hpcc = case_of(cases, 'HpccCheck')
    assert hpcc['result'] == 'fail'
    reason = hpcc['fail_reason']
    assert re.search(rf'spack: "hpcc target=\S+" is not installed in '
                     rf'{re.escape(str(env_dir))}; ', reason), reason
    # Spack's own words: the fetch that failed and the skipped hpcc
    assert re.search(r'Error: FetchError: .*openblas', reason), reason
    assert re.search(r'Skipping build of hpcc-\S+ since openblas-\S+ '
                     r'failed', reason), reason
