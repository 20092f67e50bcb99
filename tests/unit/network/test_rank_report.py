'''Where the ranks of the MPI checks report they ran
(hpc_acceptance.network.rank_report).'''

import json

import pytest

from conftest import DATA_DIR, PROJECT_DIR, load_topology
from hpc_acceptance.network.rank_report import (RankPlacement, RankReportError,
                                                layout_problems,
                                                parse_cpu_list,
                                                parse_rank_lines, summary)

NETWORK = DATA_DIR / 'network'
# Two sockets of 36 cores, two hardware threads per core: core c is CPUs
# c and c+72, socket 0 holds cores 0-35.
CLUSTER = json.loads((PROJECT_DIR / 'config' / 'topology' /
                      'example-cluster-compute.json').read_text())
KVM = load_topology('kvm-one-socket-two-cores')


def rank(r, host, cpu, partner, threads=2):
    allowed = frozenset(cpu + 72 * t for t in range(threads))
    return RankPlacement(r, host, cpu, allowed, partner)


def thread_rank(r, host, cpu, partner):
    '''A rank bound to the single hardware thread ``cpu`` (SMT on).'''
    return RankPlacement(r, host, cpu, frozenset({cpu}), partner)


def test_cpu_lists():
    assert parse_cpu_list('0-3,8,10-11') == {0, 1, 2, 3, 8, 10, 11}


def test_rank_lines_of_a_real_run():
    text = (NETWORK / 'net_pairs.pingpong.single.2ranks.out').read_text()
    ranks = parse_rank_lines(text)
    assert ranks == [RankPlacement(0, 'vm', 0, frozenset({0}), 1),
                     RankPlacement(1, 'vm', 1, frozenset({1}), 0)]
    assert summary(ranks) == 'r0=vm:0 r1=vm:1'
    assert layout_problems(ranks, layout='same_socket', info=KVM,
                           num_tasks=2) == []


def test_unbound_ranks_were_left_to_chance():
    text = (NETWORK / 'net_pairs.unbound.out').read_text()
    assert layout_problems(parse_rank_lines(text), layout='same_socket',
                           info=KVM, num_tasks=2) == [
        'rank 0 on vm is not bound to one core (allowed CPUs: 0,1)',
        'rank 1 on vm is not bound to one core (allowed CPUs: 0,1)',
    ]


def test_missing_and_repeated_rank_lines_are_errors():
    line = '# rank {} host vm cpu 0 allowed 0 partner none\n'
    with pytest.raises(RankReportError, match=r'out: no placement line for '
                       r'rank\(s\) 1'):
        parse_rank_lines(line.format(0) + line.format(2), 'out')

    with pytest.raises(RankReportError, match='rank 0 reported twice'):
        parse_rank_lines(line.format(0) * 2)

    with pytest.raises(RankReportError, match='no "# rank" placement lines'):
        parse_rank_lines('latency 1 us\n')


def test_cross_socket_pair_on_a_two_socket_node():
    ranks = [rank(0, 'n1', 0, 1), rank(1, 'n1', 36, 0)]
    assert layout_problems(ranks, layout='cross_socket', info=CLUSTER,
                           num_tasks=2) == []
    assert layout_problems(ranks, layout='same_socket', info=CLUSTER,
                           num_tasks=2) == [
        'ranks 0 and 1 ran on sockets 0 and 1, expected one socket']


def test_pair_on_one_socket_is_not_a_cross_socket_pair():
    ranks = [rank(0, 'n1', 0, 1), rank(1, 'n1', 1, 0)]
    assert layout_problems(ranks, layout='cross_socket', info=CLUSTER,
                           num_tasks=2) == [
        'ranks 0 and 1 both ran on socket 0, expected two sockets']


def test_binding_to_a_whole_core_counts_as_bound():
    # both hardware threads of core 5: bound to one core
    assert layout_problems([rank(0, 'n1', 5, 1), rank(1, 'n1', 6, 0)],
                           layout='same_socket', info=CLUSTER,
                           num_tasks=2) == []
    spread = RankPlacement(0, 'n1', 5, frozenset({5, 6}), 1)
    assert 'not bound to one core' in layout_problems(
        [spread, rank(1, 'n1', 7, 0)], layout='same_socket', info=CLUSTER,
        num_tasks=2)[0]


def test_ranks_sharing_a_core_are_reported():
    assert layout_problems([rank(0, 'n1', 3, 1), rank(1, 'n1', 3, 0)],
                           layout='same_socket', info=CLUSTER,
                           num_tasks=2) == ['ranks share cores on n1']


def test_one_rank_per_node_needs_two_hosts():
    good = [rank(0, 'n1', 0, 1), rank(1, 'n2', 0, 0)]
    assert layout_problems(good, layout='one_per_node', info=CLUSTER,
                           num_tasks=2, num_nodes=2) == []
    same = [rank(0, 'n1', 0, 1), rank(1, 'n1', 1, 0)]
    assert layout_problems(same, layout='one_per_node', info=CLUSTER,
                           num_tasks=2, num_nodes=2) == [
        'ranks ran on 1 host(s) (n1), expected 2']


