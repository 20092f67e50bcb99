'''The system file and Spack environment new-system writes
(hpc_acceptance.tools.new_system.system_writer, .spack_env_file): valid
files whose values follow the rules they say they follow.'''

import json

import pytest
import yaml

from conftest import PROJECT_DIR, load_topology
from helpers.spack_ci import SETUP_EXTERNALS
from hpc_acceptance.stream import sizing
from hpc_acceptance.tools.common import identifiers
from hpc_acceptance.tools.new_system import node_probe, spack_env_file
from hpc_acceptance.tools.new_system import system_writer as system_file
from hpc_acceptance.tools.new_system.system_writer import PartitionEntry, Value
from hpc_acceptance.tools.new_system.toolchain import Toolchain

TOOLS = Toolchain(
    compiler='gcc', compiler_version='12.2.0', mpi='openmpi',
    mpi_version='4.1.6', wrappers=('mpicc', 'mpicxx', 'mpif90'),
    externals={'gcc': {'externals': [{'spec': 'gcc@12.2.0',
                                      'prefix': '/opt/gcc'}]},
               'mpi': {'require': ['openmpi']}},
    source='found by Spack')


def test_streams_rule_takes_the_node_with_the_most_cache():
    nodes = {'kvm': load_topology('kvm-one-socket-two-cores'),
             'icelake': load_topology('two-socket-icelake-smt')}
    rule = {name: sizing.min_array_elements(sizing.last_level_cache_bytes(
        info, sizing.layout_cores(info, 'all_cores')))
        for name, info in nodes.items()}
    elements, why = spack_env_file.stream_array_size(nodes)
    most = max(rule, key=rule.get)
    assert elements == rule[most]
    assert f'of all cores of {most}' in why


def test_large_static_arrays_get_the_medium_code_model():
    # three arrays of 8-byte elements above 2 GiB in all
    assert spack_env_file.stream_spec(89_000_000).endswith(' cflags="-O3"')
    assert spack_env_file.stream_spec(90_000_000).endswith(
        ' cflags="-O3 -mcmodel=medium"')


def test_the_environment_is_spack_yaml_with_the_values_read():
    text = spack_env_file.render(
        name='fleet', command='hpc-acceptance new-system fleet',
        targets=[('icelake', 'job 3 on n1')], stream=(60_000_000, 'rule'),
        toolchain=TOOLS)
    env = yaml.safe_load(text)['spack']
    assert env['include'] == [
        str(PROJECT_DIR / 'spack-envs' / 'common.yaml'), SETUP_EXTERNALS]
    assert env['definitions'][0] == {'node_target': ['target=icelake']}
    assert env['definitions'][1]['per_isa'][1] == \
        'stream+openmp stream_array_size=60000000 cflags="-O3"'
    assert env['packages'] == TOOLS.externals
    assert env['view'] is False
    assert '(processor.arch, icelake: job 3 on n1)' in ' '.join(
        line.strip('# ') for line in text.splitlines())


def test_the_system_file_loads_with_a_comment_for_each_value(tmp_path):
    entry = PartitionEntry(
        name='compute', descr=Value('Slurm partition compute', 'sinfo'),
        scheduler=Value('squeue', 'sacct: no accounting'),
        launcher=Value('srun', 'srun --mpi=list: pmix'),
        memory_bytes=Value(2**30, 'RealMemory=1024 MiB'),
        max_jobs=Value(4, 'one job per node'),
        access=Value(['--partition=compute'], 'its partition'),
        env_vars=[Value(['SLURM_MPI_TYPE', 'pmix'], 'openmpi needs pmix')],
        max_nodes=Value(4, 'the nodes of compute'),
        notes=['SMT: off on n1'])
    text = system_file.render(
        name='fleet', command='hpc-acceptance new-system fleet',
        hostname='login1.example.org',
        modules_system=Value('nomod', 'no --module'), partitions=[entry],
        environment=('gnu', {
            'cc': Value('mpicc', 'the wrappers'), 'cxx': Value('mpicxx'),
            'ftn': Value('mpif90'), 'modules': Value([]),
            'compiler': Value({'name': 'gcc', 'version': '12.2.0'},
                              'for archspec')}))
    path = tmp_path / 'systems' / 'fleet.py'
    path.parent.mkdir()
    path.write_text(text)
    namespace = {'__file__': str(path)}
    exec(compile(text, str(path), 'exec'), namespace)
    [part] = namespace['system']['partitions']
    assert namespace['system']['hostnames'] == [r'^login1\.example\.org$']
    assert part['extras'] == {'spack_env': str(tmp_path / 'spack-envs' /
                                               'fleet'),
                              'memory_bytes': 2**30, 'max_nodes': 4}
    assert part['env_vars'] == [['SLURM_MPI_TYPE', 'pmix']]
    assert namespace['environments'][0]['target_systems'] == ['fleet']
    for value, why in (("'scheduler': 'squeue'", 'sacct: no accounting'),
                       ("'memory_bytes': 1073741824", 'RealMemory=1024'),
                       ("'launcher': 'srun'", 'srun --mpi=list: pmix')):
        before = text.split(value)[0].splitlines()[-2]
        assert why in before, value


def test_an_arch_that_would_add_keys_to_the_environment_is_refused(
        tmp_path):
    # what a node's probe wrote is evidence: an arch of another form than
    # archspec's would be keys of its own in spack.yaml
    crafted = 'icelake]\n  specs: [evil]\n  x: [y'
    topology = tmp_path / 'n1.json'
    topology.write_text(json.dumps({'arch': crafted}))
    output = (f'host n1\nmemtotal_kb 1024\n{node_probe.DONE}\n')
    with pytest.raises(node_probe.ProbeError,
                       match=r"processor.arch of .*n1.json 'icelake\]\\n"):
        node_probe.parse(output, str(topology), 'job 3 on n1')
    with pytest.raises(identifiers.BadIdentifier):
        spack_env_file.render(name='fleet', command='c',
                              targets=[(crafted, 'job 3')],
                              stream=(60_000_000, 'rule'), toolchain=TOOLS)


def test_a_host_name_of_another_form_is_refused(tmp_path):
    topology = tmp_path / 'n1.json'
    topology.write_text(json.dumps({'arch': 'icelake'}))
    with pytest.raises(node_probe.ProbeError, match='host name'):
        node_probe.parse(f'host n1$(id)\nmemtotal_kb 1\n{node_probe.DONE}\n',
                         str(topology), 'job 3 on n1')
