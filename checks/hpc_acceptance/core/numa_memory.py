'''The memory of a node's NUMA nodes: how much each holds, which of them
hold CPUs, and what kind of memory each is.

``MemTotal`` counts memory a run's processes cannot use as they use DRAM
next to their cores: a GPU's memory that the kernel shows as a NUMA node
without CPUs (POWER9 with NVLink), HBM or CXL memory as nodes of their own,
and, in a snapshot where a node was taken offline, memory no node holds
any longer. The checks size from the memory of the NUMA nodes that hold
CPUs (hwloc's figure), and say why it differs from ``MemTotal``.

The kind of a node's memory, from what the kernel states, first found:

- its memory tier (``/sys/devices/virtual/memory_tiering/memory_tierN/
  nodelist``, Linux 6.1+): nodes in the tier of the nodes with CPUs are
  that memory; a tier of lower number is faster memory (HBM), a higher one
  slower (CXL, NVM);
- its access bandwidth from its nearest initiators
  (``nodeN/access0/initiators/read_bandwidth``, else ``access1``: the
  firmware's HMAT): at least twice that of the nodes with CPUs is HBM, at
  most half is slower memory;
- neither: a node with CPUs is the node's main memory, one without is
  memory of unknown kind (a device's, HBM or CXL).

The main memory is the kind of most nodes with CPUs; the NUMA check
compares local with remote memory of that kind only.
'''

import re
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Optional

from hpc_acceptance.core import allowed_view
from hpc_acceptance.core.node_shape import TopologyError, cpu_list, cpu_set

#: The kinds, as the plan names them.
MAIN = 'DRAM'
FASTER = 'HBM'
SLOWER = 'slower memory (CXL or NVM)'
UNKNOWN = 'memory without CPUs of unknown kind (a device\'s, HBM or CXL)'


@dataclass(frozen=True)
class NumaNode:
    node: int
    #: its online CPUs (none: memory only)
    cpus: frozenset
    #: bytes, or ``None`` where its meminfo does not say
    memory_bytes: Optional[int]
    #: :data:`MAIN`, :data:`FASTER`, :data:`SLOWER` or :data:`UNKNOWN`
    kind: str = MAIN
    #: how the kind was told
    evidence: str = ''


def _text(path):
    try:
        with open(path, errors='replace') as fp:
            return fp.read(1 << 16)
    except (OSError, ValueError):
        return None


def _number(path, pattern=r'\s*(\d+)\s*'):
    text = _text(path)
    if text is None:
        return None
    found = re.fullmatch(pattern, text, re.DOTALL)
    if found is None:
        raise allowed_view.AllowedViewError(
            f'{path}: {text.strip()[:40]!r} is not a number')
    return int(found[1])


def _memory_bytes(node_dir):
    text = _text(node_dir / 'meminfo')
    if text is None:
        return None
    found = re.search(r'MemTotal:\s+(\d+) kB', text)
    if found is None:
        raise allowed_view.AllowedViewError(
            f'{node_dir / "meminfo"}: no "MemTotal: N kB" line')
    return int(found[1]) * 1024


def online_cpus_or_none(sys_dir):
    '''The online CPUs of ``sys_dir`` (``cpu/online``); ``None`` where it
    does not say.'''
    path = Path(sys_dir) / 'devices/system/cpu/online'
    text = _text(path)
    return None if text is None else allowed_view.parse_list(text, path)


def _node_cpus(node_dir):
    '''The CPUs of a NUMA node's ``cpulist``, else of its ``cpumap`` (older
    kernels write the mask alone).'''
    path = node_dir / 'cpulist'
    text = _text(path)
    if text is not None:
        return allowed_view.parse_list(text, path)

    path = node_dir / 'cpumap'
    text = _text(path)
    if text is None:
        return frozenset()
    try:
        return cpu_set(text)
    except TopologyError:
        raise allowed_view.AllowedViewError(
            f'{path}: {text.strip()[:40]!r} is not a CPU mask') from None


