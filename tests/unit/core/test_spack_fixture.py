'''Choosing and recording a partition's Spack environment
(hpc_acceptance.core.spack), without ReFrame or Spack.'''

import shlex

import pytest
from conftest import PROJECT_DIR

from hpc_acceptance.core.spack import (SPEC_FORMAT, SPEC_RECORD_FILE,
                                       SpackEnvironmentError, environment_for,
                                       read_spec_record, spec_record_cmd)

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


def test_spec_record_command_asks_spack_for_the_loaded_spec():
    cmd = spec_record_cmd('/envs/c', 'npb implementation=mpi names=cg '
                                     'classes=C target=x86_64_v3')
    words = shlex.split(cmd)
    assert words[:6] == ['spack', '-e', '/envs/c', 'find', '--format',
                         SPEC_FORMAT]
    assert words[6:] == ['npb', 'implementation=mpi', 'names=cg',
                         'classes=C', 'target=x86_64_v3', '>',
                         SPEC_RECORD_FILE]


def test_recorded_spec_is_read_back(tmp_path):
    path = tmp_path / SPEC_RECORD_FILE
    assert read_spec_record(str(path)) is None
    path.write_text('hpcc@develop fft=internal arch=linux-debian12-icelake '
                    '/6xoiuj2myauybk5ly4seuhvofniefbej\n')
    assert read_spec_record(str(path)) == (
        'hpcc@develop fft=internal arch=linux-debian12-icelake '
        '/6xoiuj2myauybk5ly4seuhvofniefbej')


def test_empty_record_means_spack_matched_nothing(tmp_path):
    path = tmp_path / SPEC_RECORD_FILE
    path.write_text('\n')
    with pytest.raises(SpackEnvironmentError,
                       match='spack find matched no spec'):
        read_spec_record(str(path))
