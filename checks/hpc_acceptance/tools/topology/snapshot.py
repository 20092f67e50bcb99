'''A node as a snapshot of its ``/sys`` and ``/proc/cpuinfo``, and what
ReFrame and the node-state probe read from it.

A snapshot is a directory, or a tarball of one, holding ``sys/`` (at least
``sys/devices/system/cpu``, and ``sys/devices/system/node`` where the
node has NUMA nodes) and ``proc/cpuinfo``, directly or in one top folder:
the layout of hwloc's ``hwloc-gather-topology`` and of the recipe in
checks/README.md.

ReFrame's detection (``reframe.utility.cpuinfo.cpuinfo()``) reads fixed
paths under ``/sys`` and ``/proc/cpuinfo``. It runs unchanged on a snapshot
in a private mount namespace where the snapshot is bound over those paths
(``unshare --mount``): as root, or as any user where the kernel allows
unprivileged user namespaces (``unshare --user --map-root-user``); the
host outside that one process is untouched. Where neither is possible the
replay says so: a copy of ReFrame's detection reading another root would
be a second implementation, answering for ReFrame without being it.

Two inputs of the detection are not files, and the replay gives them from
the snapshot: the machine's architecture (``platform.machine()``, which
archspec and ReFrame ask), read from ``proc/cpuinfo``'s fields; and the
CPU's model, which ReFrame reads with the ``cpuid`` instruction on x86 (the
host's answer), replaced by ``proc/cpuinfo``'s ``model name``.
'''

import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from reframe.utility.cpuinfo import cpuinfo

from hpc_acceptance.core import allowed_view, node_state, node_view
from hpc_acceptance.tools.topology import (node_plan, snapshot_check,
                                           snapshot_detect, snapshot_files)

#: What a snapshot must hold, relative to its root.
REQUIRED = ('sys/devices/system/cpu', 'proc/cpuinfo')

#: The node-state probe's lines read from the snapshot's /sys and /proc
#: (NODE_STATE_SYSFS, NODE_STATE_PROC); the others (node name, software)
#: are the host's, not the snapshot's.
FROM_SNAPSHOT = ('turbo', 'smt', 'nominal_khz', 'topology', 'cpufreq',
                 'numa_distance', 'cpu_flags')

# Binds the snapshot ($1) over /sys and /proc/cpuinfo, then runs the
# detection ($2 -m ... $3) in that namespace. Arguments, not a string
# built from them: the paths are the user's.
_IN_NAMESPACE = ('mount --bind "$1/sys" /sys && '
                 'mount --bind "$1/proc/cpuinfo" /proc/cpuinfo && '
                 'exec "$2" -m '
                 'hpc_acceptance.tools.topology.snapshot_detect "$3"')


class SnapshotError(RuntimeError):
    '''The snapshot cannot be read or replayed; the message says why and
    what to do.'''


@dataclass(frozen=True)
class Snapshot:
    #: the directory holding ``sys/`` and ``proc/cpuinfo``
    root: Path
    #: what the user named: the directory or tarball
    source: str

    def cpuinfo_text(self):
        return (self.root / 'proc' / 'cpuinfo').read_text(errors='replace')


def _root_in(directory):
    '''``directory`` or its one subfolder holding a snapshot, or ``None``
    (a folder that is a link is none: the copy holds no link out).'''
    candidates = [directory] + sorted(
        p for p in directory.iterdir() if p.is_dir() and not p.is_symlink())
    for candidate in candidates:
        if all((candidate / part).exists() for part in REQUIRED):
            return candidate

    return None


