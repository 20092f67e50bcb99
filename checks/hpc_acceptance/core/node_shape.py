'''The node as the checks count it: its cores, hardware threads, sockets,
NUMA nodes and cache instances, read from ReFrame's processor description
(``partition.processor.info``: auto-detected, or written by
``reframe --detect-host-topology``).

Every decision the checks take from the topology starts here, on a node and
in ``hpc-acceptance topology``'s replay of a node alike. The description's
CPU masks are read, not its counts (``num_cpus``, ``num_cpus_per_core``),
because the counts are wrong on some nodes:

- **offline CPUs**: ReFrame counts every ``cpuN`` directory in
  ``num_cpus``, online or not, but only online CPUs have a topology; the
  checks use the online ones, those of the ``cores`` masks;
- **hybrid CPUs** (performance cores with two hardware threads, efficiency
  cores with one): ``num_cpus // num_cores`` rounds the threads per core
  down, and ReFrame's ``num_cores`` is then the number of CPUs; the masks
  give each core its own threads;
- **Bulldozer modules** (AMD family 15h): the kernel lists the two cores
  of a module, which share an L2 and a front end but each have their own L1
  data cache and integer units, as thread siblings. On that family alone
  (the processor's vendor ``AuthenticAMD`` and an archspec name of the
  family: ``bulldozer``, ``piledriver``, ``steamroller``, ``excavator``, as
  hwloc keeps its rule to AMD families 15h and 16h), CPUs listed as siblings
  that each have their own L1 data cache are cores, as AMD, hwloc, Slurm
  and Open MPI's mapping count them. So "one thread per core" runs on
  every core of the module, and the SMT variants, which have no second
  thread to use or leave idle, are skipped. Elsewhere siblings are the
  hardware threads of one core whatever their L1 (a virtual machine may
  give each thread its own: hwloc and Open MPI still see one core);
- **inconsistent masks** (sockets or cache instances that overlap, as on a
  node whose sysfs disagrees with itself): the part at fault is unusable,
  and every check that needs it is skipped naming the masks, never sized
  from a guess;
- **caches missing for some CPUs** (a kernel that shows no ``cache/index*``
  of a level for them): the caches are usable, each level's gaps named
  (:attr:`Shape.cache_gaps`); a working set is not sized for a level on
  threads whose CPUs lack it (:mod:`hpc_acceptance.core.topology`), and one
  thread runs on the first core with every level;
- **what the run may use**: where the description carries the view of the
  run (``topology.allowed``, written by :mod:`hpc_acceptance.core.node_view`
  from the cgroup's cpuset, the CPU affinity and ``Mems_allowed``), the
  shape is the intersection of the machine with it: the cores, sockets,
  NUMA nodes and cache instances hold the allowed CPUs only, the NUMA nodes
  are those the run may allocate on, each with its kind of memory
  (:mod:`hpc_acceptance.core.numa_memory`); the machine's counts are kept
  to say what was left out.

Masks are read whatever the kernel padded them with (commas, whitespace, a
trailing NUL byte as some kernels write).
'''

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Optional

import archspec.cpu

from hpc_acceptance.core import core_kinds


class TopologyError(ValueError):
    '''The processor description lacks what a check needs to size itself,
    or contradicts itself; the message says what and how to fix it.'''


class Inapplicable(ValueError):
    '''A variant does not apply to the node's shape; the message says
    why.'''


_PADDING = re.compile(r'[\s,\x00]')


def cpu_set(mask):
    '''The CPU numbers of a hexadecimal CPU mask, ``'0x3'`` or sysfs'
    ``'00000000,00000003'``.'''
    text = _PADDING.sub('', mask).lower()
    text = text[2:] if text.startswith('0x') else text
    try:
        bits = int(text or '0', 16)
    except ValueError:
        raise TopologyError(f'{mask!r} is not a CPU mask') from None

    return frozenset(cpu for cpu in range(bits.bit_length())
                     if bits >> cpu & 1)


def cpu_list(cpus):
    '''``{0, 1, 2, 5}`` as ``0-2,5``.'''
    ranges, start, previous = [], None, None
    for cpu in sorted(cpus):
        if start is None:
            start = previous = cpu
        elif cpu == previous + 1:
            previous = cpu
        else:
            ranges.append((start, previous))
            start = previous = cpu

    if start is not None:
        ranges.append((start, previous))

    return ','.join(str(a) if a == b else f'{a}-{b}' for a, b in ranges)


