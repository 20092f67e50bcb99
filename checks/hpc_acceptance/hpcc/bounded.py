'''The node counts of multi-node HPCC the configured partitions can hold.

A scheduler partition holds ``extras.max_nodes`` nodes
(:mod:`hpc_acceptance.core.partition_limits`); counts above the largest are
not generated, and :func:`left_out` says so once for the run's summary.
Partitions with the local scheduler never run multi-node HPCC and do not
bound it; without a scheduler partition of known size every count is kept.
'''

from hpc_acceptance.core import partition_limits


def _largest(partitions):
    sizes = [p.nodes for p in partitions or [] if not p.local]
    if not sizes or None in sizes:
        return None

    return max(sizes)


def node_counts(wanted, partitions=None):
    '''The counts of ``wanted`` up to what ``partitions`` (default: the
    configured ones) hold; all of them when the size is unknown.'''
    partitions = (partition_limits.configured() if partitions is None
                  else partitions)
    largest = _largest(partitions)
    if largest is None:
        return list(wanted)

    return [n for n in wanted if n <= largest] or list(wanted[:1])


def left_out(check, wanted, partitions=None):
    '''One sentence on the counts :func:`node_counts` drops, or ``''``.'''
    partitions = (partition_limits.configured() if partitions is None
                  else partitions)
    dropped = [n for n in wanted if n not in node_counts(wanted, partitions)]
    if not dropped:
        return ''

    return (f'{check}: node count(s) {", ".join(map(str, dropped))} exceed '
            f'extras.max_nodes of every scheduler partition '
            f'({_largest(partitions)} at most)')