@contextlib.contextmanager
def opened(path):
    '''The :class:`Snapshot` at ``path``, a directory or tarball: what the
    replay reads of it copied to a temporary directory, removed afterwards,
    without following a link out of it, bounded in size, padding undone
    (:mod:`.snapshot_files`), and every file it reads in its kernel format
    (:mod:`.snapshot_check`).'''
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix='hpc-acceptance-snapshot-') as d:
        try:
            if path.is_dir():
                snapshot_files.copy(path, d)
            elif path.is_file():
                snapshot_files.unpack(path, d)
            else:
                raise SnapshotError(f'{path}: no such snapshot (a directory '
                                    f'or tarball with sys/ and proc/cpuinfo)')
        except snapshot_files.UnsafeSnapshot as err:
            raise SnapshotError(str(err)) from None

        root = _root_in(Path(d))
        if root is None:
            raise SnapshotError(_missing(path, Path(d)))
        cpuinfo_file = root / 'proc' / 'cpuinfo'
        if cpuinfo_file.is_symlink() or not cpuinfo_file.stat().st_size:
            raise SnapshotError(
                f'{path}: its proc/cpuinfo is empty, as tar stores /proc '
                f'files (their size is 0): copy /proc/cpuinfo first (the '
                f'recipe in checks/README.md, "Replaying a node")')
        damaged = snapshot_check.first_problem(root, path)
        if damaged:
            raise SnapshotError(damaged)
        yield Snapshot(root, str(path))


def _missing(path, unpacked):
    '''Why ``path`` (unpacked in ``unpacked``) is not a snapshot: what it
    lacks of :data:`REQUIRED`, where it holds some of it.'''
    candidates = [unpacked] + sorted(p for p in unpacked.iterdir()
                                     if p.is_dir() and not p.is_symlink())
    lacking = min(([part for part in REQUIRED if not (c / part).exists()]
                   for c in candidates), key=len)
    return (f'{path}: not a snapshot: it holds no {" and no ".join(lacking)}'
            f' (directly or in one top folder); make one with '
            f'hwloc-gather-topology, or the recipe in checks/README.md '
            f'("Replaying a node")')


#: ``proc/cpuinfo`` field -> the architecture whose kernels write it.
_ARCHITECTURE_FIELDS = (
    ('vendor_id', 'x86_64'),
    ('CPU implementer', 'aarch64'),
    ('isa', 'riscv64'),
    ('cpu', 'ppc64le'),
)


def machine(cpuinfo_text):
    '''The architecture (``platform.machine()``) of the node whose
    ``/proc/cpuinfo`` is ``cpuinfo_text``.'''
    fields = {line.partition(':')[0].strip()
              for line in cpuinfo_text.splitlines() if ':' in line}
    for name, architecture in _ARCHITECTURE_FIELDS:
        if name in fields:
            return architecture

    raise SnapshotError('proc/cpuinfo names no architecture this replay '
                        'knows (no vendor_id, CPU implementer, isa or cpu '
                        'field)')


def model(cpuinfo_text):
    '''The CPU's name in ``/proc/cpuinfo`` (``model name``; on ARM its
    implementer and part, on POWER ``cpu``), or ``None``.'''
    fields = {}
    for line in cpuinfo_text.splitlines():
        name, colon, value = line.partition(':')
        if colon:
            fields.setdefault(name.strip(), value.strip())

    if 'CPU implementer' in fields:
        return (f'CPU implementer {fields["CPU implementer"]} part '
                f'{fields.get("CPU part", "?")}')

    return fields.get('model name') or fields.get('cpu') or None


def dies(sys_dir):
    '''Dies per package as ``sys_dir`` (a ``/sys``) lists them
    (``die_cpus``), or ``None`` where the kernel does not (before Linux 5.2,
    or ``die_id`` -1 where the architecture has no dies).'''
    per_package = {}
    for topo in Path(sys_dir).glob('devices/system/cpu/cpu[0-9]*/topology'):
        die, package = topo / 'die_cpus', topo / 'package_cpus'
        die_id = topo / 'die_id'
        if not (die.is_file() and package.is_file()) or (
                die_id.is_file() and _clean(die_id.read_text()) == '-1'):
            continue
        per_package.setdefault(_clean(package.read_text()), set()).add(
            _clean(die.read_text()))

    if not per_package:
        return None

    return max(len(d) for d in per_package.values())


def _clean(mask):
    return re.sub(r'[\s,\x00]', '', mask)


