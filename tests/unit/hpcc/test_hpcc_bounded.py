'''Multi-node HPCC's node counts, bounded by the scheduler partitions
(hpc_acceptance.hpcc.bounded).'''

from hpc_acceptance.core.partition_limits import PartitionSize
from hpc_acceptance.hpcc import bounded

LOCAL = PartitionSize('local:default', 2, 1, 1, True)


def cluster(nodes):
    return PartitionSize('cluster:compute', 72, nodes, 2, False)


def test_counts_above_the_largest_scheduler_partition_are_left_out():
    assert bounded.node_counts((2, 4), [LOCAL, cluster(3)]) == [2]
    assert bounded.left_out('HpccMultiNodeCheck', (2, 4),
                            [cluster(3)]) == (
        'HpccMultiNodeCheck: node count(s) 4 exceed extras.max_nodes of '
        'every scheduler partition (3 at most)')


def test_unknown_or_no_scheduler_partition_bounds_nothing():
    assert bounded.node_counts((2, 4), [cluster(None)]) == [2, 4]
    assert bounded.node_counts((2, 4), [LOCAL]) == [2, 4]
    assert bounded.node_counts((2, 4), None) == [2, 4]
    assert bounded.left_out('HpccMultiNodeCheck', (2, 4), [LOCAL]) == ''


def test_a_partition_too_small_for_any_keeps_the_smallest():
    assert bounded.node_counts((2, 4), [cluster(1)]) == [2]
