'''Where the memory kernels' threads run and which thread the NUMA check
pairs with which (hpc_acceptance.memory.layout), on descriptions shaped as
ReFrame writes them.'''

import copy

import pytest

from helpers.descriptions import described
from hpc_acceptance.core.node_shape import Inapplicable
from hpc_acceptance.core.node_state import NumaNode
from hpc_acceptance.memory import layout


def four_cores_per_socket(nodes):
    cores = [{c} for c in range(8)]
    return described(cores, [set(range(4)), set(range(4, 8))], nodes=nodes,
                     caches=[(1, 32768, cores),
                             (3, 8 << 20, [set(range(4)),
                                           set(range(4, 8))])])


def partners(info):
    return layout.numa_partners(
        info, layout.plan(info, 'all_cores', every_thread=False).places)


def test_threads_pair_across_the_sockets():
    info = four_cores_per_socket([set(range(4)), set(range(4, 8))])
    assert partners(info) == [4, 5, 6, 7, 0, 1, 2, 3]


def test_sub_numa_clusters_still_pair_across_the_sockets():
    # two NUMA nodes per socket: the partner is on the other socket, not
    # the other cluster of the same one
    info = four_cores_per_socket([{0, 1}, {2, 3}, {4, 5}, {6, 7}])
    found = partners(info)
    assert all((t < 4) != (p < 4) for t, p in enumerate(found))


def test_one_socket_of_several_nodes_pairs_across_the_nodes():
    cores = [{c} for c in range(4)]
    caches = [(1, 32768, cores), (3, 8 << 20, [set(range(4))])]
    info = described(cores, [set(range(4))], nodes=[{0, 1}, {2, 3}],
                     caches=caches)
    assert partners(info) == [2, 3, 0, 1]


def test_more_than_half_of_the_threads_on_one_socket_cannot_pair():
    # six cores online on the first socket, two on the second
    cores = [{c} for c in range(8)]
    caches = [(1, 32768, cores), (3, 8 << 20, [set(range(6)), {6, 7}])]
    info = described(cores, [set(range(6)), {6, 7}], caches=caches)
    with pytest.raises(Inapplicable, match='6 of the 8 threads are on one '
                                           'socket: more than half'):
        partners(info)


def test_one_numa_node_with_cpus_has_no_remote_memory():
    info = four_cores_per_socket([set(range(8)), set()])
    with pytest.raises(Inapplicable, match=r'1 NUMA node with CPUs \(1 more '
                                           r'without, memory only'):
        partners(info)


def test_a_single_thread_stays_one_with_smt_on():
    cores = [{0, 2}, {1, 3}]
    info = described(cores, [{0, 1, 2, 3}],
                     caches=[(1, 32768, cores), (2, 1 << 20, cores)])
    plan = layout.plan(info, 'single', every_thread=True)
    assert plan.places == [{0}] and plan.cores == [{0, 2}]
    every = layout.plan(info, 'all_cores', every_thread=True)
    assert every.places == [{0}, {2}, {1}, {3}]
    assert every.per_thread_working_sets()['l1'] == \
        every.working_sets['l1'] // 4


def test_a_kernel_without_numa_nodes_has_no_remote_memory():
    info = four_cores_per_socket([set(range(4)), set(range(4, 8))])
    info['topology']['numa_nodes'] = []
    with pytest.raises(Inapplicable, match='lists no NUMA nodes'):
        partners(info)


def test_numa_nodes_spanning_sockets_pair_across_the_nodes():
    # a board of two sockets per NUMA node: another socket may be the same
    # memory, another node is not
    cores = [{c} for c in range(8)]
    sockets = [{0, 1}, {2, 3}, {4, 5}, {6, 7}]
    caches = [(1, 32768, cores), (3, 8 << 20, sockets)]
    info = described(cores, sockets, nodes=[set(range(4)), set(range(4, 8))],
                     caches=caches)
    assert partners(info) == [4, 5, 6, 7, 0, 1, 2, 3]


def slit(rows):
    '''``{node: NumaNode}`` of nodes of two CPUs each, ``rows`` their
    distances (a SLIT).'''
    return {node: NumaNode(frozenset({2 * node, 2 * node + 1}),
                           dict(enumerate(row)))
            for node, row in enumerate(rows)}


