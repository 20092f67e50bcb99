'''Where the memory kernels' threads run, how large their working sets are,
and which thread the NUMA check pairs with which, from the processor
topology (:mod:`hpc_acceptance.core.node_shape`).

- ``single``: one thread on the first core (on a hybrid CPU, the first
  performance core; with ``smt=on``, on its first hardware thread);
  ``all_cores``: one thread on every core, in block order (socket by
  socket); with ``smt=on`` one on every hardware thread of them;
  ``performance_cores`` (generated where a partition has a hybrid CPU,
  :mod:`hpc_acceptance.core.core_kinds`): as ``all_cores`` on the cores
  of the performance kind only.
- The working sets are those of :mod:`hpc_acceptance.core.topology` for the
  threads' places: each level measured lies in that level for every
  thread; a level that cannot be told from the one below on those threads
  is not measured, and the plan says why.
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
- Memory kinds: where the description tells each NUMA node's kind of
  memory (:mod:`hpc_acceptance.core.numa_memory`: the kernel's memory
  tiers, the firmware's access bandwidths), the NUMA check runs its threads
  on the cores of the nodes of main memory (DRAM) only, so that local and
  remote are one kind of memory and a difference is a link's, not a
  kind's (HBM beside DRAM is faster, not "local"); the nodes of other
  kinds are named as not measured (:func:`other_kinds`). Its threads are
  as many on each NUMA node (:func:`balanced`): a run given 4 CPUs of one
  node and 2 of another pairs 2 and 2.
- Distance classes: where the node's NUMA distances (the SLIT) are known
  (:mod:`hpc_acceptance.core.node_facts`) and its nodes are more than one
  distance apart, one more remote pass per distance: every thread takes
  the block of a thread whose node is at that distance from its own
  (:func:`distance_classes`), so a 4-socket machine's two-hop links and a
  sub-NUMA cluster's neighbour are measured, not only the pass above.
'''

from dataclasses import dataclass, field

from hpc_acceptance.core import (core_kinds, node_shape, numa_memory,
                                 partition_limits, topology)
from hpc_acceptance.core.node_shape import Inapplicable

LAYOUTS = ('single', 'all_cores')

PERFORMANCE_CORES = core_kinds.PERFORMANCE_CORES


def layouts(partitions=None):
    ''':data:`LAYOUTS`, and :data:`PERFORMANCE_CORES` where a partition of
    ``partitions`` (default: the configured ones) has a hybrid CPU.'''
    return partition_limits.with_performance_cores(LAYOUTS, partitions)


@dataclass(frozen=True)
class Plan:
    #: the cores used, each a set of CPUs, in block order
    cores: list
    #: one OpenMP place per thread
    places: list
    #: ``{level: bytes}`` over all threads (:mod:`.core.topology`)
    working_sets: dict
    #: ``{level: why}`` of the cache levels not measured on these threads
    levels_skipped: dict = field(default_factory=dict)

    @property
    def threads(self):
        return len(self.places)

    def per_thread_working_sets(self):
        '''``{level: bytes}`` of each thread, for programs in which every
        thread works on its own data.'''
        return {level: size // self.threads
                for level, size in self.working_sets.items()}


def layout_cores(node, layout, kinds=None):
    '''The cores of ``layout`` on ``node`` (a :class:`~.core.node_shape.Shape`
    with cores); ``kinds`` (:class:`~.core.core_kinds.Kinds`) for
    ``performance_cores``.

    :raises Inapplicable: for ``performance_cores`` on a node of one kind
        of core.
    '''
    if layout == 'single':
        # on a hybrid CPU, a performance core: one thread's figures are
        # the fastest core's; and one whose every cache level the node
        # shows, where some lack one
        first = kinds.performance.cores if kinds and kinds.hybrid else \
            node.cores
        complete = node.cores_with_every_level()
        return list(([c for c in first if c in complete] or first)[:1])

    if layout == PERFORMANCE_CORES:
        if kinds is None or not kinds.hybrid:
            raise Inapplicable(
                f'{PERFORMANCE_CORES}: every core is of one kind (no hybrid '
                f'CPU): all_cores runs on them')
        return list(kinds.performance.cores)

    return list(node.cores)


def main_memory_cores(node, cores):
    '''Those of ``cores`` on NUMA nodes of the node's main memory (all of
    them where the description tells no kinds).'''
    if not node.numa_kinds:
        return list(cores)

    main = [cpus for cpus, kind in zip(node.numa_nodes, node.numa_kinds)
            if kind == numa_memory.MAIN]
    return [core for core in cores if any(core <= cpus for cpus in main)]


def balanced(node, cores):
    '''``cores`` with as many on each NUMA node as the node with fewest
    has (the first of each, in order), where they differ: a run given part
    of a node (6 CPUs, 4 on one NUMA node and 2 on another) pairs 2 threads
    of each node with 2 of the other rather than measuring nothing.'''
    groups = {}
    for core in cores:
        groups.setdefault(node.numa_node_of(core), []).append(core)
    counts = {len(group) for group in groups.values()}
    if None in groups or len(groups) < 2 or len(counts) == 1:
        return list(cores)

    least = min(counts)
    kept = {id(core) for group in groups.values() for core in group[:least]}
    return [core for core in cores if id(core) in kept]


