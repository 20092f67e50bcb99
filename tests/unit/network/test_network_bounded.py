'''Rank placements cut at what the partitions hold.'''

from hpc_acceptance.core.partition_limits import PartitionSize
from hpc_acceptance.network import bounded

SINGLE = ['same_socket', 'cross_socket', 'one_per_node']


def test_one_socket_local_node_keeps_the_same_socket_pair():
    node = [PartitionSize('l:d', 2, 1, 1, True)]
    assert bounded.placements(SINGLE, node) == ['same_socket']
    note = bounded.left_out('NetworkSinglePairCheck', SINGLE, node)
    assert 'cross_socket, one_per_node' in note


def test_two_sockets_and_a_scheduler_keep_everything():
    parts = [PartitionSize('c:l', 8, 1, 2, True),
             PartitionSize('c:b', 8, None, 1, False)]
    assert bounded.placements(SINGLE, parts) == SINGLE
    assert bounded.left_out('X', SINGLE, parts) == ''


def test_unknown_sockets_keep_cross_socket():
    node = [PartitionSize('l:d', 2, 1, None, True)]
    assert bounded.placements(SINGLE, node) == ['same_socket',
                                                'cross_socket']
