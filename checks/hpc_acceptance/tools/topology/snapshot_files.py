'''A snapshot's files, copied into a private temporary directory without
trusting them.

A snapshot comes from a node, a colleague or a ticket: it is input, never
a path out. What the replay reads of it (:func:`wanted`) is copied, a
directory by walking it without following any link, a tarball member by
member; nothing else is kept:

- **links**: a symbolic link is kept only where it stays inside the part of
  the snapshot it is in (``sys/``, ``proc/``, or the snapshot itself for the
  cgroup files), resolved as the kernel would once the copy's ``sys/`` is
  bound over ``/sys``; any other (absolute, climbing out, through another
  link) becomes an empty regular file, as do hard links: sysfs' links that
  lead out of a partial snapshot (``cpu0/subsystem``) are only needed by
  name. A member whose path goes through a link, or names a parent
  (``..``), is dropped;
- **files**: regular files only, written with mode 0644 and the replaying
  user's ownership (never the member's: no set-user-ID file, no ``chown``);
  devices, FIFOs and sockets are dropped (reading a FIFO would block);
  tarfile's ``data`` filter (Python 3.11.4+) vets each member first where
  it exists;
- **sizes**: a file of more than :data:`MAX_FILE_BYTES`, more than
  :data:`MAX_FILES` files kept, more than :data:`MAX_TOTAL_BYTES` kept, or
  a tarball whose stream runs past :data:`MAX_SCANNED_BYTES` (a
  decompression bomb: 6 KB of bzip2 unpacks to gigabytes) is refused,
  naming the snapshot and what was too large;
- **padding**: GNU tar stores each sysfs file at the 4096 bytes sysfs
  states and pads what it read with NUL bytes ("File shrank by ... bytes;
  padding with zeros"), which no sysfs file ends with: they are stripped
  (a kernel's single NUL after a mask's newline is kept).
'''

import os
import posixpath
import re
import stat
import tarfile
from pathlib import Path

#: The most bytes of one file: ``/proc/cpuinfo`` of a 4096-CPU node is a
#: few MiB; sysfs files are at most a page.
MAX_FILE_BYTES = 16 << 20
#: The most files kept: a 1024-CPU node's CPU and NUMA trees are about
#: 60 000.
MAX_FILES = 200_000
#: The most bytes kept in all.
MAX_TOTAL_BYTES = 256 << 20
#: The most bytes of a tarball's unpacked stream read (a full
#: ``hwloc-gather-topology`` of a large node is tens of MiB).
MAX_SCANNED_BYTES = 1 << 30
#: Entries of a directory snapshot looked at.
MAX_ENTRIES = 1_000_000

#: The size sysfs states for every file, which tar stores.
_SYSFS_FILE_SIZE = 4096

#: The files of a CPU's ``topology/`` and ``cache/indexN/`` that ReFrame's
#: detection, the probe and :func:`~.snapshot.dies` read (and the ids hwloc
#: reads); the rest of each CPU's directory they read is ``cpufreq/``,
#: ``online`` and its ``nodeN`` link. A 128-CPU snapshot is thousands of
#: files, which the replay copies to a temporary directory: only these
#: are.
_TOPOLOGY_READ = frozenset({'core_cpus', 'thread_siblings', 'package_cpus',
                            'core_siblings', 'die_cpus', 'die_id',
                            # hwloc's: the ids a snapshot's reader checks
                            # its masks against
                            'core_id', 'physical_package_id'})
_CACHE_READ = frozenset({'level', 'type', 'size', 'coherency_line_size',
                         'number_of_sets', 'physical_line_partition',
                         'shared_cpu_map'})
#: The cgroup files :mod:`hpc_acceptance.core.allowed_view` reads, under
#: whatever mount point the snapshot's ``proc/mounts`` names.
CGROUP_FILES = frozenset({'cpuset.cpus.effective', 'cpuset.mems.effective',
                          'cpuset.cpus', 'cpuset.mems', 'cpus', 'mems',
                          'memory.max', 'memory.limit_in_bytes'})


class UnsafeSnapshot(RuntimeError):
    '''The snapshot is too large or cannot be read; the message says what
    and names the snapshot.'''


