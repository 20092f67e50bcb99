'''STREAM's thread layouts and array sizes, from the processor topology.

The input is ReFrame's processor description (``partition.processor.info``)
with the ``cores``, ``sockets`` and ``caches`` CPU masks ReFrame detects
(``reframe --detect-host-topology``).

- A thread layout is the list of cores the threads run on, one thread per
  core: ``single`` is the first core, ``socket`` every core of the first
  socket, ``all_cores`` every core of the node. The threads are pinned with
  an explicit ``OMP_PLACES`` list of those cores, so "one socket" means one
  socket whatever the CPU numbering.
- STREAM's rule: each array must be at least four times the sum of the
  last-level caches the cores used can fill, so no cache holds it. The
  caches counted are the last-level instances that share a CPU with the
  cores used (all of them when the description has no CPU sets).
- A node's peak memory bandwidth is split evenly over its sockets; a run
  whose threads (and, by first touch, their pages) sit on some sockets can
  reach the peak of those sockets only.
'''

import math

from hpc_acceptance.core import topology

LAYOUTS = ('single', 'socket', 'all_cores')

#: Fraction of a node's memory the three arrays may take; the rest is left
#: to the operating system (the in-tree program applies the same limit).
MEMORY_LIMIT = 0.9


def _cpus(mask):
    '''The CPU numbers of a hexadecimal CPU mask such as ``0x3``.'''
    bits = int(mask, 16)
    return {cpu for cpu in range(bits.bit_length()) if bits >> cpu & 1}


def _masks(info, name):
    masks = (info or {}).get('topology', {}).get(name)
    if not masks:
        raise topology.TopologyError(
            f'the processor description has no topology.{name} CPU masks: '
            f'regenerate it with "reframe --detect-host-topology=FILE" on a '
            f'compute node'
        )

    return [_cpus(mask) for mask in masks]


def layout_cores(info, layout):
    '''The cores a layout runs on, each a set of CPU numbers, in order.'''
    if layout not in LAYOUTS:
        raise ValueError(f'unknown thread layout {layout!r}; expected one of '
                         f'{", ".join(LAYOUTS)}')

    cores = sorted(_masks(info, 'cores'), key=min)
    if layout == 'single':
        return cores[:1]

    if layout == 'socket':
        first_socket = min(_masks(info, 'sockets'), key=min)
        return [core for core in cores if core <= first_socket]

    return cores


def omp_places(cores):
    '''``OMP_PLACES`` with one place per core: ``{0,72},{1,73},...``.'''
    return ','.join('{' + ','.join(str(cpu) for cpu in sorted(core)) + '}'
                    for core in cores)


def last_level_cache_bytes(info, cores):
    '''Bytes of the last-level cache instances the ``cores`` can fill.'''
    llc = topology.cache_levels(info)[-1]
    caches = (info or {}).get('topology', {}).get('caches', [])
    llc_sets = [_cpus(mask) for cache in caches
                if cache['type'].lower() == llc.name
                for mask in cache.get('cpusets', [])]
    if not llc_sets:
        return llc.size * llc.instances

    used = set().union(*cores)
    return llc.size * sum(1 for cpus in llc_sets if cpus & used)


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
    used = set().union(*cores)
    sockets = _masks(info, 'sockets')
    return sum(1 for socket in sockets if socket & used), len(sockets)


def peak_bandwidth_mbs(info, cores, node_peak_gbs):
    '''Peak MB/s of the sockets the ``cores`` are on, from the node's peak
    in GB/s split evenly over its sockets.'''
    used, sockets = sockets_used(info, cores)
    return node_peak_gbs * 1000 * used / sockets
