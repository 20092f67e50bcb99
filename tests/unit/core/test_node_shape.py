'''The node as the checks count it (hpc_acceptance.core.node_shape), on
processor descriptions shaped exactly as ReFrame's detection writes them
(tests/helpers/descriptions.py).'''

import pytest

from conftest import load_topology
from helpers.descriptions import described
from hpc_acceptance.core import node_shape

TWO_SOCKETS = load_topology('two-socket-icelake-smt')


def test_masks_are_read_whatever_the_kernel_padded_them_with():
    assert node_shape.cpu_set('0x00000003\x00') == {0, 1}
    assert node_shape.cpu_set('00000001,00000000\n') == {32}
    assert node_shape.cpu_set('0x') == set()
    with pytest.raises(node_shape.TopologyError, match="'0xzz'"):
        node_shape.cpu_set('0xzz')


def test_a_two_socket_smt_node():
    node = node_shape.shape(TWO_SOCKETS)
    assert (node.core_count, node.cpu_count, node.socket_count,
            node.threads_per_core) == (72, 144, 2, 2)
    assert node.cores[0] == {0, 72}
    # block order: the first socket's cores, then the second's
    assert node.cores[35] == {35, 107} and node.cores[36] == {36, 108}
    assert node.unusable == {} and node.notes == ()


def modules_with_own_l1(**processor):
    # the kernel lists each module's two cores (or each core's two threads)
    # as siblings; each CPU has its own L1d, the pair one L2
    modules = [{2 * m, 2 * m + 1} for m in range(4)]
    return described(modules, [set(range(8))], caches=[
        (1, 16384, [{cpu} for cpu in range(8)]),
        (2, 2 << 20, modules)], **processor)


@pytest.mark.parametrize('arch', ['bulldozer', 'piledriver', 'excavator'])
def test_bulldozer_modules_are_two_cores(arch):
    node = node_shape.shape(modules_with_own_l1(vendor='AuthenticAMD',
                                                arch=arch))
    assert (node.core_count, node.threads_per_core) == (8, 1)
    [note] = node.notes
    assert 'Bulldozer' in note and 'count 8 cores' in note
    with pytest.raises(node_shape.Inapplicable,
                       match='Bulldozer module.s two CPUs are cores'):
        node_shape.threads_per_core(node, 'off', 'p')


@pytest.mark.parametrize('vendor, arch', [
    # a QEMU guest describing each hardware thread with its own L1d
    ('GenuineIntel', 'x86_64'), ('GenuineIntel', 'skylake'),
    # later AMD families: their siblings are SMT threads
    ('AuthenticAMD', 'zen2'), ('AuthenticAMD', 'x86_64_v2'),
    # no vendor or archspec name stated
    (None, None)])
def test_siblings_with_their_own_l1_elsewhere_are_threads(vendor, arch):
    node = node_shape.shape(modules_with_own_l1(vendor=vendor, arch=arch))
    assert (node.core_count, node.threads_per_core) == (4, 2)
    [note] = node.notes
    assert 'threads of one core all the same' in note
    assert node_shape.threads_per_core(node, 'on', 'p') == 2


def test_hardware_threads_share_their_l1_and_stay_one_core():
    cores = [{c, c + 4} for c in range(4)]
    info = described(cores, [set(range(8))], caches=[
        (1, 32768, cores), (3, 8 << 20, [set(range(8))])])
    node = node_shape.shape(info)
    assert (node.core_count, node.threads_per_core) == (4, 2)
    assert node_shape.threads_per_core(node, 'on', 'p') == 2
    assert node_shape.threads_per_core(node, 'off', 'p') == 1