def other_kinds(info):
    '''The NUMA nodes the run may use that hold another kind of memory
    than the node's main memory, as one sentence; ``''`` where there are
    none (or the description tells no kinds).'''
    node = node_shape.shape(info)
    evidence = {entry['node']: entry.get('evidence')
                for entry in node.view.get('numa_nodes') or []}
    by_kind = {}
    for number, kind in zip(node.numa_ids, node.numa_kinds):
        if kind != numa_memory.MAIN:
            by_kind.setdefault(kind, []).append(number)
    if not by_kind:
        return ''

    return ('; '.join(
        f'NUMA node{"s" if len(numbers) > 1 else ""} '
        f'{", ".join(map(str, numbers))}: {kind} ('
        + ', '.join(sorted({evidence.get(n) or '' for n in numbers}))
        + ')' for kind, numbers in by_kind.items())
        + f': another kind of memory than {numa_memory.MAIN}, not measured '
          f'(local and remote are compared within {numa_memory.MAIN})')


def plan(info, layout, every_thread, kinds=None, main_memory=False):
    '''The :class:`Plan` of ``layout``, one thread per core or with
    ``every_thread`` per hardware thread; ``kinds`` for
    ``performance_cores``; with ``main_memory``, on the cores of the NUMA
    nodes of main memory only (:func:`main_memory_cores`), as many on each
    of them (:func:`balanced`).

    :raises hpc_acceptance.core.topology.TopologyError: where the
        description lacks the cores or caches the sizes come from.
    :raises Inapplicable: for ``performance_cores`` where the cores are of
        one kind.
    '''
    if layout not in LAYOUTS + (PERFORMANCE_CORES,):
        raise ValueError(f'unknown thread layout {layout!r}; expected one of '
                         f'{", ".join(LAYOUTS + (PERFORMANCE_CORES,))}')

    node = node_shape.shape(info)
    node.require('cores')
    cores = layout_cores(node, layout, kinds)
    if main_memory:
        cores = main_memory_cores(node, cores)
        if not cores:
            raise Inapplicable(
                f'no core is on a NUMA node of {numa_memory.MAIN}: '
                f'{other_kinds(info)}')
        cores = balanced(node, cores)
    places = node_shape.places(cores, every_thread)
    # one thread measures one core's figures, whatever the SMT variant
    places = places[:1] if layout == 'single' else places
    found = topology.sizes(info, places)
    return Plan(cores, places, found.sizes, found.skipped)


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


def distance_classes(places, numa):
    '''Partners per NUMA distance of the threads on ``places``:
    ``({distance: partners}, {distance: why not, or which nodes})``, where
    ``numa`` is the node's ``{node: NumaNode}``
    (:func:`~.core.node_state.numa_distances`) and its nodes with threads
    are more than one distance apart; empty where they are one distance
    apart (the remote pass measures it) or the distances are unknown.

    For each distance the nodes are matched, one to one, with a node at
    that distance holding as many threads (as many nodes as can be: a
    maximum matching), and thread *i* of a node takes the block of thread
    *i* of its match. A node left without a match at that distance (on a
    4-socket ARM only one pair of nodes is 25 apart) rests in that pass:
    its threads' partners are ``None``; every distance is measured on one
    pair of nodes at least.
    '''
    if not numa:
        return {}, {}

    node_of = [next((n for n, found in numa.items() if place <= found.cpus),
                    None) for place in places]
    if None in node_of:
        return {}, {}

    threads = {}
    for thread, node in enumerate(node_of):
        threads.setdefault(node, []).append(thread)
    nodes = sorted(threads)
    remote = sorted({numa[a].distances[b] for a in nodes for b in nodes
                     if a != b})
    if len(remote) < 2:
        return {}, {}

    found, said = {}, {}
    for distance in remote:
        match = _match(nodes, lambda a, b: (
            a != b and numa[a].distances[b] == distance and
            len(threads[a]) == len(threads[b])))
        if not match:
            said[distance] = (
                f'distance {distance}: no two NUMA nodes that far apart hold '
                f'as many threads')
            continue
        if len(match) < len(nodes):
            said[distance] = (
                f'distance {distance}: NUMA nodes '
                f'{", ".join(map(str, sorted(match)))} of {len(nodes)} (the '
                f'others have no node at that distance to pair with: their '
                f'threads rest)')
        partners = [None] * len(places)
        for node, other in match.items():
            for mine, theirs in zip(threads[node], threads[other]):
                partners[mine] = theirs
        found[distance] = partners

    return found, said


def _match(nodes, allowed):
    '''A one-to-one ``{node: node}`` of as many of ``nodes`` as can be,
    every pair ``allowed`` (a maximum bipartite matching: Kuhn's augmenting
    paths, trying pairs that match each other first).'''
    owner = {}

    def augment(node, seen):
        candidates = sorted((b for b in nodes if allowed(node, b)),
                            key=lambda b: (owner.get(node) != b, b))
        for other in candidates:
            if other in seen:
                continue
            seen.add(other)
            if other not in owner or augment(owner[other], seen):
                owner[other] = node
                return True
        return False

    for node in nodes:
        augment(node, set())

    return {node: other for other, node in owner.items()}
