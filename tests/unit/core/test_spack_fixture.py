'''Choosing and recording a partition's Spack environment
(hpc_acceptance.core.spack), without ReFrame or Spack.'''

import pytest
from conftest import PROJECT_DIR

from hpc_acceptance.core.spack import (SPEC_FORMAT, SpackEnvironmentError,
                                       environment_for, installed_specs,
                                       installs_nothing,
                                       not_installed_message)

LOCAL_ENV = str(PROJECT_DIR / 'spack-envs' / 'local')


def which_from(found):
    return lambda name: found.get(name)


def test_configured_environment_is_installed_when_spack_is_there():
    env, reason = environment_for(
        'local:default', {'spack_env': 'spack-envs/local'},
        which=which_from({'spack': '/opt/spack/bin/spack'}))
    assert (env, reason) == (LOCAL_ENV, None)


def test_partition_without_environment_is_a_no_op_that_says_so():
    env, reason = environment_for('c:p', {'memory_bytes': 1},
                                  which=which_from({'spack': '/bin/spack'}))
    assert env is None
    assert reason == ('no Spack environment for c:p: the partition names '
                      'none (extras.spack_env)')


def test_missing_spack_is_a_no_op_that_names_the_environment():
    env, reason = environment_for('c:p', {'spack_env': 'spack-envs/local'},
                                  which=which_from({}))
    assert env is None
    assert reason == (f'no Spack environment for c:p: "spack" is not on '
                      f'PATH, so {LOCAL_ENV} is not installed')


def test_environment_without_spack_yaml_is_an_error(tmp_path):
    with pytest.raises(SpackEnvironmentError,
                       match=rf'^c:p: extras.spack_env names {tmp_path}, '
                             rf'which has no spack.yaml$'):
        environment_for('c:p', {'spack_env': str(tmp_path)},
                        which=which_from({}))


def test_spack_that_matches_nothing_is_an_error_naming_the_command(
        tmp_path, monkeypatch):
    # A stand-in: Spack found no such spec (an error path)
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    (bindir / 'spack').write_text('#!/bin/sh\necho "==> No package matches '
                                  'the query: npb" >&2\nexit 1\n')
    (bindir / 'spack').chmod(0o755)
    monkeypatch.setenv('PATH', f'{bindir}:/usr/bin:/bin')
    installed_specs.cache_clear()
    with pytest.raises(SpackEnvironmentError) as err:
        installed_specs('/envs/c', 'npb names=cg target=x86_64_v3')

    assert str(err.value) == (
        f"spack -e /envs/c find --format '{SPEC_FORMAT}' npb names=cg "
        f"target=x86_64_v3: ==> No package matches the query: npb")


def test_the_night_installs_nothing_and_says_so_of_a_missing_package(
        tmp_path, monkeypatch):
    log = tmp_path / 'spack-install.log'
    log.write_text('==> Error: npb-3.4.3-abc failed to install\n')
    monkeypatch.delenv('HPC_ACCEPTANCE_SETUP', raising=False)
    assert not installs_nothing()
    assert 'npb-3.4.3-abc failed' in not_installed_message('/e', 'npb', log)
    # ci/nightly.sh's setting: what an administrator installed, as it is
    monkeypatch.setenv('HPC_ACCEPTANCE_SETUP', 'verify')
    assert installs_nothing()
    assert not_installed_message('/e', 'npb names=cg', log) == (
        'spack: "npb names=cg" is not installed in /e, and '
        'HPC_ACCEPTANCE_SETUP=verify: the night installs nothing; an '
        'administrator installs the environment (ci/setup.sh, or '
        'ci/acceptance.sh run by hand)')