@dataclass(frozen=True)
class CacheInstance:
    #: the CPUs sharing it; ``None`` where the description has no CPU sets
    cpus: Optional[frozenset]
    #: bytes
    size: int
    #: bytes per line
    linesize: int


@dataclass(frozen=True)
class Shape:
    '''A node's topology as the checks count it. Each core, socket and
    NUMA node is the set of its online CPUs (a NUMA node without CPUs is
    an empty set); cores are in block order, socket by socket.'''

    cores: tuple = ()
    sockets: tuple = ()
    numa_nodes: tuple = ()
    #: ``{'l1': (CacheInstance, ...), ...}``, innermost level first
    caches: dict = field(default_factory=dict)
    #: cores and CPUs from the description's counts, where it has no masks
    counted_cores: Optional[int] = None
    counted_cpus: Optional[int] = None
    counted_sockets: Optional[int] = None
    #: ``{'sockets': why}``: parts of the description that cannot be used
    unusable: dict = field(default_factory=dict)
    #: where the checks count otherwise than ReFrame's figures, and why
    notes: tuple = ()
    #: ``{level: CPUs}``: online CPUs that no instance of a level holds
    cache_gaps: dict = field(default_factory=dict)
    #: the NUMA nodes' numbers, in the order of :attr:`numa_nodes`, and
    #: the kind of memory of each (:mod:`.numa_memory`); ``()`` where the
    #: description does not say (ReFrame lists masks only)
    numa_ids: tuple = ()
    numa_kinds: tuple = ()
    #: the online CPUs and NUMA nodes of the machine, where what the run
    #: may use is less (:attr:`restricted`); else the same as the shape's
    machine_cpus: frozenset = frozenset()
    machine_numa_nodes: int = 0
    #: the description's view of the run (``topology.allowed``), or ``{}``
    view: dict = field(default_factory=dict)

    @property
    def cpus(self):
        return frozenset().union(*self.cores)

    @property
    def core_count(self):
        return len(self.cores) if self.cores else self.counted_cores

    @property
    def cpu_count(self):
        return len(self.cpus) if self.cores else self.counted_cpus

    @property
    def socket_count(self):
        return len(self.sockets) if self.sockets else self.counted_sockets

    @property
    def threads_per_core(self):
        '''Hardware threads of the core that has most.'''
        if self.cores:
            return max(len(core) for core in self.cores)

        if self.counted_cores and self.counted_cpus:
            return self.counted_cpus // self.counted_cores

        return 1

    @property
    def numa_nodes_with_cpus(self):
        return tuple(node for node in self.numa_nodes if node)

    @property
    def restricted(self):
        '''Whether the run may use fewer CPUs or NUMA nodes than the
        machine has online.'''
        return bool(self.view) and (
            self.cpus != self.machine_cpus or
            len(self.numa_nodes) != self.machine_numa_nodes)

    def cores_with_every_level(self):
        '''The cores that reach an instance of every cache level.'''
        return [core for core in self.cores
                if not any(core <= gap for gap in self.cache_gaps.values())]

    def require(self, part):
        '''Raise :class:`TopologyError` unless the description's ``part``
        (``cores``, ``sockets``, ``numa_nodes`` or ``caches``) is there
        and consistent.'''
        if part in self.unusable:
            raise TopologyError(self.unusable[part])

        if not getattr(self, part):
            raise TopologyError(_MISSING[part])

    def socket_of(self, cpus):
        '''Index of the socket holding all of ``cpus``, or ``None``.'''
        return _index_containing(cpus, self.sockets)

    def numa_node_of(self, cpus):
        '''Index of the NUMA node holding all of ``cpus``, or ``None``.'''
        return _index_containing(cpus, self.numa_nodes)


_REDETECT = ('regenerate it with "reframe --detect-host-topology=FILE" on a '
             'compute node')
_MISSING = {
    'cores': f'the processor description has no topology.cores CPU masks: '
             f'{_REDETECT}',
    'sockets': f'the processor description has no topology.sockets CPU '
               f'masks: {_REDETECT}',
    'numa_nodes': f'the processor description has no topology.numa_nodes '
                  f'CPU masks: {_REDETECT}',
    'caches': 'the partition has no processor topology with caches: '
              '"hpc-acceptance new-system" writes one where ReFrame reads it '
              '(topology_prefix), or set "processor" in its configuration '
              '(see config/systems/example_cluster.py); a node whose kernel '
              'shows no /sys/devices/system/cpu/cpuN/cache needs its caches '
              'written in processor.topology.caches by hand',
}


def _index_containing(cpus, sets):
    return next((i for i, s in enumerate(sets) if cpus and cpus <= s), None)


