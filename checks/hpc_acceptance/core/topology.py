'''Working-set sizes derived from a partition's processor topology.

The input is ReFrame's processor description (``partition.processor.info``):
auto-detected on local partitions, written in the configuration for remote
ones, read as :mod:`hpc_acceptance.core.node_shape` counts it. Sizes
follow the topology, never a constant, so the same check is right on a
laptop and on a two-socket node with a large L3.

Rules (documented in checks/README.md, tested in
``tests/unit/core/test_topology.py`` and, on real machines, in
``tests/unit/tools/topology/test_topology_fixtures.py``):

- the threads run one per place (a core, or with ``smt=on`` a hardware
  thread); each works on an equal share of the working set, and a thread's
  share of a cache level is its instance's size divided by the threads in
  that instance (each its own L1 and L2, one L3 shared by the threads of
  its socket or CCX). On a hybrid CPU the instances differ by kind of
  core, and so do the shares;
- a level's working set lies in that level for every thread: a thread's
  part is larger than the largest share of the level below any thread has,
  and no larger than the smallest share of the level itself. It sits in
  the middle on a log scale: half of L1, and for each further level the
  geometric mean of those two bounds;
- a level whose smallest share is less than :data:`MIN_LEVEL_RATIO` times
  the largest share below it is not measured on those threads: no working
  set lies clear of the level below and well inside it (all cores of a
  Skylake-SP or Sapphire Rapids, their large L2 against their share of
  the L3; an Opteron's exclusive L3 against its L2; a hybrid CPU whose
  P-cores' L2 is near every core's share of the L3). :class:`Sizes` says
  why, instead of the level below being measured under its name;
- a level the node shows no cache of for some threads' CPUs (a kernel
  without ``cache/index*`` of that level for them) is not measured on
  those threads, and :class:`Sizes` names the CPUs;
- "memory" is four times the sum of all last-level cache instances of the
  node (STREAM's rule), so no level of cache can hold it, at least
  :data:`MIN_MEMORY_WORKING_SET`, for a virtual machine told less cache
  than its host has, and at least four times the largest share of the
  last level any thread has.

``hpc-acceptance topology`` prints the figures the checks size themselves
from (:mod:`hpc_acceptance.tools.topology.topology`).
'''

import math
from dataclasses import dataclass

from hpc_acceptance.core import node_shape

#: What the checks catch to skip a variant the description cannot size.
TopologyError = node_shape.TopologyError


@dataclass(frozen=True)
class CacheLevel:
    #: ``l1``, ``l2``, ... as used in figure and performance-variable names
    name: str
    #: bytes of one instance (the largest, where a hybrid CPU's differ)
    size: int
    #: logical CPUs sharing one instance (the most, where they differ)
    cpus_per_instance: int
    #: number of instances on the node
    instances: int
    #: bytes per line
    linesize: int


def _levels(info):
    node = node_shape.shape(info)
    node.require('caches')
    return node, node.caches


def cache_levels(info):
    '''The data cache levels of ``info``, innermost first.'''
    _, caches = _levels(info)
    levels = []
    for name, instances in caches.items():
        per_instance = [len(i.cpus) for i in instances if i.cpus]
        levels.append(CacheLevel(
            name=name,
            size=max(i.size for i in instances),
            cpus_per_instance=max(per_instance, default=1),
            instances=len(instances),
            linesize=instances[0].linesize,
        ))

    return levels


#: Bytes of the smallest "memory" working set. A virtual machine is told
#: the caches its hypervisor chooses, not the host's: a 2-core KVM guest
#: told of 32 MiB of L3 read 128 MiB (4x that) up to 34 % faster than its
#: memory delivers (ci/bench/README.md, "The memory level of a virtual
#: machine"). Four times the L3 that two cores of the largest-cache server
#: CPUs reach (2 x 96 MiB, 3D V-Cache), rounded up.
MIN_MEMORY_WORKING_SET = 1 << 30


def memory_working_set(info):
    '''Bytes no cache level can hold: 4x the sum of last-level caches,
    at least :data:`MIN_MEMORY_WORKING_SET`.'''
    _, caches = _levels(info)
    return max(4 * sum(i.size for i in list(caches.values())[-1]),
               MIN_MEMORY_WORKING_SET)


def capacity(instances, cores):
    '''Bytes of a level's ``instances`` that threads on ``cores`` (one per
    core) can fill: those instances that share a CPU with the cores; in a
    description without CPU sets, the instances the cores fill in turn.'''
    used = frozenset().union(*cores)
    if all(i.cpus is not None for i in instances):
        return sum(i.size for i in instances if i.cpus & used)

    size = max(i.size for i in instances)
    return size * min(len(instances), max(1, len(cores)))


