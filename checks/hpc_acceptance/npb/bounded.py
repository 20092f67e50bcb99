'''The NPB process counts the configured partitions can hold.

:func:`process_counts` is :func:`hpc_acceptance.npb.classes.process_counts`
cut at the most ranks a partition of the current system holds
(:mod:`hpc_acceptance.core.partition_limits`); :func:`left_out` says what
was cut, once, for the run's summary. The remaining variants keep their
names.
'''

from hpc_acceptance.core import partition_limits
from hpc_acceptance.npb import classes


def process_counts(benchmark, partitions=None):
    '''The counts of ``benchmark`` up to what ``partitions`` (default: the
    configured ones) hold; all of them when the size is unknown.'''
    partitions = (partition_limits.configured() if partitions is None
                  else partitions)
    limit = partition_limits.max_ranks(partitions)
    counts = classes.process_counts(benchmark)
    if limit is None:
        return counts

    return [n for n in counts if n <= limit] or counts[:1]


def left_out(benchmark, partitions=None):
    '''One sentence on the counts :func:`process_counts` drops, or ``''``.'''
    partitions = (partition_limits.configured() if partitions is None
                  else partitions)
    kept = process_counts(benchmark, partitions)
    dropped = [n for n in classes.process_counts(benchmark)
               if n not in kept]
    if not dropped:
        return ''

    # the same sentence for every benchmark, so a summary states it once
    limit = partition_limits.max_ranks(partitions)
    return (f'NPB: process counts above {limit} exceed the largest '
            f'partition, {partition_limits.describe(partitions)} (set '
            f'extras.max_nodes of a scheduler partition to allow more)')
