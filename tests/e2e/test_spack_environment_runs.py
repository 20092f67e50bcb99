'''The Spack environment fixture, run through the reframe CLI for real.

CI has no Spack: these runs put a stand-in ``spack`` on PATH
(tests/fixtures/data/spack/fake_spack.sh) that logs its arguments, or none at
all. The probe check (tests/fixtures/data/spack/spack_probe_check.py) is wired
to the fixture the way every acceptance check is; the embedded default
system gets a Spack environment from
tests/fixtures/data/spack/local_with_spack_env.py.
'''

import json
import os
import shutil
import stat

from conftest import DATA_DIR, ONE_TIMED_RUN, PROJECT_DIR
from helpers.report_cases import DEFAULT_VARIANTS
import pytest

SPACK_DATA = DATA_DIR / 'spack'
# the probe's two checks, not their hardware variants
PROBE = [str(SPACK_DATA / 'spack_probe_check.py'), *DEFAULT_VARIANTS]
WITH_SPACK_ENV = ['-C', str(SPACK_DATA / 'local_with_spack_env.py')]
FAKE_SPEC = ('hpc-acceptance-kernels@develop families:=memory,network '
             'arch=linux-debian12-icelake /fakehash')


def path_without_spack():
    return os.pathsep.join(
        d for d in os.environ['PATH'].split(os.pathsep)
        if not os.access(os.path.join(d, 'spack'), os.X_OK)
    )


def cases(report_file):
    report = json.loads(report_file.read_text())
    return {case['display_name']: case
            for case in report['runs'][-1]['testcases']}


def fixture_case(all_cases):
    [case] = [c for name, c in all_cases.items()
              if name.startswith('SpackEnvironmentBuild')]
    return case


def build_output(tmp_path):
    '''What the fixture's build printed (its stage directory stays when no
    check ran after it).'''
    [out] = (tmp_path / 'prefix' / 'stage').rglob(
        'SpackEnvironmentBuild_*/rfm_build.out')
    return out.read_text()


def copy_environments(tmp_path):
    '''spack-envs/ beside a link to src/, like a fresh checkout elsewhere:
    without what Spack wrote into this checkout's environments.'''
    checkout = tmp_path / 'checkout'
    shutil.copytree(PROJECT_DIR / 'spack-envs', checkout / 'spack-envs',
                    ignore=shutil.ignore_patterns('spack.lock', '.spack-env',
                                                  'setup-externals'))
    (checkout / 'src').symlink_to(PROJECT_DIR / 'src')
    return checkout / 'spack-envs' / 'local'


@pytest.fixture
def fake_spack(tmp_path):
    '''PATH with the stand-in spack, and the environment it reads.'''
    bindir = tmp_path / 'fake-bin'
    bindir.mkdir()
    shutil.copy(SPACK_DATA / 'fake_spack.sh', bindir / 'spack')
    prefix = tmp_path / 'fake-prefix' / 'bin'
    prefix.mkdir(parents=True)
    program = prefix / 'mem_latency'
    program.write_text('#!/bin/sh\necho "usage: mem_latency (from the fake '
                       'Spack prefix)"\n')
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return {
        'PATH': f'{bindir}{os.pathsep}{path_without_spack()}',
        'FAKE_SPACK_LOG': str(tmp_path / 'spack-calls.log'),
        'FAKE_SPACK_PREFIX': str(prefix.parent),
        'FAKE_SPACK_FIND': FAKE_SPEC,
    }


def test_environment_is_installed_once_and_recorded(run_reframe, tmp_path,
                                                    fake_spack):
    env_dir = copy_environments(tmp_path)
    done = run_reframe(*WITH_SPACK_ENV, '-c', *PROBE, '-r', env=dict(
        fake_spack, HPC_ACCEPTANCE_TEST_SPACK_ENV=str(env_dir)))
    assert done.returncode == 0, done.stdout[-3000:]

    # One install for both checks, of the environment as committed: no
    # `spack add` or `config add` that would rewrite its spack.yaml.
    calls = (tmp_path / 'spack-calls.log').read_text().splitlines()
    assert calls.count(f'-e {env_dir} install') == 1
    assert not [c for c in calls if ' add ' in c or 'env create' in c]
    # The load worked out once for both checks (core/spack_load.py), none
    # in their jobs.
    loads = [c for c in calls if ' load ' in c or ' python ' in c]
    assert len(loads) == 1, loads
    assert loads[0].startswith(f'-e {env_dir} python '), loads

    all_cases = cases(tmp_path / 'report.json')
    build = fixture_case(all_cases)
    assert build['result'] == 'pass'
    assert build['spack_environment'] == str(env_dir)
    output = tmp_path / 'prefix' / 'output' / 'local' / 'default' / 'gnu'
    [build_out] = output.glob('SpackEnvironmentBuild_*')
    assert ((build_out / 'spack.lock').read_text() ==
            (env_dir / 'spack.lock').read_text())
    assert FAKE_SPEC in (build_out / 'spack-specs.txt').read_text()

    probes = {n: c for n, c in all_cases.items()
              if n.startswith('SpackProbeCheck')}
    assert len(probes) == 2
    for case in probes.values():
        assert case['result'] == 'pass'
        assert case['dependency_source'].startswith(f'spack:{env_dir}')
        assert case['spack_spec'] == FAKE_SPEC
        outputdir = output / os.path.basename(case['outputdir'])
        assert (outputdir / 'spack-spec.txt').read_text().strip() == FAKE_SPEC
        script = (outputdir / 'rfm_job.sh').read_text()
        assert (f"export PATH={fake_spack['FAKE_SPACK_PREFIX']}/bin"
                '"${PATH:+:$PATH}"') in script, script
        assert 'eval "$(spack' not in script, script


