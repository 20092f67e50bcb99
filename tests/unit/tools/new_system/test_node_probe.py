'''What ``hpc-acceptance new-system``'s probe makes of a node's output
(hpc_acceptance.tools.new_system.node_probe): its memory is that of its
NUMA nodes with CPUs, as the checks size by, not MemTotal.'''

import json

from hpc_acceptance.tools.new_system import node_probe

STATE = 'turbo unknown no cpufreq driver\nsmt off smt/active=0\n'


def facts(tmp_path, memory_lines):
    topology = tmp_path / 'n1.json'
    topology.write_text(json.dumps({'arch': 'power9le', 'num_cpus': 176}))
    output = (f'host n1\n{memory_lines}{STATE}{node_probe.DONE}\n')
    return node_probe.parse(output, str(topology), 'job 7 on n1')


def test_gpu_memory_shown_as_numa_nodes_is_not_sized_into(tmp_path):
    # a POWER9 node: 251.6 GiB in its nodes with CPUs, six GPUs' 15 GiB
    gpus = ''.join(f'numa_node {n} - {15 << 20}\n' for n in range(250, 256))
    node = facts(tmp_path, f'memtotal_kb 358162944\nmemfree_kb 345012672\n'
                           f'numa_node 0 0-87 129839104\n'
                           f'numa_node 8 88-175 133952000\n{gpus}'
                           f'numa_offline 0,8,250-255 0,8,250-255\n')
    assert node.memory_bytes == (129839104 + 133952000) * 1024
    assert node.memory_source().startswith(
        'the NUMA nodes with CPUs of n1 (hwloc\'s figure): NUMA nodes 250, '
        '251, 252, 253, 254, 255 without CPUs hold 90 GiB')


def test_a_node_without_numa_nodes_in_sysfs_has_memtotal(tmp_path):
    node = facts(tmp_path, f'memtotal_kb {16 << 20}\n')
    assert node.memory_bytes == 16 << 30
    assert node.memory_source() == 'MemTotal of /proc/meminfo on n1'


def test_nodes_holding_less_than_is_free_are_not_believed(tmp_path):
    # this CI guest: its one node says 13 GiB, 20 GiB are free
    node = facts(tmp_path, f'memtotal_kb {24 << 20}\nmemfree_kb {20 << 20}\n'
                           f'numa_node 0 0-1 {13 << 20}\nnuma_offline 0 0\n')
    assert node.memory_bytes == 24 << 30
