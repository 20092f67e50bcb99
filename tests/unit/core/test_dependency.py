'''Dependency-source selection (hpc_acceptance.core.dependency).'''

import os

from hpc_acceptance.core.dependency import Requirement, resolve
from hpc_acceptance.core.paths import PROJECT_DIR

HPCC = Requirement(executable='hpcc', spack_spec='hpcc',
                   debian_package='hpcc')


def which_from(found):
    return lambda name: found.get(name)


def test_spack_environment_wins_when_spack_is_available():
    res = resolve(HPCC, partition_name='c:p',
                  partition_extras={'spack_env': 'spack-envs/c'},
                  which=which_from({'spack': '/opt/spack/bin/spack',
                                    'hpcc': '/usr/bin/hpcc'}))
    env = os.path.join(PROJECT_DIR, 'spack-envs', 'c')
    assert res.source == 'spack'
    assert res.prerun_cmds == [f'eval "$(spack -e {env} load --sh hpcc)"']
    assert res.describe() == f'spack:{env} (hpcc)'


def test_isa_variant_asks_spack_for_its_target():
    res = resolve(HPCC, partition_name='c:p',
                  partition_extras={'spack_env': '/envs/c'}, isa='avx2',
                  which=which_from({'spack': '/opt/spack/bin/spack'}))
    assert res.prerun_cmds == [
        'eval "$(spack -e /envs/c load --sh hpcc target=x86_64_v3)"']


def test_isa_variant_cannot_come_from_a_fixed_binary():
    res = resolve(HPCC, partition_name='c:p', partition_extras={},
                  isa='avx512', which=which_from({'hpcc': '/usr/bin/hpcc'}))
    assert not res.found
    assert res.reason == (
        'isa=avx512: hpcc comes from /usr/bin/hpcc, one fixed build; '
        "building per ISA needs the partition's Spack environment "
        '(hpcc target=x86_64_v4)')


def test_isa_variant_uses_the_in_tree_build_for_it():
    req = Requirement(executable='mem_latency', spack_spec='kernels')
    res = resolve(req, partition_name='c:p', partition_extras={},
                  in_tree_dir='/stage/build/avx2', isa='avx2',
                  which=which_from({'mem_latency': '/usr/bin/mem_latency'}))
    assert (res.source, res.executable) == ('in-tree',
                                            '/stage/build/avx2/mem_latency')


def test_isa_the_in_tree_build_cannot_target_comes_from_spack():
    req = Requirement(executable='mem_latency', spack_spec='kernels')
    res = resolve(req, partition_name='c:p',
                  partition_extras={'spack_env': '/envs/c'},
                  in_tree_dir='/stage/build/avx512', isa='avx512',
                  in_tree_unsupported='gcc 4.8 cannot build for avx512',
                  which=which_from({'spack': '/opt/spack/bin/spack'}))
    assert res.source == 'spack'
    assert res.spack_target == 'x86_64_v4'


def test_isa_the_in_tree_build_cannot_target_skips_where_it_is_the_source():
    req = Requirement(executable='mem_latency', spack_spec='kernels')
    res = resolve(req, partition_name='c:p', partition_extras={},
                  in_tree_dir='/stage/build/avx512', isa='avx512',
                  in_tree_unsupported='gcc 4.8 cannot build for avx512',
                  which=which_from({'mem_latency': '/usr/bin/mem_latency'}))
    assert not res.found
    assert res.reason == 'isa=avx512: gcc 4.8 cannot build for avx512'


def test_spack_environment_without_spack_falls_back_to_path():
    res = resolve(HPCC, partition_name='c:p',
                  partition_extras={'spack_env': 'spack-envs/c'},
                  which=which_from({'hpcc': '/usr/bin/hpcc'}))
    assert (res.source, res.executable) == ('path', '/usr/bin/hpcc')


def test_module_mapping_comes_before_path():
    res = resolve(HPCC, partition_name='c:p',
                  partition_extras={'modules': {'hpcc': 'hpcc/1.5.0'}},
                  which=which_from({'hpcc': '/usr/bin/hpcc'}))
    assert res.source == 'module'
    assert res.modules == ['hpcc/1.5.0']


def test_in_tree_build_is_the_last_resort():
    req = Requirement(executable='mem_latency', spack_spec='kernels')
    res = resolve(req, partition_name='c:p', partition_extras={},
                  in_tree_dir='/stage/build', which=which_from({}))
    assert (res.source, res.executable) == ('in-tree',
                                            '/stage/build/mem_latency')
    assert res.describe() == 'in-tree:/stage/build'


def test_path_comes_before_the_in_tree_build():
    req = Requirement(executable='mem_latency', spack_spec='kernels')
    res = resolve(req, partition_name='c:p', partition_extras={},
                  in_tree_dir='/stage/build',
                  which=which_from({'mem_latency': '/opt/bin/mem_latency'}))
    assert res.source == 'path'


def test_missing_binary_says_where_it_looked_and_what_to_install():
    res = resolve(HPCC, partition_name='local:default', partition_extras={},
                  which=which_from({}))
    assert not res.found
    assert "partition 'local:default' names no Spack environment" in res.reason
    assert "'hpcc' is not on PATH" in res.reason
    assert 'apt-get install hpcc' in res.reason
    assert 'add "hpcc" to the partition\'s Spack environment' in res.reason


def test_missing_spack_is_named_when_an_environment_is_configured():
    res = resolve(HPCC, partition_name='c:p',
                  partition_extras={'spack_env': '/envs/c'},
                  which=which_from({}))
    assert '"spack" is not on PATH for the environment /envs/c' in res.reason