def _masks(topology, name):
    return [cpu_set(mask) for mask in topology.get(name) or []]


def _overlap(sets):
    '''The first two of ``sets`` that share a CPU, or ``None``.'''
    owner = {}
    for index, cpus in enumerate(sets):
        for cpu in cpus:
            if cpu in owner and owner[cpu] != index:
                return sets[owner[cpu]], cpus
            owner[cpu] = index

    return None


def _overlap_message(what, pair, where):
    a, b = pair
    return (f'the processor description is inconsistent: {what} CPUs '
            f'{cpu_list(a)} and {cpu_list(b)} overlap (CPUs '
            f'{cpu_list(a & b)} are in both): the node\'s {where} disagree '
            f'with each other')


def _cache_levels(topology):
    '''``{level: [CacheInstance, ...]}`` with every entry of a level
    merged: ReFrame lists a level once per size and sharing (a hybrid
    CPU's two kinds of L2 are two entries).'''
    levels = {}
    for cache in topology.get('caches') or []:
        name = cache['type'].lower()
        size = int(cache['size'])
        linesize = int(cache.get('linesize') or 64)
        masks = cache.get('cpusets') or []
        instances = levels.setdefault(name, [])
        if masks:
            instances += [CacheInstance(cpu_set(m), size, linesize)
                          for m in masks]
        else:
            instances.append(CacheInstance(None, size, linesize))

    return {name: levels[name]
            for name in sorted(levels, key=lambda n: int(n[1:] or 0))}


#: archspec's names of AMD family 15h, whose modules the kernel lists as
#: thread siblings; later ones descend from the first.
_MODULE_FAMILY = 'bulldozer'


def amd_family_15h(info):
    '''Whether the description is of an AMD family 15h processor: vendor
    ``AuthenticAMD`` and an archspec target of that family (only it has
    XOP and FMA4).'''
    arch = info.get('arch')
    if info.get('vendor') != 'AuthenticAMD' or \
            arch not in archspec.cpu.TARGETS:
        return False

    target = archspec.cpu.TARGETS[arch]
    return _MODULE_FAMILY in [target.name] + [a.name for a in target.ancestors]


def _processor(info):
    '''``zen2 (AuthenticAMD)``, ``x86_64``, ``no target``.'''
    vendor = info.get('vendor')
    named = info.get('arch') or 'no target'
    return (f'{named} ({vendor})' if vendor and vendor != 'generic'
            else named)


def _own_l1(cores, l1):
    '''The cores whose CPUs each have their own L1 data cache.'''
    l1_sets = [i.cpus for i in l1 if i.cpus]
    found = []
    for core in cores:
        own = [next((s for s in l1_sets if cpu in s), None) for cpu in core]
        if (len(core) > 1 and None not in own and
                all(len(s & core) == 1 for s in own)):
            found.append(core)

    return found


def _split_modules(cores, modules):
    '''``cores`` with each of ``modules`` split into one core per CPU.'''
    result = []
    for core in cores:
        if core in modules:
            result += [frozenset({cpu}) for cpu in sorted(core)]
        else:
            result.append(core)

    return result


#: Shapes of the descriptions last read, by ``id``: every hook of every
#: test case reads the partition's one description, the same object.
_READ = {}


def shape(info):
    '''The :class:`Shape` of a processor description.'''
    read = _READ.get(id(info))
    if read is None or read[0] is not info:
        if len(_READ) > 16:
            _READ.clear()
        # the description is kept, so its id names it while cached
        read = _READ[id(info)] = (info, _shape(info))

    return read[1]


def _cpu_numbers(text):
    '''The numbers of a kernel list (``0-3,8``) the view wrote.'''
    found = set()
    for part in filter(None, str(text).replace(' ', '').split(',')):
        first, _, last = part.partition('-')
        try:
            found.update(range(int(first), int(last or first) + 1))
        except ValueError:
            raise TopologyError(
                f'the processor description\'s topology.allowed has '
                f'{text!r} where a list of numbers (0-3,8) belongs') from None
    return frozenset(found)


def _view_numa_nodes(view, online):
    '''``[(number, CPUs, kind)]`` of the NUMA nodes the view lists that
    the run may allocate on, their CPUs those of ``online``.'''
    mems = view.get('mems')
    mems = None if mems is None else _cpu_numbers(mems)
    found = []
    for entry in view.get('numa_nodes') or []:
        if mems is not None and entry['node'] not in mems:
            continue
        found.append((entry['node'], _cpu_numbers(entry.get('cpus') or '')
                      & online, entry.get('kind') or ''))
    return found