def _tiers(sys_dir):
    '''``{node: tier number}`` of the kernel's memory tiers.'''
    tiers = {}
    base = Path(sys_dir) / 'devices/virtual/memory_tiering'
    for tier in sorted(base.glob('memory_tier[0-9]*')):
        path = tier / 'nodelist'
        text = _text(path)
        if text is None:
            continue
        for node in allowed_view.parse_list(text, path):
            tiers[node] = int(tier.name[len('memory_tier'):])
    return tiers


def _bandwidth(node_dir):
    for access in ('access0', 'access1'):
        found = _number(node_dir / access / 'initiators' / 'read_bandwidth')
        if found:
            return found, access
    return None, None


def read(sys_dir, online=None):
    '''The NUMA nodes of ``sys_dir`` (a ``/sys``), by number, their kinds
    told; ``()`` where it has none (a kernel without NUMA). ``online``:
    the online CPUs (default: ``cpu/online``; a node's ``cpulist`` may
    list offline ones).

    :raises allowed_view.AllowedViewError: where a file read is garbled.
    '''
    online = online if online is not None else online_cpus_or_none(sys_dir)
    base = Path(sys_dir) / 'devices/system/node'
    found = []
    for node_dir in base.glob('node[0-9]*'):
        if not node_dir.name[4:].isdigit():
            continue
        cpus = _node_cpus(node_dir)
        if online is not None:
            cpus &= online
        found.append(NumaNode(int(node_dir.name[4:]), cpus,
                              _memory_bytes(node_dir)))

    found.sort(key=lambda n: n.node)
    return tuple(_kinds(found, _tiers(sys_dir),
                        {n.node: _bandwidth(base / f'node{n.node}')
                         for n in found}))


def _kinds(nodes, tiers, bandwidths):
    with_cpus = [n for n in nodes if n.cpus]
    told = []
    main_tier = _most_common([tiers[n.node] for n in with_cpus
                              if n.node in tiers])
    main_bandwidth = median([bandwidths[n.node][0] for n in with_cpus
                             if bandwidths[n.node][0]] or [0]) or None
    for n in nodes:
        bandwidth, access = bandwidths[n.node]
        if main_tier is not None and n.node in tiers:
            tier = tiers[n.node]
            kind = (MAIN if tier == main_tier else
                    FASTER if tier < main_tier else SLOWER)
            evidence = (f'memory tier {tier} (the nodes with CPUs: tier '
                        f'{main_tier})')
        elif main_bandwidth and bandwidth:
            kind = (FASTER if bandwidth >= 2 * main_bandwidth else
                    SLOWER if 2 * bandwidth <= main_bandwidth else MAIN)
            evidence = (f'{access} read bandwidth {bandwidth} MB/s (the '
                        f'nodes with CPUs: {main_bandwidth:g})')
        else:
            kind = MAIN if n.cpus else UNKNOWN
            evidence = ('holds CPUs' if n.cpus else
                        'no CPUs, no memory tier or access bandwidth stated')
        told.append(NumaNode(n.node, n.cpus, n.memory_bytes, kind, evidence))
    return told


def _most_common(values):
    return max(sorted(set(values)), key=values.count) if values else None


@dataclass(frozen=True)
class Usable:
    '''The memory a run may size itself by.'''
    #: bytes, or ``None`` where unknown
    memory_bytes: Optional[int]
    #: ``MemTotal`` in bytes, or ``None``
    memtotal_bytes: Optional[int]
    #: why they differ, one phrase each
    why: tuple = ()


def _gib(size):
    gib = size / 2**30
    return (f'{gib:.0f} GiB' if abs(gib - round(gib)) < 0.05 else
            f'{gib:.1f} GiB')


def _nodes(numbers):
    numbers = sorted(numbers)
    return (f'NUMA node{"s" if len(numbers) > 1 else ""} '
            f'{", ".join(map(str, numbers))}')


def _contradicted(nodes, memfree_bytes, offline_nodes):
    '''Whether the NUMA nodes' figures cannot be right: they hold less
    memory than ``/proc/meminfo`` says is free, and no node is offline to
    explain it (a virtual machine whose nodes' figures lag behind memory
    its hypervisor added: seen on a Firecracker guest, 12 GiB in its one
    node, 20 GiB free).'''
    every = sum(n.memory_bytes for n in nodes)
    return (not offline_nodes and memfree_bytes is not None and
            memfree_bytes > 1.02 * every)


