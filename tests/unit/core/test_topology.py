'''Working-set sizing from processor topologies
(hpc_acceptance.core.topology).'''

import pytest

from conftest import load_topology
from helpers.descriptions import described
from hpc_acceptance.core import node_shape, topology

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
    all_cores = topology.sizes(TWO_SOCKETS, cores(TWO_SOCKETS))
    assert all_cores.sizes['l1'] == 72 * one['l1']
    assert all_cores.sizes['memory'] == one['memory']
    # one thread reaches a whole 54 MiB L3; 36 threads a socket share 1.5
    # MiB of it each, against their own 1.25 MiB L2
    assert 1280 << 10 < one['l3'] < 54 << 20
    assert 'l3' not in all_cores.sizes
    assert all_cores.skipped['l3'].startswith(
        "a thread's share of L3 is 1.5 MiB with 72 threads on these cores, "
        "less than 2 x the 1.25 MiB of L2 a thread fills first")


def test_hardware_threads_share_their_core_s_caches():
    # smt=on: the two threads of a core share its L1 and L2
    node = node_shape.shape(TWO_SOCKETS)
    places = node_shape.places(node.cores[:1], every_thread=True)
    both = topology.sizes(TWO_SOCKETS, places).sizes
    alone = topology.sizes(TWO_SOCKETS, places[:1]).sizes
    assert both['l1'] == alone['l1']
    assert both['l2'] < 2 * alone['l2']


def test_a_hybrid_cpu_s_levels_lie_in_every_kind_of_core():
    # 4 P-cores: 48 KiB L1d, own 1.25 MiB L2; 4 E-cores: 32 KiB L1d, one
    # 2 MiB L2; one 12 MiB L3
    performance = [{c} for c in range(4)]
    efficiency = [{c} for c in range(4, 8)]
    info = described(performance + efficiency, [set(range(8))], caches=[
        (1, 48 << 10, performance), (1, 32 << 10, efficiency),
        (2, 1280 << 10, performance), (2, 2 << 20, [set(range(4, 8))]),
        (3, 12 << 20, [set(range(8))])])
    every = topology.sizes(info, cores(info))
    l1, l2 = every.sizes['l1'] // 8, every.sizes['l2'] // 8
    # below the E-cores' 32 KiB, above the P-cores' 48 KiB, within the E
    # cores' 512 KiB shares
    assert l1 <= 16 << 10 and 48 << 10 < l2 <= 512 << 10
    # 1.5 MiB of L3 a core, against the P-cores' 1.25 MiB L2
    assert 'l3' in every.skipped
    alone = topology.sizes(info, cores(info)[:4]).sizes
    assert 1280 << 10 < alone['l3'] // 4 <= 3 << 20


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


def test_a_level_the_node_shows_no_cache_of_for_some_threads_is_not_sized():
    # no L2 for CPUs 2-3: on every core, L2 is not measured and the CPUs
    # are named; L1 and L3 are, L3 clear of L1; one thread on core 0 has
    # every level
    cores_ = [{c} for c in range(4)]
    info = described(cores_, [set(range(4))], caches=[
        (1, 32768, cores_), (2, 1 << 20, cores_[:2]),
        (3, 32 << 20, [set(range(4))])])
    found = topology.sizes(info, cores(info))
    assert set(found.sizes) == {'l1', 'l3', 'memory'}
    assert found.skipped['l2'].startswith(
        'the node shows no L2 for CPUs 2-3')
    assert 4 * 32768 < found.sizes['l3'] < 32 << 20
    assert set(topology.sizes(info, cores(info, 1)).sizes) == {
        'l1', 'l2', 'l3', 'memory'}