def namespace_command(snapshot):
    '''The command that runs ReFrame's detection on ``snapshot`` in a
    private mount namespace.'''
    unshare = ['unshare', '--mount']
    if os.geteuid() != 0:
        unshare += ['--user', '--map-root-user']

    return unshare + ['sh', '-c', _IN_NAMESPACE, 'sh', str(snapshot.root),
                      sys.executable, machine(snapshot.cpuinfo_text())]


def detect(snapshot):
    '''ReFrame's processor description of the snapshot's node, detected
    by ReFrame in a private mount namespace.'''
    command = namespace_command(snapshot)
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=120)
    except OSError as err:
        raise SnapshotError(f'cannot run unshare (util-linux): {err}') \
            from None

    if done.returncode == snapshot_detect.DETECTION_FAILED:
        raise SnapshotError(
            f'ReFrame\'s detection failed on {snapshot.source}: '
            f'{(done.stderr.strip().splitlines() or ["no message"])[-1]}: '
            f'a file it reads holds '
            f'what the node\'s kernel would not write; take the snapshot '
            f'again (checks/README.md, "Replaying a node")')

    if done.returncode != 0:
        who = ('as root' if os.geteuid() == 0 else
               'as this user, in an unprivileged user namespace')
        raise SnapshotError(
            f'ReFrame\'s detection could not run on {snapshot.source} in a '
            f'private mount namespace ({who}): {done.stderr.strip()}. '
            f'ReFrame reads /sys and /proc/cpuinfo only, so the snapshot '
            f'must be bound over them: run as root, or where unprivileged '
            f'user namespaces are allowed (sysctl '
            f'kernel.unprivileged_userns_clone=1, '
            f'user.max_user_namespaces > 0)')

    try:
        info = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SnapshotError(f'the detection on {snapshot.source} printed no '
                            f'description: {done.stdout[:200]!r}') from None

    name = model(snapshot.cpuinfo_text())
    if name:
        info['model'] = name

    return info


def probe(root=None):
    '''The node-state probe's lines read from ``root`` (a snapshot's root,
    with its ``sys/`` and ``proc/``; this host's by default): Turbo, SMT,
    nominal clock, topology, the CPUs' clocks, NUMA distances and CPU
    flags.'''
    env = dict(os.environ)
    if root is not None:
        env['NODE_STATE_SYSFS'] = str(Path(root) / 'sys')
        env['NODE_STATE_PROC'] = str(Path(root) / 'proc')
    done = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, env=env)
    return '\n'.join(line for line in done.stdout.splitlines()
                     if line.split(' ', 1)[0] in FROM_SNAPSHOT)


def _named(text, root, source):
    '''The probe's ``text`` with the snapshot's temporary ``root`` named
    as the user named the snapshot (``source:sys/...``): the same snapshot
    reads the same each time.'''
    return text.replace(f'{root}/', f'{source}:')


def node_of(snapshot):
    '''The snapshot's node, for :mod:`.node_plan`: ReFrame's description
    with what the run it was taken in could use
    (:mod:`hpc_acceptance.core.node_view`).'''
    sys_dir = snapshot.root / 'sys'
    try:
        allowed = allowed_view.read(snapshot.root)
        info = node_view.with_view(detect(snapshot), sys_dir,
                                   snapshot.root / 'proc', allowed)
    except (allowed_view.AllowedViewError, node_view.ViewError) as err:
        raise SnapshotError(_named(str(err), snapshot.root,
                                   snapshot.source)) from None

    probed = _named(probe(snapshot.root), snapshot.root, snapshot.source)
    return node_plan.Node(info, node_view.memory_bytes(info), probed,
                          snapshot.source, dies=dies(sys_dir))


def this_host():
    '''This host, for :mod:`.node_plan`: ReFrame's detection and what this
    process may use, as the embedded default reads them.'''
    info = node_view.of_this_host(cpuinfo())
    memory = node_view.memory_bytes(info) or (
        os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES'))
    return node_plan.Node(info, memory, probe(), 'this host',
                          dies=dies('/sys'))
