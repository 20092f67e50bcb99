'''Where an NPB run's ranks go: how many per node, and the launcher's
distribution (:mod:`hpc_acceptance.core.rank_placement`).

Ranks fill one node's cores, bound one per core (with ``smt=on`` one per
hardware thread), before the next node. A partition with the local
scheduler is one node: a count above its cores is not run unless
oversubscription is asked for, because ranks sharing cores measure the
operating system's time slicing, not the machine.
'''

from dataclasses import dataclass

from hpc_acceptance.core.node_shape import Inapplicable


@dataclass(frozen=True)
class RankLayout:
    num_tasks: int
    num_tasks_per_node: int
    #: the launcher distribution (:mod:`.core.rank_placement`)
    distribution: str


def rank_layout(num_procs, slots, *, every_thread, one_node, oversubscribe):
    '''The :class:`RankLayout` of ``num_procs`` ranks on nodes of ``slots``
    cores (hardware threads with ``every_thread``); ``one_node`` for a
    partition with the local scheduler.

    :raises Inapplicable: for more ranks than a one-node partition's
        slots, unless ``oversubscribe``.
    '''
    slot = 'hardware threads' if every_thread else 'cores'
    distribution = 'block_threads' if every_thread else 'block'
    if one_node and num_procs > slots:
        if not oversubscribe:
            raise Inapplicable(
                f'{num_procs} ranks exceed the {slots} {slot} of the node: '
                f'ranks sharing them measure time slicing, not the machine '
                f'(-S oversubscribe=yes runs it anyway)')
        distribution = 'oversubscribed'

    per_node = num_procs if one_node else min(num_procs, slots)
    return RankLayout(num_procs, per_node, distribution)
