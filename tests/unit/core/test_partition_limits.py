'''What the configured partitions hold.'''

from hpc_acceptance.core.partition_limits import (PartitionSize, configured,
                                                  max_ranks)


def test_outside_reframe_nothing_is_known():
    assert configured() is None
    assert max_ranks(None) is None


def test_the_largest_partition_bounds_the_ranks():
    local = PartitionSize('s:local', 8, 1, 2, True)
    batch = PartitionSize('s:batch', 64, 4, 2, False)
    assert max_ranks([local]) == 8
    assert max_ranks([local, batch]) == 256


def test_a_partition_of_unknown_size_bounds_nothing():
    unsized = PartitionSize('s:batch', 64, None, 2, False)
    assert max_ranks([PartitionSize('s:l', 8, 1, 2, True), unsized]) is None
    assert max_ranks([PartitionSize('s:l', None, 1, None, True)]) is None