def _shape(info):
    info = info or {}
    topology = info.get('topology') or {}
    unusable, notes = {}, []
    view = topology.get('allowed') or {}

    cores = [c for c in _masks(topology, 'cores') if c]
    caches = _cache_levels(topology)
    if cores and _overlap(cores):
        unusable['cores'] = _overlap_message(
            'cores', _overlap(cores), 'cpuN/topology/core_cpus masks')

    modules = threads_own_l1 = 0
    if 'cores' not in unusable and 'l1' in caches:
        separate = _own_l1(cores, caches['l1'])
        if separate and amd_family_15h(info):
            cores, modules = _split_modules(cores, separate), len(separate)
        else:
            threads_own_l1 = len(separate)

    if view.get('online') is not None and cores:
        # CPUs the kernel lists as offline, whose topology sysfs still
        # shows (as older kernels do)
        listed = _cpu_numbers(view['online'])
        cores = [core & listed for core in cores if core & listed]

    machine_online = frozenset().union(*cores)
    if view.get('cpus') is not None and cores:
        allowed = _cpu_numbers(view['cpus'])
        cores = [core & allowed for core in cores if core & allowed]

    online = frozenset().union(*cores)
    if online:
        # an offline CPU's caches, where its kernel still lists them, are
        # no instance any core can fill
        caches = {name: [i if i.cpus is None else
                         CacheInstance(i.cpus & online, i.size, i.linesize)
                         for i in instances
                         if i.cpus is None or i.cpus & online]
                  for name, instances in caches.items()}
        caches = {name: instances for name, instances in caches.items()
                  if instances}

    if modules:
        notes.append(
            f'the CPUs of {modules} cores ReFrame counts, listed as thread '
            f'siblings, each have their own L1 data cache: they are cores '
            f'(Bulldozer modules: two cores sharing an L2 and a front end), '
            f'so the checks count '
            f'{len(cores)} cores of one hardware thread where ReFrame counts '
            f'{len(cores) - modules} cores and num_cpus_per_core='
            f'{info.get("num_cpus_per_core")}'
        )
    if threads_own_l1:
        notes.append(
            f'the hardware threads of {threads_own_l1} cores each have their '
            f'own L1 data cache in the description (as a virtual machine may '
            f'describe them): they are threads of one core all the same, as '
            f'hwloc and Open MPI count them; only an AMD family 15h '
            f'processor\'s thread siblings are cores (Bulldozer modules), and '
            f'archspec names this one {_processor(info)}')

    sockets = [s & online if cores else s
               for s in _masks(topology, 'sockets')]
    sockets = sorted((s for s in sockets if s), key=min)
    # nodes with CPUs by their first CPU, then those without (memory only)
    by_first_cpu = (lambda n: (not n[1], min(n[1], default=0), n[0]))
    if view.get('numa_nodes') is not None:
        listed = sorted(_view_numa_nodes(view, online), key=by_first_cpu)
        machine_numa = len(view['numa_nodes'])
    else:
        listed = sorted(((None, n & online if cores else n, '')
                         for n in _masks(topology, 'numa_nodes')),
                        key=lambda n: by_first_cpu((0,) + n[1:]))
        machine_numa = len(listed)
    numa_nodes = [cpus for _, cpus, _ in listed]
    numa_ids = tuple(n for n, _, _ in listed) if view else ()
    numa_kinds = tuple(kind for _, _, kind in listed) if view else ()

    if sockets and _overlap(sockets):
        unusable['sockets'] = _overlap_message(
            'sockets', _overlap(sockets),
            'cpuN/topology/package_cpus (core_siblings) masks')
    elif sockets and cores and any(
            _index_containing(core, sockets) is None for core in cores):
        unusable['sockets'] = (
            'the processor description is inconsistent: a core\'s CPUs '
            'are not all in one socket, or a core is in no socket')

    if numa_nodes and _overlap(numa_nodes):
        unusable['numa_nodes'] = _overlap_message(
            'NUMA nodes', _overlap(numa_nodes), 'nodeN/cpumap masks')

    for name, instances in caches.items():
        if any(i.size <= 0 for i in instances):
            unusable['caches'] = (
                f'the processor description gives {name.upper()} no size '
                f'(the node shows no cpuN/cache/index*/size of that level): '
                f'the caches a working set must exceed are unknown; write '
                f'their sizes in processor.topology.caches')
            break

        sets = [i.cpus for i in instances if i.cpus is not None]
        pair = _overlap(sets)
        if pair:
            unusable['caches'] = _overlap_message(
                f'{name.upper()} instances of', pair,
                f'cpuN/cache/index*/shared_cpu_map masks of {name.upper()}')
            break

    gaps = {}
    if 'caches' not in unusable:
        for name, instances in caches.items():
            sets = [i.cpus for i in instances if i.cpus is not None]
            missing = online - frozenset().union(*sets) if sets else None
            if missing:
                gaps[name] = missing
    if gaps:
        notes.append(
            'the node shows no ' + '; no '.join(
                f'{name.upper()} for CPUs {cpu_list(cpus)}'
                for name, cpus in gaps.items()) +
            ' (no cpuN/cache/index* of that level): a working set is not '
            'sized for a level on threads whose CPUs lack it; one thread '
            'runs on the first core with every level')

    if 'sockets' not in unusable and sockets and cores:
        # block order: socket by socket, each by its first CPU
        cores.sort(key=lambda c: (_index_containing(c, sockets), min(c)))
    else:
        cores.sort(key=min)

    described = info.get('num_cpus')
    if cores and described and described > len(machine_online):
        notes.append(
            f'{described - len(machine_online)} of the {described} CPUs '
            f'ReFrame counts (num_cpus) are offline: the checks use the '
            f'{len(machine_online)} online ones')

    counted_cpus = info.get('num_cpus')
    per_core_described = info.get('num_cpus_per_core')
    counted_cores = (counted_cpus // per_core_described
                     if counted_cpus and per_core_described else None)
    node = Shape(
        cores=tuple(cores), sockets=tuple(sockets),
        numa_nodes=tuple(numa_nodes),
        caches={name: tuple(instances) for name, instances in caches.items()},
        counted_cores=counted_cores, counted_cpus=counted_cpus,
        counted_sockets=info.get('num_sockets'),
        unusable=unusable, notes=tuple(notes), cache_gaps=gaps,
        numa_ids=numa_ids, numa_kinds=numa_kinds,
        machine_cpus=machine_online, machine_numa_nodes=machine_numa,
        view=dict(view),
    )
    per_core = {len(core) for core in cores}
    if len(per_core) > 1:
        by_caches = core_kinds.kinds(node)
        why = (f'{len(by_caches.kinds)} kinds of core by their caches: a '
               f'hybrid CPU' if by_caches.hybrid else
               'one kind of core by their caches: threads offline')
        notes.append(
            'the cores have different numbers of hardware threads ('
            + ', '.join(f'{sum(len(c) == n for c in cores)} with {n}'
                        for n in sorted(per_core, reverse=True))
            + f'), {why}; the checks count {len(cores)} cores and '
            f'{len(online)} hardware threads, where ReFrame\'s '
            f'num_cpus_per_core={info.get("num_cpus_per_core")} says '
            f'otherwise')
        node = dataclasses.replace(node, notes=tuple(notes))

    return node


