'''The node as this run may use it, carried in ReFrame's processor
description.

ReFrame's detection describes the whole machine, whatever share of it the
process that detects it has. Where the suite plans on the node it runs on
(the embedded default, and ``hpc-acceptance topology``'s replay of a
snapshot) it adds to the description what the run may use
(:mod:`.allowed_view`) and the memory of each NUMA node with its kind
(:mod:`.numa_memory`), as ``topology.allowed``:

.. code-block:: python

    {'online': None,       # the online CPUs, where ReFrame lists more
     'cpus': '0-5',        # CPUs the run may use (None: all online ones)
     'mems': '0-5',        # NUMA nodes it may allocate on (None: all)
     'numa_nodes': [{'node': 0, 'cpus': '0-3', 'memory_bytes': ...,
                     'kind': 'DRAM', 'evidence': 'holds CPUs'}, ...],
     'memory_bytes': ...,  # what the run sizes by (numa_memory.usable)
     'memtotal_bytes': ...,
     'memory_why': [...],  # why the two differ
     'read_from': ['CPUs: cgroup v2 cpuset.cpus.effective of /job']}

:mod:`.node_shape` reads it: the shape every check sizes from is the
intersection of the machine with it. ReFrame's schema lets a topology hold
more keys than its own; its own keys are left as detected, so that a job's
probe, which counts the machine's CPUs as ReFrame does, still tells a
stale description (:mod:`.topology_change`).
'''

import copy

from hpc_acceptance.core import allowed_view, node_shape, numa_memory

KEY = 'allowed'


class ViewError(ValueError):
    '''What the run may use contradicts the machine (no online CPU or
    NUMA node of it allowed), or a file it is read from is garbled; the
    message names it.'''


def with_view(info, sys_dir, proc_dir, allowed):
    '''A copy of the description ``info`` with ``topology.allowed`` read
    from ``sys_dir`` (a ``/sys``) and ``proc_dir`` (a ``/proc``) and the
    :class:`~.allowed_view.Allowed` view ``allowed``.

    :raises ViewError: where the view allows nothing of the machine, or a
        file read is garbled.
    '''
    # the machine as ReFrame describes it, read before the copy is given
    # the view (shapes are cached by description); a CPU the kernel lists
    # as offline is none of it, whatever topology sysfs still shows of it
    described = node_shape.shape(copy.deepcopy(info or {})).cpus
    listed = numa_memory.online_cpus_or_none(sys_dir)
    online = ((described & listed) if described and listed and
              described & listed else described or listed)
    info = copy.deepcopy(info or {})
    topology = info.setdefault('topology', {})
    try:
        nodes = numa_memory.read(sys_dir, online)
        offline = numa_memory.offline_nodes(sys_dir)
    except allowed_view.AllowedViewError as err:
        raise ViewError(str(err)) from None

    cpus = None
    if allowed.cpus is not None and online:
        cpus = allowed.cpus & online
        if not cpus:
            raise ViewError(
                f'the run may use CPUs {node_shape.cpu_list(allowed.cpus)} '
                f'({allowed.read_from("cpus")}), none of which is online '
                f'(online: {node_shape.cpu_list(online)})')
    mems = None
    if allowed.mems is not None and nodes:
        mems = allowed.mems & {n.node for n in nodes}
        if not mems:
            raise ViewError(
                f'the run may allocate on NUMA nodes '
                f'{node_shape.cpu_list(allowed.mems)} '
                f'({allowed.read_from("mems")}), none of which the node has '
                f'(nodes: {", ".join(str(n.node) for n in nodes)})')

    narrowed = allowed_view.Allowed(cpus, mems, allowed.memory_limit,
                                    allowed.sources)
    memory = numa_memory.usable(nodes, narrowed,
                                numa_memory.meminfo(proc_dir), offline,
                                numa_memory.meminfo(proc_dir, 'MemFree'))
    topology[KEY] = {
        'online': (node_shape.cpu_list(online) if described and
                   online != described else None),
        'cpus': None if cpus is None else node_shape.cpu_list(cpus),
        'mems': None if mems is None else node_shape.cpu_list(mems),
        'numa_nodes': [{'node': n.node,
                        'cpus': node_shape.cpu_list(n.cpus),
                        'memory_bytes': n.memory_bytes, 'kind': n.kind,
                        'evidence': n.evidence} for n in nodes],
        'memory_bytes': memory.memory_bytes,
        'memtotal_bytes': memory.memtotal_bytes,
        'memory_why': list(memory.why),
        'read_from': _read_from(narrowed, online, {n.node for n in nodes}),
    }
    return info


def _read_from(allowed, online, nodes):
    '''Where what leaves part of the machine out was read, one phrase per
    kind of restriction.'''
    found = []
    for what, whole, name in (('cpus', online, 'CPUs'),
                              ('mems', nodes, 'NUMA nodes')):
        where = allowed.read_from(what, frozenset(whole or ()))
        if where:
            found.append(f'{name}: {where}')
    return found


def of_this_host(info):
    '''``info`` (ReFrame's description of this host) with what this
    process may use.'''
    return with_view(info, '/sys', '/proc', allowed_view.of_this_process())


def memory_bytes(info):
    '''The bytes a run sizes by, of a description with a view; ``None``
    without one.'''
    return ((info or {}).get('topology') or {}).get(KEY, {}).get(
        'memory_bytes')


def _gib(size):
    gib = size / 2**30
    return f'{gib:.0f}' if abs(gib - round(gib)) < 0.05 else f'{gib:.1f}'


def summary(node):
    '''What the run plans on, where less than the machine, as one line:
    ``6 of 32 CPUs, NUMA nodes 0-5 of 8, 96 of 126.2 GiB: planned on what
    this run may use (...)``; ``''`` where it may use the whole machine
    (``node``: a :class:`~.node_shape.Shape`).'''
    view = node.view
    if not view:
        return ''

    parts = []
    if node.cpus != node.machine_cpus:
        parts.append(f'{len(node.cpus)} of {len(node.machine_cpus)} CPUs')
    if len(node.numa_nodes) != node.machine_numa_nodes and node.numa_ids:
        parts.append(f'NUMA nodes {node_shape.cpu_list(node.numa_ids)} of '
                     f'{node.machine_numa_nodes}')
    memory, total = view.get('memory_bytes'), view.get('memtotal_bytes')
    if memory and total and memory != total:
        parts.append(f'{_gib(memory)} of {_gib(total)} GiB of memory')
    if not parts:
        return ''

    why = list(view.get('read_from') or []) if node.restricted else []
    why += view.get('memory_why') or []
    return (', '.join(parts) + ': planned on what this run may use'
            + (f' ({"; ".join(why)})' if why else ''))

