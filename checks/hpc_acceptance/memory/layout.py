'''Where the memory kernels' threads run, how large their working sets are,
and which thread the NUMA check pairs with which, from the processor
topology (:mod:`hpc_acceptance.core.node_shape`).

- ``single``: one thread on the first core (with ``smt=on``, on its first
  hardware thread); ``all_cores``: one thread on every core, in block order
  (socket by socket); with ``smt=on`` one on every hardware thread of
  them.
- The working sets are those of :mod:`hpc_acceptance.core.topology` for the
  cores used.
- NUMA pairs: every thread first touches its own block; in the remote pass
  it rescales the block of a partner on another socket, where the threads
  span several sockets that each hold whole NUMA nodes (the link between
  the sockets, as TACC's study measured it), else on another NUMA node
  (of the one socket: sub-NUMA clusters, NPS; or of a machine whose NUMA
  nodes span several sockets). Threads are grouped by socket (or node)
  and every thread takes the block of the thread as many places ahead as
  the largest group has threads, so each block is rescaled by exactly one
  thread and every partner is remote while no group holds more than half
  of the threads.
  A NUMA node without CPUs (memory only) holds no thread's block: the
  check measures the nodes its threads own.
'''

from dataclasses import dataclass

from hpc_acceptance.core import node_shape, topology
from hpc_acceptance.core.node_shape import Inapplicable

LAYOUTS = ('single', 'all_cores')


@dataclass(frozen=True)
class Plan:
    #: the cores used, each a set of CPUs, in block order
    cores: list
    #: one OpenMP place per thread
    places: list
    #: ``{level: bytes}`` over all threads (:mod:`.core.topology`)
    working_sets: dict

    @property
    def threads(self):
        return len(self.places)

    def per_thread_working_sets(self):
        '''``{level: bytes}`` of each thread, for programs in which every
        thread works on its own data.'''
        return {level: size // self.threads
                for level, size in self.working_sets.items()}


def plan(info, layout, every_thread):
    '''The :class:`Plan` of ``layout``, one thread per core or with
    ``every_thread`` per hardware thread.

    :raises hpc_acceptance.core.topology.TopologyError: where the
        description lacks the cores or caches the sizes come from.
    '''
    if layout not in LAYOUTS:
        raise ValueError(f'unknown thread layout {layout!r}; expected one of '
                         f'{", ".join(LAYOUTS)}')

    node = node_shape.shape(info)
    node.require('cores')
    cores = list(node.cores[:1] if layout == 'single' else node.cores)
    places = node_shape.places(cores, every_thread)
    # one thread measures one core's figures, whatever the SMT variant
    places = places[:1] if layout == 'single' else places
    return Plan(cores, places, topology.level_working_sets(info, cores))


def numa_partners(info, places):
    '''The partner of each thread on ``places``: ``partners[t]`` is the
    thread whose block thread ``t`` rescales in the remote pass.

    :raises Inapplicable: where the threads are not on two NUMA nodes, or
        cannot each get a partner on another one.
    :raises hpc_acceptance.core.topology.TopologyError: where the
        description has no usable NUMA nodes.
    '''
    node = node_shape.shape(info)
    if not node.numa_nodes and 'numa_nodes' not in node.unusable:
        raise Inapplicable(
            'the processor description lists no NUMA nodes (as ReFrame '
            'detects a node without /sys/devices/system/node: a kernel '
            'without NUMA support, one memory domain): local and remote '
            'memory are the same, there is nothing to compare')
    node.require('numa_nodes')
    memory_only = len(node.numa_nodes) - len(node.numa_nodes_with_cpus)
    if len(node.numa_nodes_with_cpus) < 2:
        without = (f' with CPUs ({memory_only} more without, memory only: '
                   f'no thread first-touches its memory)' if memory_only
                   else '')
        raise Inapplicable(
            f'{len(node.numa_nodes_with_cpus)} NUMA node{without}: local and '
            f'remote memory are the same, there is nothing to compare')

    nodes = [node.numa_node_of(place) for place in places]
    if None in nodes:
        place = places[nodes.index(None)]
        raise topology.TopologyError(
            f'CPUs {node_shape.cpu_list(place)} are in no NUMA node of the '
            f'processor description (or in several)')

    # remote is another socket where each socket holds whole NUMA nodes
    # (and the threads span several), else another NUMA node
    nested = ('sockets' not in node.unusable and node.sockets and all(
        node.socket_of(numa) is not None
        for numa in node.numa_nodes_with_cpus))
    sockets = [node.socket_of(place) for place in places] if nested else []
    across_sockets = len(set(sockets)) > 1
    groups = sockets if across_sockets else nodes
    kind = 'socket' if across_sockets else 'NUMA node'

    order = sorted(range(len(places)), key=lambda t: (groups[t], t))
    largest = max(groups.count(g) for g in set(groups))
    if 2 * largest > len(places):
        raise Inapplicable(
            f'{largest} of the {len(places)} threads are on one {kind}: '
            f'more than half, so not every thread can take the block of a '
            f'thread on another {kind}')

    partners = [0] * len(places)
    for i, thread in enumerate(order):
        partners[thread] = order[(i + largest) % len(places)]

    return partners
