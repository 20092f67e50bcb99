'''Working-set sizing from processor topologies
(hpc_acceptance.core.topology).'''

import pytest

from hpc_acceptance.core import node_shape, topology
from conftest import load_topology

KVM = load_topology('kvm-one-socket-two-cores')
TWO_SOCKETS = load_topology('two-socket-icelake-smt')


def cores(info, count=None):
    return list(node_shape.shape(info).cores[:count])


def test_levels_are_innermost_first_with_instances():
    levels = topology.cache_levels(TWO_SOCKETS)
    assert [lvl.name for lvl in levels] == ['l1', 'l2', 'l3']
    assert levels[0].instances == 72
    assert levels[2].instances == 2
    assert levels[2].cpus_per_instance == 72


def test_memory_is_four_times_all_last_level_caches():
    assert topology.memory_working_set(KVM) == 4 * 503316480


def test_memory_is_never_less_than_a_host_may_hide():
    # 4 x 2 x 54 MiB is 432 MiB: under the floor
    assert topology.memory_working_set(TWO_SOCKETS) == \
        topology.MIN_MEMORY_WORKING_SET == 1 << 30


def test_single_thread_sizes_sit_inside_each_level():
    sizes = topology.level_working_sets(KVM, cores(KVM, 1))
    assert sizes['l1'] == 24 * 1024
    # strictly between the level below and the level's own capacity
    assert 48 * 1024 < sizes['l2'] < 2 * 1024 * 1024
    assert 2 * 1024 * 1024 < sizes['l3'] < 503316480
    assert sizes['memory'] > 4 * 503316480 - 1


def test_private_levels_scale_with_threads_shared_with_instances():
    one = topology.level_working_sets(TWO_SOCKETS, cores(TWO_SOCKETS, 1))
    all_cores = topology.level_working_sets(TWO_SOCKETS, cores(TWO_SOCKETS))
    assert all_cores['l1'] == 72 * one['l1']
    # 72 cores span both sockets, so both L3 instances hold the working set
    assert all_cores['l3'] > 2 * 56623104 // 2
    assert all_cores['l3'] < 2 * 56623104
    assert all_cores['memory'] == one['memory']


def test_missing_caches_explain_how_to_provide_a_topology():
    with pytest.raises(topology.TopologyError, match='processor'):
        topology.cache_levels({'num_cpus': 4})

    # a node whose kernel shows no cpuN/cache at all: ReFrame detects no
    # caches, and nothing would come of detecting it again
    without = dict(KVM, topology=dict(KVM['topology'], caches=[]))
    with pytest.raises(topology.TopologyError,
                       match='processor.topology.caches by hand'):
        topology.level_working_sets(without, cores(KVM, 1))

    with pytest.raises(topology.TopologyError):
        topology.cache_levels(None)


@pytest.mark.parametrize('size, text', [
    (48 * 1024, '48K'), (2 << 20, '2M'), (1920 << 20, '1920M'),
    (1 << 30, '1G'), (1000, '1000'),
])
def test_sizes_are_written_the_way_the_kernels_read_them(size, text):
    assert topology.format_size(size) == text


def test_sizes_option_keeps_level_order():
    assert (topology.sizes_option({'l1': 24576, 'memory': 1 << 30}) ==
            '--sizes=l1:24K,memory:1G')