def multi_pair(hosts, cores):
    '''Ranks filling ``cores`` cores of each host in turn, paired N-1-r.'''
    n = len(hosts) * cores
    return [rank(r, hosts[r // cores], r % cores, n - 1 - r)
            for r in range(n)]


def test_all_cores_pairs_cross_the_socket_link():
    ranks = multi_pair(['n1'], 72)
    assert layout_problems(ranks, layout='all_cores', info=CLUSTER,
                           num_tasks=72) == []


def test_all_per_node_pairs_cross_the_nodes():
    ranks = multi_pair(['n1', 'n2'], 72)
    assert layout_problems(ranks, layout='all_per_node', info=CLUSTER,
                           num_tasks=144, num_nodes=2) == []


def test_all_per_node_with_pairs_inside_a_node_is_wrong():
    # node 1's ranks came first and last: partners r and 3-r share a node
    hosts = ['n1', 'n2', 'n2', 'n1']
    ranks = [rank(r, hosts[r], r, 3 - r) for r in range(4)]
    problems = layout_problems(ranks, layout='all_per_node', info=CLUSTER,
                               num_tasks=4, num_nodes=2)
    assert problems == ['ranks 0 and 3 both ran on n1, expected two hosts',
                        'ranks 1 and 2 both ran on n2, expected two hosts']


def test_uneven_spread_over_nodes_is_reported():
    ranks = multi_pair(['n1', 'n2'], 2)
    ranks[1] = rank(1, 'n2', 7, 2)
    problems = layout_problems(ranks, layout='all_per_node', info=CLUSTER,
                               num_tasks=4, num_nodes=2)
    assert '1 ranks ran on n1, expected 2' in problems


def test_rank_count_must_match_the_job():
    ranks = multi_pair(['n1'], 2)
    assert layout_problems(ranks, layout='all_cores', info=CLUSTER,
                           num_tasks=4) == ['2 ranks reported, 4 were started']


# SMT on (per_thread=True): ranks are bound to hardware threads, not cores.
# SMT_NODE is the same two-socket node as CLUSTER, as the tests describe it.
SMT_NODE = load_topology('two-socket-icelake-smt')


def test_ranks_on_single_hardware_threads_pass():
    # CPUs 5 and 77 are the two hardware threads of core 5
    pair = [thread_rank(0, 'n1', 5, 1), thread_rank(1, 'n1', 77, 0)]
    assert layout_problems(pair, layout='same_socket', info=SMT_NODE,
                           num_tasks=2, per_thread=True) == []


def test_ranks_sharing_a_hardware_thread_are_reported():
    pair = [thread_rank(0, 'n1', 5, 1), thread_rank(1, 'n1', 5, 0)]
    assert layout_problems(pair, layout='same_socket', info=SMT_NODE,
                           num_tasks=2, per_thread=True) == [
        'ranks share hardware threads on n1']


def test_binding_to_a_whole_core_is_not_one_hardware_thread():
    # fine for one rank per core, not for one rank per hardware thread
    pair = [rank(0, 'n1', 5, 1), rank(1, 'n1', 6, 0)]
    assert layout_problems(pair, layout='same_socket', info=SMT_NODE,
                           num_tasks=2) == []
    assert layout_problems(pair, layout='same_socket', info=SMT_NODE,
                           num_tasks=2, per_thread=True) == [
        'rank 0 on n1 is not bound to one hardware thread (allowed CPUs: '
        '5,77)',
        'rank 1 on n1 is not bound to one hardware thread (allowed CPUs: '
        '6,78)',
    ]


def test_same_socket_per_thread_needs_the_two_threads_of_one_core():
    # one socket, but two cores: right without SMT, wrong with it
    pair = [thread_rank(0, 'n1', 5, 1), thread_rank(1, 'n1', 6, 0)]
    assert layout_problems(pair, layout='same_socket', info=SMT_NODE,
                           num_tasks=2) == []
    assert layout_problems(pair, layout='same_socket', info=SMT_NODE,
                           num_tasks=2, per_thread=True) == [
        'ranks 0 and 1 ran on cores 5 and 6, expected the two hardware '
        'threads of one core']


def test_all_cores_per_thread_pairs_cross_the_socket_link():
    # block_threads: rank r on thread r % 2 of core r // 2, paired N-1-r
    n = 144
    ranks = [thread_rank(r, 'n1', r // 2 + 72 * (r % 2), n - 1 - r)
             for r in range(n)]
    assert layout_problems(ranks, layout='all_cores', info=SMT_NODE,
                           num_tasks=n, per_thread=True) == []
    # the same ranks counted per core share every core
    assert layout_problems(ranks, layout='all_cores', info=SMT_NODE,
                           num_tasks=n) == ['ranks share cores on n1']