def _read_by_replay(parts):
    '''Whether the path ``parts`` below a snapshot's top (``sys``,
    ``devices``, ``system``, ...) is one the replay reads: ``proc/``, the
    NUMA tree of ``sys/``, the kernel's memory tiers, and what it reads of
    the CPU tree (a full ``/sys``, as hwloc gathers it, also holds every
    device of the node).'''
    if parts[:1] == ['proc']:
        return True

    if parts[:4] == ['sys', 'devices', 'virtual', 'memory_tiering'][
            :len(parts[:4])]:
        return True

    if parts[:3] != ['sys', 'devices', 'system'][:len(parts[:3])]:
        return False

    cpu = parts[4:] if parts[3:4] == ['cpu'] else None
    if not cpu or not re.fullmatch(r'cpu\d+', cpu[0]) or len(cpu) == 1:
        return True

    if cpu[1] == 'topology':
        return len(cpu) == 2 or cpu[2] in _TOPOLOGY_READ
    if cpu[1] == 'cache':
        return len(cpu) < 4 or (len(cpu) == 4 and cpu[3] in _CACHE_READ)
    return cpu[1] in ('cpufreq', 'online') or \
        re.fullmatch(r'node\d+', cpu[1]) is not None


def wanted(parts):
    '''Whether the path ``parts`` of a snapshot (its root directly, or one
    top folder) is one the replay reads; the folders above such paths
    too.'''
    if not parts or parts[-1] in CGROUP_FILES:
        return True
    if parts[0] in ('sys', 'proc'):
        return _read_by_replay(parts)
    return len(parts) == 1 or _read_by_replay(parts[1:])


def _parts(name):
    '''A member's path as its parts, ``./`` and leading ``/`` left out;
    ``None`` where it names a parent (``..``).'''
    path = posixpath.normpath('/' + name.replace('\\', '/')).lstrip('/')
    parts = [p for p in path.split('/') if p not in ('', '.')]
    if '..' in name.split('/') or not parts:
        return None
    return parts


def _unpadded(data):
    if len(data) == _SYSFS_FILE_SIZE and data.endswith(b'\0\0'):
        return data.rstrip(b'\0')
    return data


class _Writer:
    '''Writes a snapshot's files under ``dest``, counting them.'''

    def __init__(self, dest, source):
        self.dest = Path(dest)
        self.source = source
        self.files = 0
        self.total = 0
        #: folders made here: plain folders, no need to look again
        self.made = {self.dest}

    def _place(self, parts):
        '''The path for ``parts`` under ``dest``, its folders made; ``None``
        where a folder on the way is not a plain folder (a link, a file).'''
        directory = self.dest
        for part in parts[:-1]:
            directory = directory / part
            if directory in self.made:
                continue
            try:
                mode = os.lstat(directory).st_mode
            except FileNotFoundError:
                directory.mkdir(mode=0o755)
                self.made.add(directory)
                continue
            if not stat.S_ISDIR(mode):
                return None
        path = directory / parts[-1]
        if os.path.lexists(path):
            return None  # a second member of the same name
        return path

    def directory(self, parts):
        path = self._place(parts)
        if path is not None:
            path.mkdir(mode=0o755)
            self.made.add(path)

    def too_large(self, parts):
        raise UnsafeSnapshot(
            f'{self.source}: {"/".join(parts)} is more than '
            f'{MAX_FILE_BYTES >> 20} MiB: no file of /sys or /proc a '
            f'snapshot needs is')

    def file(self, parts, data):
        if len(data) > MAX_FILE_BYTES:
            self.too_large(parts)
        self.files += 1
        self.total += len(data)
        if self.files > MAX_FILES or self.total > MAX_TOTAL_BYTES:
            raise UnsafeSnapshot(
                f'{self.source}: holds more than {MAX_FILES} files or '
                f'{MAX_TOTAL_BYTES >> 20} MiB that the replay reads: no '
                f'node\'s CPU and NUMA trees are that large')
        path = self._place(parts)
        if path is None:
            return
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL |
                     os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, 'wb') as fp:
            fp.write(_unpadded(data))

    def link(self, parts, target):
        '''A symbolic link, kept as a link (:func:`confine` checks where it
        leads once every file is there), or as an empty file where its
        target is absolute.'''
        path = self._place(parts)
        if path is None:
            return
        if target.startswith('/') or not target:
            self.file(parts, b'')
        else:
            os.symlink(target, path)


def _data_filter(member, dest):
    '''tarfile's ``data`` filter's verdict on ``member``: ``None`` where it
    passes (or Python has no such filter), else why not.'''
    vet = getattr(tarfile, 'data_filter', None)
    if vet is None:
        return None
    try:
        vet(member, str(dest))
    except tarfile.FilterError as err:
        return str(err)
    return None


