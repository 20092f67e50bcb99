'''HPCC's processes on a node and the peak they are compared with, from
the processor topology (:mod:`hpc_acceptance.core.node_shape`).

- One process per core, or with ``smt=on`` per hardware thread (every CPU
  of a hybrid node, whose cores have one or two).
- The peak of a run is that of the cores its processes occupy: with
  ``smt=on`` two processes share a core (and its floating-point units), so
  a node's processes occupy their cores, not their count.
'''

import math

from hpc_acceptance.core import node_shape


def ranks_per_node(info, every_thread):
    '''Processes on one node: its cores, or with ``every_thread`` its
    hardware threads.

    :raises hpc_acceptance.core.topology.TopologyError: where the
        description does not count them (``-S num_tasks_per_node=N`` sets
        them by hand).
    '''
    return node_shape.slots(node_shape.shape(info), every_thread)


def cores_used(info, ranks, every_thread):
    '''The cores (CPU sets) that ``ranks`` processes of a node occupy, in
    block order as :func:`cores_occupied` counts them; none where the
    description has no cores.'''
    node = node_shape.shape(info)
    occupied = cores_occupied(info, ranks, every_thread)
    return list(node.cores[:occupied or 0])


def cores_occupied(info, ranks, every_thread):
    '''Cores that ``ranks`` processes of a node occupy, filling each core's
    hardware threads in turn with ``every_thread``, one per core without;
    ``None`` where the description does not count the cores.'''
    node = node_shape.shape(info)
    cores = node.core_count
    if not cores:
        return None

    if not every_thread:
        return min(cores, ranks)

    if not node.cores:
        return min(cores, math.ceil(ranks / node.threads_per_core))

    occupied, threads = 0, 0
    for core in node.cores:
        if threads >= ranks:
            break
        occupied += 1
        threads += len(core)

    return occupied


def peak_gflops(node_peak, info, nodes, ranks_per_node, every_thread):
    '''Peak Gflop/s of the cores ``nodes`` nodes of ``ranks_per_node``
    processes occupy, from a node's peak ``node_peak``; ``None`` where
    either is unknown.'''
    cores = node_shape.shape(info).core_count
    occupied = cores_occupied(info, ranks_per_node, every_thread)
    if not (node_peak and cores and occupied):
        return None

    return node_peak * nodes * occupied / cores