#: A level is measured only where the smallest share of it a thread has is
#: at least this many times the largest share of the level below: the
#: working set then lies at least sqrt(2) clear of both.
MIN_LEVEL_RATIO = 2


@dataclass(frozen=True)
class Sizes:
    '''The working sets of threads on given places.'''
    #: ``{level: bytes over all threads}`` of the levels measured, and
    #: ``memory``
    sizes: dict
    #: ``{level: why}`` of the levels not measured
    skipped: dict

    def note(self):
        '''The levels not measured and why, as one sentence; ``''``.'''
        return '; '.join(f'{level} not measured: {why}'
                         for level, why in self.skipped.items())


def shares(instances, places):
    '''Each thread's bytes of a level whose ``instances`` the threads on
    ``places`` (one thread each) fill: its instance's size divided by the
    threads in that instance. A place over several instances (a core whose
    threads a virtual machine describes with an L1 each) reaches the
    smallest of their shares: its thread runs on one CPU at a time. In a
    description without CPU sets, the threads fill the instances in
    turn.'''
    if any(i.cpus is None for i in instances):
        total = max(i.size for i in instances) * min(len(instances),
                                                     max(1, len(places)))
        return [total / len(places)] * len(places)

    reached = []
    for place in places:
        touched = [i for i in instances if i.cpus & place]
        if not touched:
            raise TopologyError(
                f'CPUs {node_shape.cpu_list(place)} are in no instance of a '
                f'cache level of the processor description')
        reached.append(touched)

    threads = {}
    for touched in reached:
        for instance in touched:
            threads[id(instance)] = threads.get(id(instance), 0) + 1
    return [min(i.size / threads[id(i)] for i in touched)
            for touched in reached]


def _without_instance(instances, places):
    '''The CPUs of ``places`` in no instance of a level (a node that shows
    no cache of that level for them).'''
    if any(i.cpus is None for i in instances):
        return frozenset()

    held = frozenset().union(*(i.cpus for i in instances))
    return frozenset().union(*(place for place in places
                               if not place & held))


def _bytes(size):
    for unit, scale in (('MiB', 2**20), ('KiB', 2**10)):
        if size >= scale:
            return f'{size / scale:.3g} {unit}'
    return f'{size:.0f} B'


def sizes(info, places):
    ''':class:`Sizes` of threads on ``places`` (CPU sets, one thread
    each): every cache level in which a working set lies for every thread,
    and ``memory``.'''
    _, caches = _levels(info)
    measured, skipped = {}, {}
    names = list(caches)
    below = None
    threads = len(places)
    for index, (name, instances) in enumerate(caches.items()):
        lacking = _without_instance(instances, places)
        if lacking:
            # the node does not say which cache those threads fill
            skipped[name] = (
                f'the node shows no {name.upper()} for CPUs '
                f'{node_shape.cpu_list(lacking)} (no cpuN/cache/index* of '
                f'that level), where threads run: their share of it is '
                f'unknown')
            continue

        level = shares(instances, places)
        low, high = (max(below) if below else None), min(level)
        below = level
        if low is None:
            per_thread = high / 2
        elif high >= MIN_LEVEL_RATIO * low:
            per_thread = math.sqrt(low * high)
        else:
            inner = names[index - 1].upper()
            skipped[name] = (
                f'a thread\'s share of {name.upper()} is {_bytes(high)} '
                f'with {threads} thread{"s" if threads > 1 else ""} on '
                f'these cores, less than {MIN_LEVEL_RATIO} x the '
                f'{_bytes(low)} of {inner} a thread fills first: no working '
                f'set lies clear of {inner} and inside {name.upper()}')
            continue

        measured[name] = _round_to_pages(int(per_thread * threads))

    memory = max(memory_working_set(info),
                 4 * threads * max(below or [0]))
    measured['memory'] = _round_to_pages(int(memory))
    return Sizes(measured, skipped)


def level_working_sets(info, places):
    '''``{level: bytes}`` of every cache level measured on ``places``
    (:func:`sizes`) and ``memory``: totals over the threads, one per
    place; divide by their number for a thread's part.'''
    return sizes(info, places).sizes


def _round_to_pages(size, page=4096):
    return max(page, size // page * page)


def format_size(size):
    '''Bytes as the kernels' command-line syntax: ``48K``, ``2M``, ``123``.'''
    for suffix, scale in (('G', 1 << 30), ('M', 1 << 20), ('K', 1 << 10)):
        if size % scale == 0:
            return f'{size // scale}{suffix}'

    return str(size)


def sizes_option(sizes):
    '''``{label: bytes}`` as the kernels' ``--sizes=label:size,...``.'''
    return '--sizes=' + ','.join(f'{label}:{format_size(size)}'
                                 for label, size in sizes.items())
