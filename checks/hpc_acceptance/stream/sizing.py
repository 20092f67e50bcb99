'''STREAM's thread layouts and array sizes, from the processor topology.

The input is ReFrame's processor description (``partition.processor.info``)
with the ``cores``, ``sockets`` and ``caches`` CPU masks ReFrame detects
(``reframe --detect-host-topology``), read as
:mod:`hpc_acceptance.core.node_shape` counts it.

- A thread layout is the list of cores the threads run on, one thread per
  core: ``single`` is the first core (on a hybrid CPU, the first
  performance core), ``socket`` every core of the first socket,
  ``all_cores`` every core of the node, and, where a configured partition
  has a hybrid CPU, ``performance_cores`` its performance cores (a
  variant; :mod:`hpc_acceptance.core.core_kinds`). The threads are pinned with
  an explicit ``OMP_PLACES`` list of those cores (with ``smt=on``, of their
  hardware threads), so "one socket" means one socket whatever the CPU
  numbering.
- STREAM's rule: each array must be at least four times the sum of the
  last-level caches the cores used can fill, so no cache holds it. The
  caches counted are the last-level instances that share a CPU with the
  cores used (all of them when the description has no CPU sets).
- A node's peak memory bandwidth is split evenly over its sockets; a run
  whose threads (and, by first touch, their pages) sit on some sockets can
  reach the peak of those sockets only.
'''

import math
from dataclasses import dataclass
from typing import Optional

from hpc_acceptance.core import (core_kinds, node_shape, partition_limits,
                                 topology)

LAYOUTS = ('single', 'socket', 'all_cores')
PERFORMANCE_CORES = core_kinds.PERFORMANCE_CORES


def layouts(partitions=None):
    ''':data:`LAYOUTS`, and :data:`PERFORMANCE_CORES` where a partition of
    ``partitions`` (default: the configured ones) has a hybrid CPU.'''
    return partition_limits.with_performance_cores(LAYOUTS, partitions)


#: Fraction of a node's memory the three arrays may take; the rest is left
#: to the operating system (the in-tree program applies the same limit).
MEMORY_LIMIT = 0.9


@dataclass(frozen=True)
class Plan:
    '''Where a layout's threads run and what its arrays must exceed.'''
    #: the cores of the layout, each a set of CPUs, in block order
    cores: list
    #: one OpenMP place per thread (each core, or each hardware thread)
    places: list
    #: bytes of the last-level cache instances the cores reach
    llc_bytes: int
    #: the least elements per array STREAM's rule allows
    min_elements: int
    #: sockets the threads (and, by first touch, their pages) are on, and
    #: sockets of the node; ``None`` where the description has no usable
    #: sockets, and why in ``sockets_problem``
    sockets_used: Optional[int]
    sockets: Optional[int]
    sockets_problem: Optional[str] = None


def layout_cores(info, layout, kinds=None):
    '''The cores a layout runs on, each a set of CPU numbers, in order;
    ``kinds`` (:class:`~hpc_acceptance.core.core_kinds.Kinds`) for
    ``single`` and ``performance_cores`` on a hybrid CPU.

    :raises hpc_acceptance.core.node_shape.Inapplicable: for
        ``performance_cores`` on a node of one kind of core.
    '''
    if layout not in LAYOUTS + (PERFORMANCE_CORES,):
        raise ValueError(f'unknown thread layout {layout!r}; expected one of '
                         f'{", ".join(LAYOUTS + (PERFORMANCE_CORES,))}')

    node = node_shape.shape(info)
    node.require('cores')
    hybrid = kinds is not None and kinds.hybrid
    if layout == 'single':
        # a core whose every cache level the node shows, where some lack
        first = kinds.performance.cores if hybrid else node.cores
        complete = node.cores_with_every_level()
        return list(([c for c in first if c in complete] or first)[:1])

    if layout == 'socket':
        node.require('sockets')
        return [core for core in node.cores if core <= node.sockets[0]]

    if layout == PERFORMANCE_CORES:
        if not hybrid:
            raise node_shape.Inapplicable(
                f'{PERFORMANCE_CORES}: every core is of one kind (no hybrid '
                f'CPU): all_cores runs on them')
        return list(kinds.performance.cores)

    return list(node.cores)


def last_level_cache_bytes(info, cores):
    '''Bytes of the last-level cache instances the ``cores`` can fill.'''
    node = node_shape.shape(info)
    node.require('caches')
    return topology.capacity(list(node.caches.values())[-1], cores)


def plan(info, layout, every_thread, kinds=None):
    '''The :class:`Plan` of ``layout`` (one thread per core, or with
    ``every_thread`` one per hardware thread); ``kinds`` as for
    :func:`layout_cores`.

    :raises hpc_acceptance.core.topology.TopologyError: where the
        description lacks the cores, sockets or caches the layout needs.
    '''
    cores = layout_cores(info, layout, kinds)
    llc = last_level_cache_bytes(info, cores)
    used = sockets = problem = None
    try:
        used, sockets = sockets_used(info, cores)
    except topology.TopologyError as err:
        problem = str(err)  # only a peak share needs them

    return Plan(cores, node_shape.places(cores, every_thread), llc,
                min_array_elements(llc), used, sockets, problem)


def min_array_elements(llc_bytes, bytes_per_element=8):
    '''Elements of the smallest array that obeys STREAM's 4 x LLC rule.'''
    return math.ceil(4 * llc_bytes / bytes_per_element)


def memory_problem(elements, memory_bytes, bytes_per_element=8):
    '''Why three arrays of ``elements`` do not fit in a node of
    ``memory_bytes``, or ``None`` if they do.'''
    need = 3 * elements * bytes_per_element
    if need <= MEMORY_LIMIT * memory_bytes:
        return None

    return (f'the three STREAM arrays of {elements} elements need '
            f'{need / 2**30:.1f} GiB, more than {MEMORY_LIMIT:.0%} of the '
            f'node\'s {memory_bytes / 2**30:.1f} GiB (extras.memory_bytes)')


def sockets_used(info, cores):
    '''``(sockets the cores are on, sockets of the node)``.'''
    node = node_shape.shape(info)
    node.require('sockets')
    used = set().union(*cores)
    return (sum(1 for socket in node.sockets if socket & used),
            len(node.sockets))


def peak_bandwidth_mbs(layout_plan, node_peak_gbs):
    '''Peak MB/s of the sockets a layout's threads (and their pages) are
    on, from the node's peak in GB/s split evenly over its sockets.'''
    if layout_plan.sockets is None:
        raise topology.TopologyError(layout_plan.sockets_problem)

    return (node_peak_gbs * 1000 * layout_plan.sockets_used /
            layout_plan.sockets)
