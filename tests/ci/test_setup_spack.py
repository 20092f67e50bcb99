'''ci/setup-spack.sh's choices that need no Spack: it never puts a Spack
where another one is, keeps the recorded one over what a variable names,
and records why it cannot use it rather than forgetting it. (Installing
with a real Spack: tests/e2e/test_spack_setup_faults.py.)'''

import json
import os
import subprocess

from conftest import PROJECT_DIR

from hpc_acceptance.core import spack_setup

SETUP_SPACK = PROJECT_DIR / 'ci' / 'setup-spack.sh'


def setup(spack_dir, **variables):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('HPC_ACCEPTANCE_SPACK', 'SPACK_'))}
    env.update(HPC_ACCEPTANCE_SPACK_DIR=str(spack_dir), **variables)
    return subprocess.run([str(SETUP_SPACK)], env=env, text=True,
                          capture_output=True, timeout=120)


def test_a_spack_it_did_not_make_is_left_as_it_is(tmp_path):
    spack_dir = tmp_path / 'spack-dir'
    (spack_dir / 'spack' / 'opt').mkdir(parents=True)
    (spack_dir / 'spack' / 'opt' / 'installed').write_text('an hour of builds')
    kit = tmp_path / 'kit'
    kit.mkdir()
    for name in ('spack.tar.gz', 'spack-packages.tar.gz'):
        (kit / name).write_bytes(b'a kit this Spack did not come from')

    done = setup(spack_dir, HPC_ACCEPTANCE_SPACK_KIT=str(kit))
    assert done.returncode == 0, done.stderr
    assert (f'{spack_dir}/spack already holds a Spack that did not come '
            f'from the kit {kit}; it is left as it is') in done.stdout
    assert (spack_dir / 'spack' / 'opt' / 'installed').read_text() == \
        'an hour of builds'
    assert not (spack_dir / 'spack-packages').exists()
    assert not list(spack_dir.glob('.partial-*'))
    assert spack_setup.read(str(spack_dir)) is None


def recorded(spack_dir, **fields):
    spack_dir.mkdir()
    record = {'source': 'SPACK_ROOT', 'origin': '/opt/site-spack', 'key': '',
              'prepared': '2026-11-01T02:30:00Z',
              'spack_bin': '/opt/site-spack/bin',
              'environment': 'spack-envs/local', 'install_opts': [],
              'env_vars': {}, **fields}
    (spack_dir / spack_setup.RECORD).write_text(json.dumps(record))
    return record


def test_the_recorded_spack_wins_over_a_variable_naming_another(tmp_path):
    spack_dir = tmp_path / 'spack-dir'
    recorded(spack_dir)
    done = setup(spack_dir, HPC_ACCEPTANCE_SPACK_KIT=str(tmp_path / 'kit'))
    assert (f'the offline kit {tmp_path / "kit"} is ignored: '
            f'this checkout uses SPACK_ROOT=/opt/site-spack, recorded '
            f'2026-11-01T02:30:00Z. To replace it, run again with '
            f'HPC_ACCEPTANCE_SPACK_REPLACE=1') in done.stdout


def test_a_recorded_spack_that_is_gone_is_kept_with_the_reason(tmp_path):
    spack_dir = tmp_path / 'spack-dir'
    before = recorded(spack_dir)
    done = setup(spack_dir)
    assert done.returncode == 0, done.stderr
    assert 'there is no /opt/site-spack/bin/spack' in done.stdout
    record = spack_setup.read(str(spack_dir))
    # still the same Spack, not used this run, and why since when
    assert {k: record[k] for k in before} == before
    assert record['problem'] == 'SPACK_ROOT=/opt/site-spack cannot be used'
    assert spack_setup.unusable_because(record) == record['problem']
    since = record['problem_since']
    setup(spack_dir)
    assert spack_setup.read(str(spack_dir))['problem_since'] == since


def test_replacing_a_spack_that_cannot_be_had_keeps_the_recorded_one(
        tmp_path):
    spack_dir = tmp_path / 'spack-dir'
    before = recorded(spack_dir)
    done = setup(spack_dir, SPACK_ROOT=str(tmp_path / 'other'),
                 HPC_ACCEPTANCE_SPACK_REPLACE='1')
    assert ('replacing SPACK_ROOT=/opt/site-spack (recorded '
            '2026-11-01T02:30:00Z) with SPACK_ROOT=') in done.stdout
    assert 'the recorded Spack stays in use' in done.stdout
    assert spack_setup.read(str(spack_dir)) == before
