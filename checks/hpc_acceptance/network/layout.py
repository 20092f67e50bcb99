'''How many ranks each network placement runs, how the launcher places them,
and whether the pairs ``net_pairs`` makes of them can sit where the
placement says on this node (:mod:`hpc_acceptance.core.node_shape`).

The launcher places ranks as :mod:`hpc_acceptance.core.rank_placement`
asks: ``block`` fills the cores (with ``smt=on`` the hardware threads) in
block order, socket by socket; ``sockets`` deals the ranks out to the
sockets in turn, each bound to a core (with ``smt=on`` a hardware thread,
as the check's verification of ``smt=on`` expects). ``net_pairs`` pairs
rank *r* with rank *n-1-r* (every rank in the multi-pair test; ranks 0 and
*n-1* in the single-pair test, src/network/README.md). On one node,
:func:`rank_layout` places the ranks as the launcher will and judges that
placement with the check's own verification
(:func:`hpc_acceptance.network.rank_report.layout_problems`), so a node on
which the pairs cannot cross sockets as asked (an odd number of sockets,
sockets with unequal online cores) skips the placement with the reason
instead of failing every night.
'''

from dataclasses import dataclass

from hpc_acceptance.core import node_shape
from hpc_acceptance.core.node_shape import Inapplicable
from hpc_acceptance.network import rank_report

#: Placement -> launcher distribution (see
#: :mod:`hpc_acceptance.core.rank_placement`).
DISTRIBUTION = {
    'same_socket': 'block',
    'cross_socket': 'sockets',
    'all_cores': 'block',
    'one_per_node': 'one_per_node',
    'all_per_node': 'block',
}
INTER_NODE = ('one_per_node', 'all_per_node')


@dataclass(frozen=True)
class RankLayout:
    num_tasks: int
    num_tasks_per_node: int
    #: the launcher distribution
    distribution: str
    #: the CPUs each rank of one node is bound to, in rank order, as the
    #: launcher places them; empty for placements across nodes
    expected: tuple = ()


def partner(rank, num_tasks, pairs):
    '''The rank ``rank`` communicates with, as ``net_pairs`` pairs them,
    or ``None``.'''
    if pairs == 'multi' or rank in (0, num_tasks - 1):
        return num_tasks - 1 - rank

    return None


#: Distributions that bind each rank to a hardware thread, not a core.
_PER_THREAD = ('block_threads', 'sockets_threads')


def _placed(node, distribution, ranks):
    '''The CPU set of each of ``ranks`` ranks placed ``distribution``.'''
    units = node_shape.places(node.cores, distribution in _PER_THREAD)
    if distribution in ('block', 'block_threads'):
        return units[:ranks]

    by_socket = [[u for u in units if u <= socket] for socket in node.sockets]
    dealt = [by_socket[r % len(by_socket)][r // len(by_socket)]
             for r in range(ranks)]
    return dealt


def rank_layout(info, placement, pairs, *, every_thread, local, num_nodes,
                partition):
    '''The :class:`RankLayout` of ``placement`` on nodes of ``info``.

    :raises Inapplicable: where the node or partition cannot hold it.
    :raises hpc_acceptance.core.node_shape.TopologyError: where the
        description lacks the cores or sockets it needs.
    '''
    node = node_shape.shape(info)
    node.require('cores')
    slots = node_shape.slots(node, every_thread)
    if placement in INTER_NODE:
        if local:
            raise Inapplicable(
                f'{partition} uses the local scheduler, which runs on one '
                f'node: {placement} needs a scheduler partition with two or '
                f'more nodes')
    else:
        node.require('sockets')

    sockets = len(node.sockets)
    if placement == 'cross_socket' and sockets < 2:
        raise Inapplicable(f'{partition} has {sockets} socket: no pair of '
                           f'ranks can cross sockets')

    first_socket = [core for core in node.cores
                    if node.sockets and core <= node.sockets[0]]
    if placement == 'same_socket' and len(first_socket) < 2 and \
            not every_thread:
        raise Inapplicable(f'{partition} has one core in its first socket: '
                           f'no two ranks fit on one socket')

    if placement == 'all_cores' and slots < 2:
        raise Inapplicable(f'{partition} has one core: no pair of ranks '
                           f'fits')

    num_tasks, per_node = {
        'same_socket': (2, 2),
        'cross_socket': (2, 2),
        # pairs need an even count: an odd core out stays idle
        'all_cores': (slots - slots % 2, slots - slots % 2),
        'one_per_node': (2, 1),
        'all_per_node': (num_nodes * slots, slots),
    }[placement]
    distribution = DISTRIBUTION[placement]
    if every_thread and distribution in ('block', 'sockets'):
        distribution += '_threads'

    if placement in INTER_NODE:
        return RankLayout(num_tasks, per_node, distribution)

    expected = _placed(node, distribution, num_tasks)
    _check_pairs(info, placement, pairs, expected, every_thread,
                 distribution, partition)
    return RankLayout(num_tasks, per_node, distribution, tuple(expected))


def _check_pairs(info, placement, pairs, expected, every_thread,
                 distribution, partition):
    '''Judge the expected placement as the check will judge the real one.'''
    ranks = [rank_report.RankPlacement(
        rank, 'node', min(cpus), frozenset(cpus),
        partner(rank, len(expected), pairs))
        for rank, cpus in enumerate(expected)]
    problems = rank_report.layout_problems(
        ranks, layout=placement, info=info, num_tasks=len(expected),
        per_thread=every_thread)
    if problems:
        unit = 'hardware thread' if every_thread else 'core'
        raise Inapplicable(
            f'{partition}: {len(expected)} ranks placed {distribution}, one '
            f'per {unit}, and paired rank r with rank n-1-r, would not sit '
            f'where the placement needs them ({problems[0]})')
