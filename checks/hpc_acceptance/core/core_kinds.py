'''The kinds of core of a node: one on most nodes, two or more on a hybrid
CPU (performance and efficiency cores: Intel's P- and E-cores, ARM's big
and LITTLE).

Told apart as hwloc tells them, by the evidence there is:

- **cpufreq**, where the node's own ``/sys`` can be read
  (:mod:`hpc_acceptance.core.node_facts`: a partition with the local
  scheduler, a replayed snapshot): hwloc's rule
  (``look_sysfscpukinds_by_freq`` in hwloc's ``topology-linux.c``): CPUs
  are of one kind when their highest clock (``cpuinfo_max_freq``) is the
  same; CPUs of one base clock (``base_frequency``, intel_pstate's) whose
  highest clocks differ by less than 10 % are one kind, since Turbo Boost
  Max 3.0 gives a few favoured cores of one kind a higher one;
- **the caches** of ReFrame's processor description, everywhere else:
  cores whose L1 data cache, or whose L2 (its size and the cores sharing
  it), differ are of different kinds (an Intel P-core's 48 KiB L1d and own
  1.25 MiB L2 against an E-core's 32 KiB L1d and a 2 MiB L2 of four cores;
  an ARM big core's 2 MiB L2 against a LITTLE one's 512 KiB).

A core's hardware threads do not decide its kind: a core with a thread
offline is still of its kind; nor do caches the kernel shows for some CPUs
only (:attr:`~.node_shape.Shape.cache_gaps`). The first kind is the
performance kind: the highest clock, else the most L2 per core.
'''

from dataclasses import dataclass
from typing import Optional

#: The thread layout (STREAM, memory kernels) on the performance cores of a
#: hybrid CPU only: a variant, generated where a configured partition has
#: one (:mod:`hpc_acceptance.core.partition_limits`).
PERFORMANCE_CORES = 'performance_cores'

#: CPUs of one base clock whose highest clocks differ by less than this are
#: one kind (hwloc's ``HWLOC_CPUKINDS_MAXFREQ`` default).
MAX_CLOCK_SPREAD = 0.10


@dataclass(frozen=True)
class Kind:
    #: the cores of this kind, each a set of CPUs, in block order
    cores: tuple
    #: the highest clock of its CPUs in kHz, where cpufreq states it
    max_khz: Optional[int]
    #: bytes of its L1 data cache and of L2 per core (shared L2 divided by
    #: the cores sharing it), where the description lists them
    l1_bytes: Optional[int]
    l2_bytes_per_core: Optional[float]

    @property
    def cpus(self):
        return frozenset().union(*self.cores)

    @property
    def threads(self):
        '''Hardware threads per core: ``(fewest, most)``.'''
        counts = [len(core) for core in self.cores]
        return min(counts), max(counts)

    def describe(self):
        low, high = self.threads
        threads = f'{high}' if low == high else f'{low}-{high}'
        text = (f'{len(self.cores)} core{"s" if len(self.cores) > 1 else ""}'
                f' of {threads} thread{"s" if high > 1 else ""}')
        if self.max_khz:
            text += f' up to {self.max_khz / 1e6:.1f} GHz'
        caches = []
        if self.l1_bytes:
            caches.append(f'L1d {_size(self.l1_bytes)}')
        if self.l2_bytes_per_core:
            caches.append(f'L2 {_size(self.l2_bytes_per_core)} per core')
        return text + (f' ({", ".join(caches)})' if caches else '')


@dataclass(frozen=True)
class Kinds:
    #: performance kind first
    kinds: tuple
    #: ``cpufreq`` or ``caches``
    evidence: str

    @property
    def hybrid(self):
        return len(self.kinds) > 1

    @property
    def performance(self):
        return self.kinds[0]

    def describe(self):
        '''``a hybrid CPU: 6 cores of 2 threads up to 5.0 GHz (...) and 8
        ...`` or ``one kind of core``.'''
        if not self.hybrid:
            return 'one kind of core'

        how = ('their highest clocks, cpufreq\'s cpuinfo_max_freq (hwloc\'s '
               'rule)' if self.evidence == 'cpufreq' else
               'their caches (no cpufreq read)')
        names = ['performance'] + ['efficiency'] * (len(self.kinds) - 1)
        return (f'a hybrid CPU, {len(self.kinds)} kinds of core by {how}: '
                + '; '.join(f'{name}: {kind.describe()}'
                            for name, kind in zip(names, self.kinds)))

    def of(self, cores):
        '''``{kind index: cores of ``cores`` of that kind}``.'''
        found = {}
        for core in cores:
            index = next((i for i, kind in enumerate(self.kinds)
                          if core in kind.cores), None)
            found.setdefault(index, []).append(core)
        return found


