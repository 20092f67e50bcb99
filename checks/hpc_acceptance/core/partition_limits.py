'''How large a run the configured partitions can hold, read when the checks
are loaded.

ReFrame fixes a check's parameters when its class is defined, before any
partition is chosen; the checks would otherwise list every size up to a
fixed maximum and skip most of them on a small machine. When the checks are
loaded by ReFrame its runtime is configured, so the current system's
partitions (``--system`` or the one matching this host) are known:

- a partition with the local scheduler is one node;
- a scheduler partition holds ``extras.max_nodes`` nodes (a site sets how
  many nodes its acceptance runs may take); without it, it is not bounded;
- a node holds as many ranks as it has online hardware threads (as
  :mod:`hpc_acceptance.core.node_shape` counts them, else
  ``processor.num_cpus``); a partition without processor information is
  not bounded;
- a node whose cores are of several kinds by its description's caches (a
  hybrid CPU, :mod:`hpc_acceptance.core.core_kinds`) adds the layouts that
  run on its performance cores only.

Outside ReFrame (no runtime, e.g. a unit test importing a check) nothing is
bounded.
'''

from dataclasses import dataclass
from typing import Optional

import reframe.core.runtime as runtime
from reframe.core.exceptions import ReframeFatalError

from hpc_acceptance.core import core_kinds, node_shape


@dataclass(frozen=True)
class PartitionSize:
    name: str
    #: hardware threads of one node, ``None`` if unknown
    node_cpus: Optional[int]
    #: nodes a run may use, ``None`` if not bounded
    nodes: Optional[int]
    #: processor sockets of one node, ``None`` if unknown
    sockets: Optional[int]
    local: bool
    #: cores of one node, ``None`` if unknown
    node_cores: Optional[int] = None
    #: kinds of core of one node by its caches (2 or more: a hybrid CPU)
    core_kinds: int = 1

    @property
    def max_ranks(self):
        if self.node_cpus is None or self.nodes is None:
            return None

        return self.node_cpus * self.nodes


def size_of(partition):
    '''The :class:`PartitionSize` of a ReFrame partition, its node counted
    as the checks count it (:mod:`hpc_acceptance.core.node_shape`).'''
    node = node_shape.shape(partition.processor.info)
    local = partition.scheduler.registered_name == 'local'
    nodes = 1 if local else partition.extras.get('max_nodes')
    sockets = (None if 'sockets' in node.unusable else node.socket_count)
    kinds = (len(core_kinds.kinds(node).kinds)
             if node.cores and 'cores' not in node.unusable else 1)
    return PartitionSize(partition.fullname, node.cpu_count or None, nodes,
                         sockets, local, node.core_count or None, kinds)


def configured(feature='compute'):
    '''The sizes of the current system's partitions with ``feature``;
    ``None`` outside a ReFrame run.'''
    try:
        system = runtime.runtime().system
    except ReframeFatalError:
        return None

    return [size_of(p) for p in system.partitions
            if feature in p.features]


def max_ranks(partitions):
    '''The most ranks any of ``partitions`` holds; ``None`` if unbounded
    (not run by ReFrame, or a partition of unknown size).'''
    if not partitions:
        return None

    sizes = [p.max_ranks for p in partitions]
    return None if None in sizes else max(sizes)


def spans_nodes(partitions, ranks):
    '''Whether ``ranks``, one per core, fill more than one node of some
    scheduler partition of ``partitions`` (a local partition is one node
    and never spans); ``False`` outside a ReFrame run.'''
    return any(not p.local and p.node_cores and ranks > p.node_cores
               for p in partitions or [])


def any_hybrid(partitions):
    '''Whether a node of ``partitions`` has cores of several kinds;
    ``False`` outside a ReFrame run.'''
    return any(p.core_kinds > 1 for p in partitions or [])


def with_performance_cores(layouts, partitions=None):
    '''``layouts``, and :data:`.core_kinds.PERFORMANCE_CORES` where a
    partition of ``partitions`` (default: the configured ones) has a
    hybrid CPU.'''
    partitions = configured() if partitions is None else partitions
    hybrid = any_hybrid(partitions)
    return layouts + ((core_kinds.PERFORMANCE_CORES,) if hybrid else ())


def describe(partitions):
    '''``local:default (2 hardware threads x 1 node)`` for the notes.'''
    return ', '.join(f'{p.name} ({p.node_cpus} hardware threads x '
                     f'{p.nodes} node{"s" if p.nodes != 1 else ""})'
                     for p in partitions)
