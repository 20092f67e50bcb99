'''How many ranks each network placement runs and where the launcher puts
them (hpc_acceptance.network.layout), judged as the check judges a run.'''

import pytest

from helpers.descriptions import described
from hpc_acceptance.core.node_shape import Inapplicable
from hpc_acceptance.network import layout


def sockets_of(*counts, threads=1):
    '''A node with ``counts`` cores on each socket, consecutive CPUs.'''
    cores, sockets, first = [], [], 0
    total = sum(counts)
    for count in counts:
        socket = [{c + t * total for t in range(threads)}
                  for c in range(first, first + count)]
        cores += socket
        sockets.append(set().union(*socket))
        first += count
    return described(cores, sockets)


def placed(info, placement, pairs='multi', every_thread=False):
    return layout.rank_layout(info, placement, pairs,
                              every_thread=every_thread, local=True,
                              num_nodes=2, partition='local:default')


def test_all_cores_pairs_the_sockets_of_an_even_node():
    ranks = placed(sockets_of(4, 4), 'all_cores')
    assert (ranks.num_tasks, ranks.distribution) == (8, 'block')
    assert ranks.expected[0] == {0} and ranks.expected[7] == {7}


@pytest.mark.parametrize('counts', [(4, 4, 4), (4, 2)])
def test_all_cores_where_pairs_cannot_cross_sockets_skips(counts):
    # three sockets: the middle one's ranks pair with each other; sockets
    # of unequal online cores: the larger one's last ranks do
    with pytest.raises(Inapplicable, match=r'would not sit where the '
                                           r'placement needs them \(ranks '
                                           r'\d+ and \d+ both ran on socket'):
        placed(sockets_of(*counts), 'all_cores')


def test_smt_on_binds_the_cross_socket_pair_to_hardware_threads():
    ranks = placed(sockets_of(2, 2, threads=2), 'cross_socket', 'single',
                   every_thread=True)
    assert ranks.distribution == 'sockets_threads'
    assert ranks.expected == ({0}, {2})


def test_smt_on_same_socket_is_the_two_threads_of_one_core():
    ranks = placed(sockets_of(2, 2, threads=2), 'same_socket', 'single',
                   every_thread=True)
    assert ranks.distribution == 'block_threads'
    assert ranks.expected == ({0}, {4})


def test_placements_a_node_cannot_hold_say_why():
    with pytest.raises(Inapplicable, match='has 1 socket: no pair of ranks '
                                           'can cross sockets'):
        placed(sockets_of(4), 'cross_socket', 'single')
    with pytest.raises(Inapplicable, match='uses the local scheduler'):
        placed(sockets_of(4), 'one_per_node', 'single')
    with pytest.raises(Inapplicable, match='one core in its first socket'):
        placed(sockets_of(1, 3), 'same_socket', 'single')