def _size(size):
    for unit, scale in (('MiB', 2**20), ('KiB', 2**10)):
        if size >= scale:
            return f'{size / scale:.2f}'.rstrip('0').rstrip('.') + f' {unit}'
    return f'{size:.0f} B'


def _instance(node, level, core):
    return next((i for i in node.caches.get(level, ())
                 if i.cpus is not None and core <= i.cpus), None)


def _cache_signatures(node):
    '''``{core: (L1d size, L2 size, cores sharing that L2)}``.'''
    l2_of = {core: _instance(node, 'l2', core) for core in node.cores}
    sharing = {}
    for instance in l2_of.values():
        if instance is not None:
            sharing[id(instance)] = sharing.get(id(instance), 0) + 1

    signatures = {}
    for core, l2 in l2_of.items():
        l1 = _instance(node, 'l1', core)
        signatures[core] = (l1.size if l1 else None,
                            l2.size if l2 else None,
                            sharing[id(l2)] if l2 else None)
    return signatures


def _kind(signature, cores, max_khz):
    l1, l2, sharing = signature
    return Kind(tuple(cores), max_khz, l1,
                l2 / sharing if l2 and sharing else None)


def _by_caches(node, signatures):
    groups = {}
    for core in node.cores:
        groups.setdefault(signatures[core], []).append(core)

    kinds = [_kind(signature, cores, None)
             for signature, cores in groups.items()]
    return sorted(kinds, key=lambda k: (-(k.l2_bytes_per_core or 0),
                                        -(k.l1_bytes or 0),
                                        min(min(k.cpus), 1 << 30)))


def _adjusted(frequencies):
    '''hwloc's adjustment: ``{cpu: max kHz}``, each base clock's CPUs at
    their lowest highest clock where the spread is under
    :data:`MAX_CLOCK_SPREAD`; unadjusted where a CPU states no base.'''
    highest = {cpu: top for cpu, (top, _) in frequencies.items()}
    if any(base is None for _, base in frequencies.values()):
        return highest

    bases = {}
    for cpu, (top, base) in frequencies.items():
        bases.setdefault(base, []).append(cpu)
    for cpus in bases.values():
        low = min(highest[c] for c in cpus)
        high = max(highest[c] for c in cpus)
        if (high - low) / low < MAX_CLOCK_SPREAD:
            highest.update({c: low for c in cpus})

    return highest


def _by_frequency(node, frequencies, signatures):
    highest = _adjusted(frequencies)
    groups = {}
    for core in node.cores:
        clocks = {highest[cpu] for cpu in core}
        if len(clocks) != 1:
            return None
        groups.setdefault(clocks.pop(), []).append(core)

    return [_kind(signatures[cores[0]], cores, clock)
            for clock, cores in sorted(groups.items(), reverse=True)]


def kinds(node, frequencies=None):
    '''The :class:`Kinds` of ``node`` (a
    :class:`~hpc_acceptance.core.node_shape.Shape` with cores), from
    ``frequencies`` (``{cpu: (max kHz, base kHz or None)}``) where they
    cover every online CPU, else from its caches.'''
    if 'caches' in node.unusable or not node.caches or node.cache_gaps:
        # a node that shows no cache of a level for some CPUs: their
        # caches tell nothing of their kind
        signatures = {core: (None, None, None) for core in node.cores}
    else:
        signatures = _cache_signatures(node)

    if frequencies and node.cpus <= set(frequencies):
        found = _by_frequency(node, frequencies, signatures)
        if found:
            return Kinds(tuple(found), 'cpufreq')

    return Kinds(tuple(_by_caches(node, signatures)), 'caches')
