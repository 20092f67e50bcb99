'''Working-set sizes derived from a partition's processor topology.

The input is ReFrame's processor description (``partition.processor.info``):
auto-detected on local partitions, written in the configuration for remote
ones. Sizes follow the topology, never a constant, so the same check is
right on a laptop and on a two-socket node with a large L3.

Rules (documented in checks/README.md, tested in
``tests/unit/core/test_topology.py``):

- a cache level's working set sits in the middle of that level on a log
  scale: half of L1, and for each further level the geometric mean of the
  previous level's capacity and its own;
- "memory" is four times the sum of all last-level cache instances of the
  node (STREAM's rule), so no level of cache can hold it;
- with ``threads`` threads placed one per core, a private level's capacity
  grows with the threads and a shared level's with the instances they
  occupy.

``hpc-acceptance topology`` prints this node's figures the checks size
themselves from (:mod:`hpc_acceptance.tools.node_topology`).
'''

import math
from dataclasses import dataclass


class TopologyError(ValueError):
    '''The processor description lacks what a check needs to size itself.'''


@dataclass(frozen=True)
class CacheLevel:
    #: ``l1``, ``l2``, ... as used in figure and performance-variable names
    name: str
    #: bytes of one instance
    size: int
    #: logical CPUs sharing one instance
    cpus_per_instance: int
    #: number of instances on the node
    instances: int
    #: bytes per line
    linesize: int


def cache_levels(info):
    '''The data cache levels of ``info``, innermost first.'''
    caches = (info or {}).get('topology', {}).get('caches')
    if not caches:
        raise TopologyError(
            'the partition has no processor topology with caches: '
            '"hpc-acceptance new-system" writes one where ReFrame reads it '
            '(topology_prefix), or set "processor" in its configuration '
            '(see config/systems/example_cluster.py)'
        )

    levels = []
    for cache in sorted(caches, key=lambda c: c['type']):
        levels.append(CacheLevel(
            name=cache['type'].lower(),
            size=int(cache['size']),
            cpus_per_instance=int(cache['num_cpus']),
            instances=len(cache.get('cpusets', [])) or 1,
            linesize=int(cache.get('linesize', 64)),
        ))

    return levels


def memory_working_set(info):
    '''Bytes no cache level can hold: 4x the sum of last-level caches.'''
    llc = cache_levels(info)[-1]
    return 4 * llc.size * llc.instances


def _capacity(level, threads, cpus_per_core):
    '''Bytes of ``level`` that ``threads`` threads, one per core, can use.'''
    cores_per_instance = max(1, level.cpus_per_instance // cpus_per_core)
    used = min(level.instances, math.ceil(threads / cores_per_instance))
    return level.size * used


def level_working_sets(info, threads=1):
    '''``{level: bytes}`` for every cache level plus ``memory``.

    The sizes are totals over ``threads`` threads; divide by ``threads`` for
    a per-thread share.
    '''
    cpus_per_core = int(info.get('num_cpus_per_core') or 1)
    sizes = {}
    previous = None
    for level in cache_levels(info):
        capacity = _capacity(level, threads, cpus_per_core)
        if previous is None:
            size = capacity // 2
        else:
            size = int(math.sqrt(previous * capacity))

        sizes[level.name] = _round_to_pages(size)
        previous = capacity

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
