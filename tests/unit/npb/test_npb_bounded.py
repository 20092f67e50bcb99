'''NPB process counts cut at what the partitions hold.'''

from hpc_acceptance.core.partition_limits import PartitionSize
from hpc_acceptance.npb import bounded, classes

TWO_CORES = [PartitionSize('local:default', 2, 1, 1, True)]


def test_a_two_core_node_keeps_the_counts_it_holds():
    assert bounded.process_counts('cg', TWO_CORES) == [1, 2]
    assert bounded.process_counts('bt', TWO_CORES) == [1]
    note = bounded.left_out('cg', TWO_CORES)
    assert note.startswith('NPB: process counts above 2 exceed the '
                           'largest partition, local:default (2 hardware '
                           'threads x 1 node)')
    # one sentence for all benchmarks: the summary states it once
    assert bounded.left_out('bt', TWO_CORES) == note


def test_a_scheduler_partition_holds_its_max_nodes():
    batch = [PartitionSize('c:batch', 48, 4, 2, False)]
    assert bounded.process_counts('sp', batch)[-1] == 169
    assert bounded.process_counts('cg', batch)[-1] == 128


def test_unknown_sizes_keep_every_count():
    unsized = [PartitionSize('c:batch', 48, None, 2, False)]
    assert (bounded.process_counts('ep', unsized) ==
            classes.process_counts('ep'))
    assert bounded.left_out('ep', unsized) == ''
