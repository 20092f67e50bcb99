'''What ``hpc-acceptance new-system``'s probe makes of a node's output
(hpc_acceptance.tools.new_system.node_probe): its memory is that of its
NUMA nodes with CPUs, as the checks size by, not MemTotal.'''

import json

from hpc_acceptance.tools.new_system import node_probe

STATE = 'turbo unknown no cpufreq driver\nsmt off smt/active=0\n'


def facts(tmp_path, memory_lines):
    topology = tmp_path / 'n1.json'
    topology.write_text(json.dumps({'num_cpus': 176}))
    output = (f'host n1\n{memory_lines}{STATE}{node_probe.DONE}\n')
    return node_probe.parse(output, str(topology), 'job 7 on n1')


def test_gpu_memory_shown_as_numa_nodes_is_not_sized_into(tmp_path):
    # a POWER9 node: 252 GiB in its nodes with CPUs, 342 GiB MemTotal
    node = facts(tmp_path, f'memtotal_kb {342 << 20}\n'
                           f'numa_memory_kb {252 << 20}\n')
    assert node.memory_bytes == 252 << 30
    assert node.memory_source().startswith(
        'the NUMA nodes with CPUs of n1 (hwloc\'s figure); MemTotal 342.0 '
        'GiB also counts memory no node with CPUs holds')


def test_a_node_without_numa_nodes_in_sysfs_has_memtotal(tmp_path):
    node = facts(tmp_path, f'memtotal_kb {16 << 20}\n')
    assert node.memory_bytes == 16 << 30
    assert node.memory_source() == 'MemTotal of /proc/meminfo on n1'