def test_without_spack_the_fixture_says_so_and_checks_fall_back(
        run_reframe, tmp_path):
    env_dir = copy_environments(tmp_path)
    done = run_reframe(*WITH_SPACK_ENV, '-c', *PROBE, '-r', env={
        'PATH': path_without_spack(),
        'HPC_ACCEPTANCE_TEST_SPACK_ENV': str(env_dir),
    })
    assert done.returncode == 0, done.stdout[-3000:]

    all_cases = cases(tmp_path / 'report.json')
    build = fixture_case(all_cases)
    assert build['result'] == 'pass'
    reason = (f'no Spack environment for local:default: "spack" is not on '
              f'PATH, so {env_dir} is not installed')
    assert build['spack_environment'] == reason
    assert build_output(tmp_path) == reason + '\n'
    assert not (env_dir / 'spack.lock').exists()

    # The probe has no fallback for mem_latency: it says what it looked for.
    assert [c['result'] for n, c in all_cases.items()
            if n.startswith('SpackProbeCheck')] == ['skip', 'skip']
    assert (f'"spack" is not on PATH for the environment {env_dir}'
            in done.stdout)


def test_partition_without_environment_is_a_no_op(run_reframe, tmp_path,
                                                  fake_spack):
    done = run_reframe('-c', *PROBE, '-r', env=fake_spack)
    assert done.returncode == 0, done.stdout[-3000:]
    assert not (tmp_path / 'spack-calls.log').exists()
    reason = ('no Spack environment for local:default: the partition names '
              'none (extras.spack_env)')
    assert fixture_case(cases(tmp_path / 'report.json'))[
        'spack_environment'] == reason
    assert build_output(tmp_path) == reason + '\n'


def test_environment_without_spack_yaml_fails_the_fixture(run_reframe,
                                                          tmp_path,
                                                          fake_spack):
    missing = tmp_path / 'spack-envs' / 'no-such-system'
    done = run_reframe(*WITH_SPACK_ENV, '-c', *PROBE, '-r', env=dict(
        fake_spack, HPC_ACCEPTANCE_TEST_SPACK_ENV=str(missing)))
    assert done.returncode == 1
    build = fixture_case(cases(tmp_path / 'report.json'))
    assert build['result'] == 'fail'
    assert build['fail_reason'].endswith(
        f'local:default: extras.spack_env names {missing}, which has no '
        f'spack.yaml')
    assert not (tmp_path / 'spack-calls.log').exists()


def test_isa_variant_built_by_spack_where_the_in_tree_build_cannot(
        run_reframe, tmp_path, fake_spack):
    # A compiler declared too old for archspec's sse4.2 flags: the in-tree
    # build cannot target the variant, the partition's Spack environment
    # builds it as target=x86_64_v2, and Spack is the source that is used.
    env_dir = copy_environments(tmp_path)
    done = run_reframe(
        *WITH_SPACK_ENV, '-c', 'checks/memory', *ONE_TIMED_RUN,
        '-n', 'MemoryLatencyCheck%isa=sse4.2.*%threads=single$', '-r',
        env=dict(fake_spack, HPC_ACCEPTANCE_TEST_SPACK_ENV=str(env_dir),
                 HPC_ACCEPTANCE_TEST_GCC_VERSION='4.0'))
    assert 'gcc 4.0 cannot build for sse4.2' not in done.stdout, \
        done.stdout[-3000:]
    [case] = [c for n, c in cases(tmp_path / 'report.json').items()
              if n.startswith('MemoryLatencyCheck')]
    assert case['result'] != 'skip'
    spec = 'hpc-acceptance-kernels target=x86_64_v2'
    assert case['dependency_source'] == f'spack:{env_dir} ({spec})'
    calls = (tmp_path / 'spack-calls.log').read_text().splitlines()
    assert any(c.startswith(f'-e {env_dir} python ') and c.endswith(spec)
               for c in calls), calls