ONE_CPU_EACH = [frozenset({cpu}) for cpu in range(8)]


def test_each_distance_of_a_4_socket_machine_is_a_pass_of_its_own():
    # the 4-socket Opteron's nodes: one hop (16) and two hops (22) apart
    numa = slit([[10, 16, 16, 22], [16, 10, 22, 16], [16, 22, 10, 16],
                 [22, 16, 16, 10]])
    found, said = layout.distance_classes(ONE_CPU_EACH, numa)
    assert sorted(found) == [16, 22] and said == {}
    for distance, partners in found.items():
        assert sorted(partners) == list(range(8))
        for thread, partner in enumerate(partners):
            assert numa[thread // 2].distances[partner // 2] == distance


def test_a_distance_only_one_pair_of_nodes_has_rests_the_others():
    # 128arm-2pa2n8cluster4co: nodes 1 and 2 alone are 25 apart
    numa = slit([[10, 16, 32, 33], [16, 10, 25, 32], [32, 25, 10, 16],
                 [33, 32, 16, 10]])
    found, said = layout.distance_classes(ONE_CPU_EACH, numa)
    assert sorted(found) == [16, 25, 32, 33]
    assert found[25] == [None, None, 4, 5, 2, 3, None, None]
    assert said[25].startswith('distance 25: NUMA nodes 1, 2 of 4')


def test_one_distance_or_none_known_needs_no_more_passes():
    two = slit([[10, 21], [21, 10]])
    assert layout.distance_classes(ONE_CPU_EACH[:4], two) == ({}, {})
    assert layout.distance_classes(ONE_CPU_EACH, None) == ({}, {})


def with_kinds(info, nodes, cpus=None):
    '''``info`` with a view telling each NUMA node's kind: ``{node: (CPU
    list, kind)}``; the run may use ``cpus`` (default: all).'''
    info = copy.deepcopy(info)
    info['topology']['allowed'] = {
        'cpus': cpus, 'mems': None,
        'numa_nodes': [{'node': n, 'cpus': listed, 'kind': kind,
                        'evidence': 'access0 read bandwidth'}
                       for n, (listed, kind) in nodes.items()]}
    return info


def test_dram_and_hbm_are_never_paired_in_one_ring():
    # nodes 0 and 1 DRAM, node 2 HBM with CPUs of its own (the issue's
    # DRAM -> DRAM -> HBM ring), node 4 HBM without CPUs
    cores = [{c} for c in range(6)]
    info = with_kinds(
        described(cores, [set(range(6))],
                  nodes=[{0, 1}, {2, 3}, {4, 5}, set()],
                  caches=[(1, 32768, cores), (2, 1 << 20, cores)]),
        {0: ('0-1', 'DRAM'), 1: ('2-3', 'DRAM'), 2: ('4-5', 'HBM'),
         4: ('', 'HBM')})
    found = layout.plan(info, 'all_cores', False, main_memory=True)
    assert found.places == [{0}, {1}, {2}, {3}]
    partners = layout.numa_partners(info, found.places)
    assert all((t < 2) != (p < 2) for t, p in enumerate(partners))
    assert layout.other_kinds(info) == (
        'NUMA nodes 2, 4: HBM (access0 read bandwidth): another kind of '
        'memory than DRAM, not measured (local and remote are compared '
        'within DRAM)')
    # the other checks still run on every core
    assert len(layout.plan(info, 'all_cores', False).places) == 6


def test_a_run_given_4_cpus_of_one_node_and_2_of_another_pairs_2_and_2():
    cores = [{c} for c in range(16)]
    info = with_kinds(
        described(cores, [set(range(16))],
                  nodes=[set(range(8)), set(range(8, 16))],
                  caches=[(1, 32768, cores)]),
        {0: ('0-7', 'DRAM'), 1: ('8-15', 'DRAM')}, cpus='4-9')
    assert layout.plan(info, 'all_cores', False).places == [
        {4}, {5}, {6}, {7}, {8}, {9}]
    found = layout.plan(info, 'all_cores', False, main_memory=True)
    assert found.places == [{4}, {5}, {8}, {9}]
    assert layout.numa_partners(info, found.places) == [2, 3, 0, 1]
