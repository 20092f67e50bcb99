'''Working-set sizes derived from a partition's processor topology.

The input is ReFrame's processor description (``partition.processor.info``):
auto-detected on local partitions, written in the configuration for remote
ones, read as :mod:`hpc_acceptance.core.node_shape` counts it. Sizes
follow the topology, never a constant, so the same check is right on a
laptop and on a two-socket node with a large L3.

Rules (documented in checks/README.md, tested in
``tests/unit/core/test_topology.py``):

- a cache level's working set sits in the middle of that level on a log
  scale: half of L1, and for each further level the geometric mean of the
  previous level's capacity and its own;
- "memory" is four times the sum of all last-level cache instances of the
  node (STREAM's rule), so no level of cache can hold it, and at least
  :data:`MIN_MEMORY_WORKING_SET`, for a virtual machine told less cache
  than its host has;
- the threads run one per core on the cores given: a level's capacity is
  the sum of its instances those cores reach (each its own L1 and L2, one
  L3 per socket they occupy). On a hybrid CPU that is the instances of the
  kind of core each thread runs on.

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


def level_working_sets(info, cores):
    '''``{level: bytes}`` for every cache level plus ``memory``, for
    threads on ``cores`` (a list of CPU sets, one thread per core).

    The sizes are totals over the threads; divide by their number for a
    per-thread share.
    '''
    _, caches = _levels(info)
    sizes = {}
    previous = None
    for name, instances in caches.items():
        level_capacity = capacity(instances, cores)
        if previous is None:
            size = level_capacity // 2
        else:
            size = int(math.sqrt(previous * level_capacity))

        sizes[name] = _round_to_pages(size)
        previous = level_capacity

    sizes['memory'] = memory_working_set(info)
    return sizes


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