def usable(nodes, allowed, memtotal_bytes, offline_nodes=(),
           memfree_bytes=None):
    ''':class:`Usable` memory: that of the NUMA ``nodes`` holding CPUs
    (online ones, of the machine) that ``allowed``
    (:class:`~.allowed_view.Allowed`) lets the run allocate on, no more
    than ``MemTotal`` nor its cgroup's limit; ``MemTotal`` where the node
    has no NUMA nodes, or where their figures contradict ``memfree_bytes``
    (``MemFree``, :func:`_contradicted`). ``offline_nodes``: nodes the
    kernel lists as possible but not online.'''
    why = []
    if nodes and all(n.memory_bytes is not None for n in nodes) and \
            _contradicted(nodes, memfree_bytes, offline_nodes):
        why.append(f'the NUMA nodes\' meminfo holds '
                   f'{_gib(sum(n.memory_bytes for n in nodes))}, less than '
                   f'the {_gib(memfree_bytes)} /proc/meminfo says are free: '
                   f'their figures are wrong here, MemTotal is sized by')
        nodes = ()
    if nodes and all(n.memory_bytes is not None for n in nodes):
        mems = allowed.mems
        held = [n for n in nodes if n.cpus and (mems is None or
                                                n.node in mems)]
        size = sum(n.memory_bytes for n in held)
        without = [n for n in nodes if not n.cpus]
        if without:
            kinds = sorted({n.kind for n in without})
            why.append(f'{_nodes(n.node for n in without)} without CPUs '
                       f'hold {_gib(sum(n.memory_bytes for n in without))} '
                       f'({"; ".join(kinds)}): not sized into')
        if mems is not None:
            left = [n for n in nodes if n.cpus and n.node not in mems]
            if left:
                where = allowed.read_from('mems',
                                          frozenset(n.node for n in nodes))
                why.append(f'the run may allocate on NUMA nodes '
                           f'{cpu_list(mems)} only ({where}): '
                           f'{_gib(sum(n.memory_bytes for n in left))} of '
                           f'{_nodes(n.node for n in left)} left out')
        # the nodes' own figures count pages the kernel keeps for itself
        # (their sum is a little above MemTotal): no more than MemTotal
        if memtotal_bytes:
            size = min(size, memtotal_bytes)
        every = sum(n.memory_bytes for n in nodes)
        if memtotal_bytes and memtotal_bytes - every > 0.02 * memtotal_bytes:
            offline = (f' ({_nodes(offline_nodes)} offline)'
                       if offline_nodes else '')
            why.append(f'MemTotal counts {_gib(memtotal_bytes - every)} '
                       f'that no online NUMA node holds{offline}')
    else:
        size = memtotal_bytes

    if allowed.memory_limit is not None and (size is None or
                                             allowed.memory_limit < size):
        why.append(f'the cgroup limits the run to '
                   f'{_gib(allowed.memory_limit)} '
                   f'({allowed.read_from("memory")})')
        size = allowed.memory_limit

    if size == memtotal_bytes:
        why = []
    return Usable(size or None, memtotal_bytes, tuple(why))


def offline_nodes(sys_dir):
    '''NUMA nodes the kernel lists as possible but not online.'''
    base = Path(sys_dir) / 'devices/system/node'
    possible, online = (_text(base / name) for name in ('possible',
                                                         'online'))
    if possible is None or online is None:
        return ()
    return tuple(sorted(
        allowed_view.parse_list(possible, base / 'possible') -
        allowed_view.parse_list(online, base / 'online')))


def meminfo(proc_dir, field='MemTotal'):
    '''``field`` of ``proc_dir``'s ``meminfo`` in bytes, or ``None``.'''
    text = _text(Path(proc_dir) / 'meminfo')
    found = re.search(rf'^{field}:\s+(\d+) kB', text or '', re.MULTILINE)
    return int(found[1]) * 1024 if found else None