def test_hybrid_cores_keep_their_own_thread_counts():
    performance = [{c, c + 8} for c in range(4)]
    efficiency = [{c} for c in range(4, 8)]
    info = described(performance + efficiency, [set(range(12))], caches=[
        (1, 49152, performance + efficiency),
        (2, 1280 << 10, performance), (2, 2 << 20, [set(range(4, 8))])])
    # what ReFrame makes of it: 12 // 8 = 1 thread per core
    assert info['num_cpus_per_core'] == 1
    node = node_shape.shape(info)
    assert (node.core_count, node.cpu_count, node.threads_per_core) == (
        8, 12, 2)
    assert [i.size for i in node.caches['l2']] == [1280 << 10] * 4 + [
        2 << 20]
    assert node_shape.slots(node, every_thread=True) == 12
    assert node_shape.slots(node, every_thread=False) == 8
    assert 'different numbers of hardware threads' in node.notes[0]
    assert '2 kinds of core by their caches: a hybrid CPU' in node.notes[0]


def test_offline_cpus_are_not_counted():
    # CPUs 6 and 7 offline: the kernel drops them from every mask, ReFrame
    # still counts their directories
    cores = [{c} for c in range(6)]
    info = described(cores, [set(range(6))], num_cpus=8)
    node = node_shape.shape(info)
    assert (node.core_count, node.cpu_count) == (6, 6)
    assert '2 of the 8 CPUs' in node.notes[0]


def test_memory_only_numa_nodes_are_listed_last_and_empty():
    info = described([{0}, {1}], [{0, 1}], nodes=[{0, 1}, set()])
    node = node_shape.shape(info)
    assert node.numa_nodes == ({0, 1}, set())
    assert node.numa_nodes_with_cpus == ({0, 1},)


def test_overlapping_sockets_and_caches_are_unusable_and_named():
    cores = [{c} for c in range(8)]
    info = described(cores, [{0, 1, 2, 3}, {2, 3, 4, 5, 6, 7}], caches=[
        (3, 8 << 20, [{0, 1, 2, 3}, {3, 4, 5, 6, 7}])])
    node = node_shape.shape(info)
    assert node.unusable['sockets'].startswith(
        'the processor description is inconsistent: sockets CPUs 0-3 and '
        '2-7 overlap (CPUs 2-3 are in both)')
    assert 'L3 instances of CPUs 0-3 and 3-7 overlap' in \
        node.unusable['caches']
    with pytest.raises(node_shape.TopologyError, match='sockets CPUs'):
        node.require('sockets')


def test_levels_missing_for_some_cpus_are_named_each_not_unusable():
    # a kernel that shows no L1 for CPU 3 and no L3 for CPUs 2-3: every
    # gap is named, the caches stay usable, and one thread runs on a core
    # with every level
    cores = [{c} for c in range(4)]
    info = described(cores, [set(range(4))], caches=[
        (1, 32768, cores[:3]), (3, 8 << 20, [{0, 1}])])
    node = node_shape.shape(info)
    assert 'caches' not in node.unusable
    assert node.cache_gaps == {'l1': {3}, 'l3': {2, 3}}
    [note] = node.notes
    assert 'no L1 for CPUs 3; no L3 for CPUs 2-3' in note
    assert node.cores_with_every_level() == [{0}, {1}]


def test_a_description_of_counts_only_still_counts_cores():
    node = node_shape.shape({'num_cpus': 16, 'num_cpus_per_core': 2,
                             'num_sockets': 2})
    assert (node.core_count, node.cpu_count, node.socket_count) == (8, 16, 2)
    with pytest.raises(node_shape.TopologyError,
                       match='no topology.cores CPU masks'):
        node.require('cores')
    with pytest.raises(node_shape.TopologyError, match='does not count'):
        node_shape.slots(node_shape.shape({}), every_thread=False)


def test_places_are_whole_cores_or_each_thread():
    cores = [frozenset({0, 4}), frozenset({1, 5})]
    assert node_shape.places(cores, every_thread=False) == cores
    assert node_shape.places(cores, every_thread=True) == [
        {0}, {4}, {1}, {5}]


def test_caches_without_a_size_are_unusable():
    # some arm64 kernels list the caches and their sharing, not their size
    cores = [{c} for c in range(4)]
    info = described(cores, [set(range(4))], caches=[(1, 0, cores)])
    assert node_shape.shape(info).unusable['caches'].startswith(
        'the processor description gives L1 no size')