def unpack(path, dest):
    '''The members of the tarball ``path`` the replay reads, written under
    ``dest``.

    :raises UnsafeSnapshot: where it is too large or unreadable.
    '''
    writer = _Writer(dest, path)
    try:
        with tarfile.open(path) as tar:
            members = 0
            while True:
                member = tar.next()
                if member is None:
                    break
                members += 1
                if tar.offset > MAX_SCANNED_BYTES or members > MAX_ENTRIES:
                    raise UnsafeSnapshot(
                        f'{path}: unpacks to more than '
                        f'{MAX_SCANNED_BYTES >> 30} GiB or {MAX_ENTRIES} '
                        f'members: not a snapshot (a compressed bomb?)')
                _unpack_member(tar, member, writer, dest)
    except (tarfile.TarError, OSError, EOFError) as err:
        raise UnsafeSnapshot(f'{path}: not a readable tarball: {err}') \
            from None
    confine(dest)


def _unpack_member(tar, member, writer, dest):
    parts = _parts(member.name)
    if parts is None or not wanted(parts):
        return
    if member.isdir():
        writer.directory(parts)
    elif member.isreg():
        if member.size > MAX_FILE_BYTES:
            writer.too_large(parts)
        writer.file(parts, tar.extractfile(member).read(MAX_FILE_BYTES + 1))
    elif member.issym() and _data_filter(member, dest) is None:
        writer.link(parts, member.linkname)
    elif member.issym() or member.islnk():
        # a link the data filter refuses, and every hard link: its name
        writer.file(parts, b'')


def copy(directory, dest):
    '''What the replay reads of the snapshot ``directory``, written under
    ``dest``, without following any link in it.

    :raises UnsafeSnapshot: where it is too large.
    '''
    writer = _Writer(dest, directory)
    directory = Path(directory)
    seen = 0
    for top, folders, files in os.walk(directory, followlinks=False):
        here = list(Path(top).relative_to(directory).parts)
        for name in sorted(folders + files):
            seen += 1
            if seen > MAX_ENTRIES:
                raise UnsafeSnapshot(f'{directory}: more than {MAX_ENTRIES} '
                                     f'entries: not a snapshot')
            parts = here + [name]
            if not wanted(parts):
                if name in folders:
                    folders.remove(name)
                continue
            _copy_entry(Path(top) / name, parts, writer)
    confine(dest)


def _copy_entry(source, parts, writer):
    try:
        mode = os.lstat(source).st_mode
        if stat.S_ISLNK(mode):
            target = os.readlink(source)
        elif stat.S_ISREG(mode):
            fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW |
                         os.O_NONBLOCK)
            with os.fdopen(fd, 'rb') as fp:
                if not stat.S_ISREG(os.fstat(fp.fileno()).st_mode):
                    return  # replaced by something else since the lstat
                data = fp.read(MAX_FILE_BYTES + 1)
    except OSError:
        # unreadable (a root-only file read by a user): not copied, as a
        # kernel's snapshot would not have it either
        return

    if stat.S_ISLNK(mode):
        writer.link(parts, target)
    elif stat.S_ISDIR(mode):
        writer.directory(parts)
    elif stat.S_ISREG(mode):
        writer.file(parts, data)


def _home(dest, link):
    '''Where a link under ``dest`` must lead to stay in its part of the
    snapshot: the ``sys`` or ``proc`` folder it is in (bound over the
    host's), else ``dest`` itself.'''
    parts = link.relative_to(dest).parts
    for index, part in enumerate(parts[:-1]):
        if part in ('sys', 'proc'):
            return dest.joinpath(*parts[:index + 1])
    return dest


def confine(dest):
    '''Replace with an empty file every link under ``dest`` that leads out
    of its part of the snapshot (:func:`_home`), resolved through the
    links it goes through, until none does.'''
    dest = Path(os.path.realpath(dest))
    changed = True
    while changed:
        changed = False
        for top, folders, files in os.walk(dest, followlinks=False):
            for name in folders + files:
                link = Path(top) / name
                if not link.is_symlink():
                    continue
                home = Path(os.path.realpath(_home(dest, link)))
                target = Path(os.path.realpath(link))
                if target != home and home not in target.parents:
                    link.unlink()
                    link.touch(mode=0o644)
                    changed = True