def places(cores, every_thread):
    '''One place per thread: each core whole (one thread per core, free to
    run on any of its hardware threads), or with ``every_thread`` each
    hardware thread of the cores.'''
    if every_thread:
        return [frozenset({cpu}) for core in cores for cpu in sorted(core)]

    return list(cores)


def slots(node, every_thread):
    '''Ranks or threads ``node`` (a :class:`Shape`) holds one per core,
    or with ``every_thread`` one per hardware thread.

    :raises TopologyError: where the description does not count them.
    '''
    if 'cores' in node.unusable:
        node.require('cores')

    count = node.cpu_count if every_thread else node.core_count
    if not count:
        raise TopologyError(
            'the processor description does not count its cores: set '
            '"processor" (num_cpus, num_cpus_per_core) in its configuration '
            'or enable general.remote_detect')

    return count


def threads_per_core(node, smt, partition):
    '''Hardware threads per core an ``smt`` variant uses on ``node`` (a
    :class:`Shape`): 1 for ``as-configured`` and ``off``, every one for
    ``on``.

    :raises Inapplicable: for ``on`` and ``off`` where the cores have one
        hardware thread each (SMT absent or disabled).
    '''
    if smt == 'as-configured':
        return 1

    if node.threads_per_core < 2:
        modules = ('; each Bulldozer module\'s two CPUs are cores (see '
                   'the notes)' if any('Bulldozer' in n for n in node.notes)
                   else '')
        raise Inapplicable(
            f'smt={smt}: SMT is absent or disabled on {partition} (1 '
            f'hardware thread per core{modules}): there is no second thread '
            f'to use or leave idle')

    return node.threads_per_core if smt == 'on' else 1
