'''The rank placements the configured partitions can hold.

Inter-node placements need a scheduler partition; ``cross_socket`` needs a
node with two sockets. A placement no partition of the current system can
hold (:mod:`hpc_acceptance.core.partition_limits`) is not generated;
:func:`left_out` says which, once, for the run's summary. Outside a ReFrame
run, or with a partition of unknown topology, every placement is kept.
'''

from hpc_acceptance.core import partition_limits

_INTER_NODE = ('one_per_node', 'all_per_node')


def _held(placement, partition):
    if placement in _INTER_NODE:
        return not partition.local

    if placement == 'cross_socket':
        return partition.sockets is None or partition.sockets >= 2

    return True


def placements(wanted, partitions=None):
    '''The placements of ``wanted`` some partition holds, in order.'''
    partitions = (partition_limits.configured() if partitions is None
                  else partitions)
    if not partitions:
        return list(wanted)

    return [p for p in wanted
            if any(_held(p, part) for part in partitions)] or list(wanted[:1])


def left_out(check, wanted, partitions=None):
    '''One sentence on the placements :func:`placements` drops, or ``''``.'''
    partitions = (partition_limits.configured() if partitions is None
                  else partitions)
    kept = placements(wanted, partitions)
    dropped = [p for p in wanted if p not in kept]
    if not dropped:
        return ''

    names = ', '.join(p.name for p in partitions)
    return (f'{check}: placement(s) {", ".join(dropped)} need two sockets '
            f'or a scheduler partition; {names} has neither')
