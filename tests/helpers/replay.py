'''Replaying snapshots for the tests: ``hpc-acceptance topology SNAPSHOT
--format json``, several at once, and what a test reads of a snapshot
itself (packages, NUMA nodes, CPU flags, memory) to write its rules from
the machine's shape, and of hwloc's ``lstopo`` output.'''

import json
import os
import re
import subprocess
import tarfile
from pathlib import Path

from conftest import HPC_ACCEPTANCE
from helpers import sysfs_tree


def namespace_refused():
    '''Why a snapshot cannot be replayed on this host (ReFrame's detection
    needs a private mount namespace), or ``None``.'''
    command = ['unshare', '--mount']
    if os.geteuid() != 0:
        command += ['--user', '--map-root-user']
    try:
        done = subprocess.run(command + ['true'], capture_output=True,
                              text=True, timeout=30)
    except OSError as err:
        return f'no unshare (util-linux): {err}'

    if done.returncode:
        return (f'replaying a snapshot needs a private mount namespace, '
                f'which {" ".join(command)} cannot make here (not root, and '
                f'unprivileged user namespaces are refused): '
                f'{done.stderr.strip()}')

    return None


def replay_all(snapshots, *options):
    '''``{key: report}`` of ``hpc-acceptance topology`` on each snapshot of
    ``{key: path}`` (``None``: this host), run side by side.'''
    running = {key: subprocess.Popen(
        [str(HPC_ACCEPTANCE), 'topology', *([str(path)] if path else []),
         '--format', 'json', *options], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
        for key, path in snapshots.items()}
    reports = {}
    for key, process in running.items():
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, f'{key}: {err}'
        reports[key] = json.loads(out)
    return reports


#: How checks/README.md ("Replaying a node") has a site take a snapshot.
SNAPSHOT_RECIPE = '''
mkdir -p snapshot/proc/self && cp /proc/cpuinfo /proc/meminfo snapshot/proc/
cp /proc/self/status /proc/self/cgroup /proc/self/mounts snapshot/proc/self/
tar --ignore-failed-read --warning=no-file-shrank --warning=no-failed-read \\
    -czf "$(hostname -s)-topology.tar.gz" /sys/devices/system/cpu \\
    /sys/devices/system/node /sys/devices/virtual/memory_tiering \\
    -C snapshot proc
'''


def decisions(report, mode, check=None):
    '''``{name: decision}`` of ``mode``, of ``check`` (a class name)
    only if given.'''
    return {d['name']: d for d in report['modes'][mode]
            if check is None or d['check'] == check}


def parameters(name):
    '''``{'isa': 'native', ...}`` of a test case's display name.'''
    return dict(part[1:].split('=', 1) for part in name.split()
                if part.startswith('%'))


def places(decision):
    '''The OpenMP places a decision set, as CPU sets.'''
    text = decision['decided']['openmp']['OMP_PLACES']
    return [set(map(int, place.split(',')))
            for place in re.findall(r'\{([\d,]+)\}', text)]


def _cpus(mask):
    bits = int(re.sub(r'[\s,\x00]', '', mask) or '0', 16)
    return frozenset(cpu for cpu in range(bits.bit_length())
                     if bits >> cpu & 1)


_UNITS = {'K': 2**10, 'M': 2**20, 'G': 2**30}


class Machine:
    '''What a test reads of a snapshot's own files, not through ReFrame or
    the suite: the package and NUMA node of each CPU, the data caches each
    CPU reaches, the CPU clocks, the NUMA distances, the CPU flags, the
    memory. ``files`` maps paths below the snapshot's root
    (``sys/devices/system/...``, ``proc/cpuinfo``) to their text.'''

    def __init__(self, files):
        self.package, self.node = {}, {}
        #: ``{level: {CPU set: bytes}}``: the data and unified caches
        self.caches = {}
        #: ``{cpu: (max kHz, base kHz or None)}``
        self.clocks = {}
        #: ``{node: {node: distance}}``
        self.distances = {}
        cache_index = {}
        policies = {}
        rows = {}
        for path, text in files.items():
            found = re.fullmatch(r'sys/devices/system/cpu/cpu(\d+)/topology/'
                                 r'physical_package_id', path)
            if found:
                self.package[int(found[1])] = int(text)
            found = re.fullmatch(r'sys/devices/system/node/node(\d+)/cpumap',
                                 path)
            if found:
                self.node.update({cpu: int(found[1]) for cpu in _cpus(text)})
            found = re.fullmatch(r'sys/devices/system/node/node(\d+)/distance',
                                 path)
            if found:
                rows[int(found[1])] = [int(d) for d in text.split()]
            found = re.fullmatch(r'sys/devices/system/cpu/cpu(\d+)/cache/'
                                 r'index(\d+)/(\w+)', path)
            if found:
                cache_index.setdefault((found[1], found[2]), {})[
                    found[3]] = text.strip('\n\x00 ')
            found = re.fullmatch(r'sys/devices/system/cpu/(cpu\d+|cpufreq/'
                                 r'policy\d+)/(?:cpufreq/)?(\w+)', path)
            if found:
                policies.setdefault(found[1], {})[found[2]] = text.strip()
        for index in cache_index.values():
            if not {'level', 'type', 'size', 'shared_cpu_map'} <= set(index) \
                    or index['type'] == 'Instruction':
                continue
            size = int(index['size'][:-1]) * _UNITS[index['size'][-1]]
            self.caches.setdefault(f'l{index["level"]}', {})[
                _cpus(index['shared_cpu_map'])] = size
        for name, policy in policies.items():
            if 'cpuinfo_max_freq' not in policy:
                continue
            cpus = ([int(name[3:])] if name[3:].isdigit() else
                    [int(c) for c in policy.get('affected_cpus', '').split()])
            base = policy.get('base_frequency')
            self.clocks.update({cpu: (int(policy['cpuinfo_max_freq']),
                                      int(base) if base else None)
                                for cpu in cpus})
        ids = sorted(rows)
        self.distances = {node: dict(zip(ids, row))
                          for node, row in rows.items()}
        # what the process the snapshot was taken in could use: its
        # cgroup's cpuset files (the configured sets, as hwloc reads them)
        self.node_memory = {
            int(found[1]): int(re.search(r'MemTotal:\s+(\d+)', text)[1])
            * 1024 for path, text in files.items()
            for found in [re.fullmatch(r'sys/devices/system/node/node(\d+)/'
                                       r'meminfo', path)] if found}
        self.allowed_cpus = self._cgroup(files, ('cpuset.cpus.effective',
                                                 'cpuset.cpus', 'cpus'))
        self.allowed_mems = self._cgroup(files, ('cpuset.mems.effective',
                                                 'cpuset.mems', 'mems'))
        # a CPU the kernel lists as offline is none, whatever topology
        # sysfs still shows of it
        online = files.get('sys/devices/system/cpu/online')
        if online is not None:
            cpus = sysfs_tree.parse_list(online)
            self.package = {cpu: package for cpu, package in
                            self.package.items() if cpu in cpus}
        # NUMA nodes with an online CPU (one with a topology), allowed or
        # not: memory a process may allocate on beside its CPUs' own
        self._nodes_with_cpus = {self.node[cpu] for cpu in self.package
                                 if cpu in self.node}
        if self.allowed_cpus is not None:
            self.package = {cpu: package for cpu, package in
                            self.package.items() if cpu in self.allowed_cpus}
            self.node = {cpu: node for cpu, node in self.node.items()
                         if cpu in self.allowed_cpus}
        first = files['proc/cpuinfo'].split('\n\n')[0]
        flags = re.search(r'^(?:flags|Features)\s*:(.*)$', first,
                          re.MULTILINE)
        self.flags = set(flags[1].split()) if flags else set()
        self.x86 = bool(re.search(r'^vendor_id', first, re.MULTILINE))
        self._files = set(files)
        meminfo = [text for path, text in files.items()
                   if path == 'proc/meminfo']
        self._memory = [re.search(r'MemTotal:\s+(\d+)', text)[1]
                        for text in meminfo or [
                            text for path, text in files.items()
                            if re.fullmatch(r'sys/devices/system/node/'
                                            r'node\d+/meminfo', path)]]

    _READ = ('physical_package_id', '/cpumap', '/meminfo', '/distance',
             '/level', '/type', '/size', '/shared_cpu_map',
             '/cpuinfo_max_freq', '/base_frequency', '/affected_cpus',
             '/cpuset.cpus.effective', '/cpuset.mems.effective',
             '/cpuset.cpus', '/cpuset.mems', '/cpus', '/mems',
             'system/cpu/online')

    @staticmethod
    def _cgroup(files, names):
        '''The CPUs or NUMA nodes the cpuset file of ``names`` (the first
        found) of the snapshot's process's cgroup allows (its
        ``proc/self/cgroup`` or ``proc/self/cpuset``), or ``None`` where
        the snapshot holds none.'''
        cgroup = None
        for line in files.get('proc/self/cgroup', '').splitlines():
            number, controllers, path = line.split(':', 2)
            if 'cpuset' in controllers.split(',') or controllers == '':
                cgroup = path.strip()
        cgroup = cgroup or files.get('proc/self/cpuset', '').strip()
        if not cgroup:
            return None
        for name in names:
            found = [text for path, text in files.items()
                     if path.endswith(f'{cgroup.rstrip("/")}/{name}') and
                     not path.startswith(('sys/devices', 'proc/'))]
            if found:
                return frozenset(sysfs_tree.parse_list(found[0]))
        return None

    @classmethod
    def of_tarball(cls, path):
        '''The machine of a snapshot's tarball, read without unpacking.'''
        files = {}
        with tarfile.open(path) as tar:
            for member in tar:
                name = member.name.split('/', 1)[-1]
                if member.isfile() and (name.startswith('proc/') or
                                        name.endswith(cls._READ)):
                    files[name] = tar.extractfile(member).read().decode(
                        errors='replace')
        return cls(files)

    @property
    def packages(self):
        return set(self.package.values())

    def numa_nodes_with_cpus(self):
        return set(self.node.values())

    def memory_bytes(self):
        '''The memory of the NUMA nodes with CPUs the snapshot's process
        could allocate on (hwloc's figure), else ``MemTotal``.'''
        nodes = {node for node in self._nodes_with_cpus
                 if self.allowed_mems is None or node in self.allowed_mems}
        total = sum(int(kb) for kb in self._memory) * 1024
        if self.node_memory and nodes:
            held = sum(self.node_memory[node] for node in nodes)
            # no more than MemTotal, where the snapshot has proc/meminfo
            return min(held, total) if 'proc/meminfo' in self._files \
                else held
        return total

    def share(self, level, places):
        '''Each thread's bytes of ``level`` with one thread on each of
        ``places`` (CPU sets): its instance's size over the threads in it;
        of a place over several instances (a guest's threads with an L1
        each), the least of theirs.'''
        reached = [[cpus for cpus in self.caches[level] if cpus & place]
                   for place in places]
        threads = {}
        for touched in reached:
            for cpus in touched:
                threads[cpus] = threads.get(cpus, 0) + 1
        return [min(self.caches[level][cpus] / threads[cpus]
                    for cpus in touched) for touched in reached]


def lstopo(path):
    '''hwloc's counts in an ``lstopo`` output: ``{'packages': 4, 'numa':
    8, 'cores': 64, 'pus': 64, 'caches': {'l1': {16384: 64}, ...}}`` (data
    and unified caches, as ReFrame lists them: no L1i).'''
    text = Path(path).read_text()
    counts = {}
    for kind, name in (('Package', 'packages'), ('NUMANode', 'numa'),
                       ('Core', 'cores'), ('PU', 'pus')):
        found = re.search(rf'^\s*(?:Special )?depth -?\d+:\s+(\d+) {kind} ',
                          text, re.MULTILINE)
        counts[name] = int(found[1])

    caches = {}
    # hwloc 2.9 writes binary units as KB, MB, GB; later ones KiB, MiB, GiB
    units = {'KiB': 2**10, 'MiB': 2**20, 'GiB': 2**30,
             'KB': 2**10, 'MB': 2**20, 'GB': 2**30}
    for level, size, unit in re.findall(
            r'^\s*L(\d)d?Cache L#\d+ \((?:[^)]*? )?size=(\d+)'
            r'(KiB|MiB|GiB|KB|MB|GB)', text, re.MULTILINE):
        sizes = caches.setdefault(f'l{level}', {})
        size = int(size) * units[unit]
        sizes[size] = sizes.get(size, 0) + 1
    counts['caches'] = caches
    return counts
