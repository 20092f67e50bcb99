'''What a run may use of its node: the CPUs and NUMA nodes it may run and
allocate on, and the memory its cgroup lets it have.

A Slurm job, a container or ``taskset`` gives a process part of a node;
the node's ``/sys`` still shows all of it. Read here, each where the
kernel states it:

- the cgroup's cpuset: cgroup v2 ``cpuset.cpus.effective`` and
  ``cpuset.mems.effective`` of the process's cgroup (or the nearest
  ancestor that has them, where the cpuset controller is not enabled
  below it); cgroup v1 ``cpuset.cpus`` / ``cpuset.mems``; the legacy
  ``cpuset`` file system's ``cpus`` / ``mems``. The mount points come from
  ``/proc/self/mounts``, the cgroup from ``/proc/self/cgroup`` (else
  ``/proc/self/cpuset``), as hwloc finds them;
- the cgroup's memory limit: cgroup v2 ``memory.max``, v1
  ``memory.limit_in_bytes``, the least along the path from the process's
  cgroup up to its hierarchy's root (a parent's limit binds its children);
- the process's own CPU affinity and memory policy: ``sched_getaffinity``
  (live) and ``Cpus_allowed_list`` / ``Mems_allowed_list`` of
  ``/proc/self/status``.

The same reader runs live (``root='/'``) and on a snapshot's root, where
hwloc-gather-topology keeps ``proc/mounts``, ``proc/self/cgroup``,
``proc/self/cpuset`` and the cgroup files under their mount points. A path
built from a snapshot's mount table stays under the snapshot (a mount
point with ``..`` is refused); a file that is there but garbled is an
:class:`AllowedViewError` naming it.
'''

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Optional

#: A cgroup v1 memory limit at least this large is no limit (the kernel
#: writes PAGE_COUNTER_MAX pages, 9223372036854771712 bytes on x86-64).
_UNLIMITED = 1 << 62

_LIST = re.compile(r'\d+(-\d+)?(,\d+(-\d+)?)*')


class AllowedViewError(ValueError):
    '''A file the view is read from is garbled; the message names it.'''


@dataclass(frozen=True)
class Allowed:
    '''What the process may use; ``None`` where nothing restricts it (or
    the node does not say).'''
    cpus: Optional[frozenset] = None
    #: NUMA node numbers
    mems: Optional[frozenset] = None
    #: bytes
    memory_limit: Optional[int] = None
    #: ``(('cpus', 'where', {0, 1}), ...)``: what each source said
    #: (``memory``: its bytes)
    sources: tuple = ()

    def read_from(self, what, whole=None):
        '''Where the ``what`` (``cpus``, ``mems``, ``memory``) restriction
        was read, as one phrase (``''``: nowhere); with ``whole`` (the
        machine's CPUs or NUMA nodes), only the sources that leave some of
        it out.'''
        return ', '.join(where for name, where, said in self.sources
                         if name == what and (whole is None or
                                              not whole <= said))


def parse_list(text, path):
    '''The numbers of a kernel list (``0-3,8``; empty: none); a garbled
    one is an :class:`AllowedViewError` naming ``path``.'''
    clean = re.sub(r'[\s\x00]', '', text)
    if clean and not _LIST.fullmatch(clean):
        raise AllowedViewError(f'{path}: {_shown(text)} is not a list of '
                               f'CPUs or NUMA nodes (such as 0-3,8)')

    found = set()
    for part in filter(None, clean.split(',')):
        first, _, last = part.partition('-')
        if last and int(last) < int(first):
            raise AllowedViewError(f'{path}: {_shown(text)}: the range '
                                   f'{part} runs backwards')
        if int(last or first) > 1 << 20:
            raise AllowedViewError(f'{path}: {_shown(text)}: {part} is '
                                   f'beyond any machine\'s CPUs')
        found.update(range(int(first), int(last or first) + 1))

    return frozenset(found)


def _shown(text, limit=40):
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + '...')


def _read(path):
    '''The text of ``path``, or ``None`` where it is not a readable
    regular file (a snapshot may lack it; a link is not followed out of a
    snapshot: its copy holds none that lead out).'''
    try:
        with open(path, errors='replace') as fp:
            return fp.read(1 << 16)
    except (OSError, ValueError):
        return None


def _inside(root, path_text):
    '''``root`` joined with the absolute path ``path_text`` of the node
    (a mount point, a cgroup), or ``None`` where it would leave ``root``
    (``..``) or is no absolute path.'''
    path = PurePosixPath(path_text)
    if not path.is_absolute() or '..' in path.parts:
        return None

    return Path(root).joinpath(*path.parts[1:])


def _unescaped(field):
    # /proc/self/mounts writes space, tab, newline and backslash as \ooo
    return re.sub(r'\\([0-7]{3})', lambda m: chr(int(m[1], 8)), field)


@dataclass(frozen=True)
class _Mount:
    point: str
    fstype: str
    options: frozenset


def _mounts(root):
    text = (_read(Path(root) / 'proc/self/mounts') or
            _read(Path(root) / 'proc/mounts') or '')
    found = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] in ('cgroup', 'cgroup2',
                                               'cpuset'):
            found.append(_Mount(_unescaped(fields[1]), fields[2],
                                frozenset(fields[3].split(','))))
    return found


def _cgroups(root):
    '''``{controller or '': path}`` of ``/proc/self/cgroup``; ``''`` is
    the cgroup v2 hierarchy.'''
    found = {}
    for line in (_read(Path(root) / 'proc/self/cgroup') or '').splitlines():
        number, _, rest = line.partition(':')
        controllers, _, path = rest.partition(':')
        if not number.isdigit() or not path.startswith('/'):
            continue
        for controller in controllers.split(',') if controllers else ['']:
            found.setdefault(controller, path)
    return found


def _legacy_cpuset_path(root):
    text = (_read(Path(root) / 'proc/self/cpuset') or '').strip()
    return text if text.startswith('/') else None


def _hierarchy(root, mount, cgroup):
    '''The directories from ``cgroup``'s up to ``mount``'s root, under
    ``root``; ``[]`` where a path would leave ``root``.'''
    base = _inside(root, mount.point)
    here = _inside('/', cgroup)
    if base is None or here is None:
        return []

    parts = here.parts[1:]
    return [base.joinpath(*parts[:n]) for n in range(len(parts), -1, -1)]


def _first(directories, names):
    '''``(path, text)`` of the first of ``names`` in the first of
    ``directories`` that has one (nearest cgroup first).'''
    for directory in directories:
        for name in names:
            text = _read(directory / name)
            if text is not None:
                return directory / name, text
    return None, None


def _cpuset(root, mounts, cgroups):
    '''``(cpus, mems, sources)`` of the cgroup's cpuset.'''
    for mount in mounts:
        if mount.fstype == 'cgroup2':
            path = cgroups.get('') or _legacy_cpuset_path(root)
            names = (('cpuset.cpus.effective',), ('cpuset.mems.effective',))
            kind = 'cgroup v2'
        elif mount.fstype == 'cgroup' and 'cpuset' in mount.options and \
                'noprefix' in mount.options:
            # a cpuset hierarchy mounted as the old file system was
            path = cgroups.get('cpuset') or _legacy_cpuset_path(root)
            names = (('cpus',), ('mems',))
            kind = 'cgroup v1 (noprefix)'
        elif mount.fstype == 'cgroup' and 'cpuset' in mount.options:
            path = cgroups.get('cpuset') or _legacy_cpuset_path(root)
            # as hwloc: the configured sets (the effective ones can lag
            # behind them in a snapshot); the status and the affinity
            # below give what the kernel enforces
            names = (('cpuset.cpus',), ('cpuset.mems',))
            kind = 'cgroup v1'
        elif mount.fstype == 'cpuset':
            path = _legacy_cpuset_path(root)
            names = (('cpus',), ('mems',))
            kind = 'cpuset file system'
        else:
            continue

        if path is None:
            continue
        directories = _hierarchy(root, mount, path)
        cpus_path, cpus_text = _first(directories, names[0])
        mems_path, mems_text = _first(directories, names[1])
        if cpus_text is None and mems_text is None:
            continue

        sources, cpus, mems = [], None, None
        if cpus_text is not None:
            cpus = parse_list(cpus_text, cpus_path)
            sources.append(('cpus', f'{kind} {cpus_path.name} of {path}',
                            cpus))
        if mems_text is not None:
            mems = parse_list(mems_text, mems_path)
            sources.append(('mems', f'{kind} {mems_path.name} of {path}',
                            mems))
        return cpus, mems, sources

    return None, None, []


def _memory_limit(root, mounts, cgroups):
    '''``(bytes, source)`` of the least memory limit on the cgroup's
    path; ``(None, None)`` where none is set.'''
    for mount in mounts:
        if mount.fstype == 'cgroup2':
            path, name = cgroups.get(''), 'memory.max'
        elif mount.fstype == 'cgroup' and 'memory' in mount.options:
            path, name = cgroups.get('memory'), 'memory.limit_in_bytes'
        else:
            continue

        if path is None:
            continue
        least, where = None, None
        for directory in _hierarchy(root, mount, path):
            text = _read(directory / name)
            if text is None or text.strip() == 'max':
                continue
            if not re.fullmatch(r'\s*\d+\s*', text):
                raise AllowedViewError(f'{directory / name}: {_shown(text)} '
                                       f'is not a number of bytes or "max"')
            limit = int(text)
            if limit < _UNLIMITED and (least is None or limit < least):
                least = limit
                cgroup = '/' + '/'.join(directory.relative_to(
                    _inside(root, mount.point)).parts)
                where = f'{name} of {cgroup}'
        if least is not None:
            return least, where

    return None, None


def _status(root):
    '''``(cpus, mems, sources)`` of ``/proc/self/status``.'''
    path = Path(root) / 'proc/self/status'
    text = _read(path)
    if text is None:
        return None, None, []

    found, sources = {}, []
    for field, what in (('Cpus_allowed_list', 'cpus'),
                        ('Mems_allowed_list', 'mems')):
        line = re.search(rf'^{field}:\s*(.*)$', text, re.MULTILINE)
        if line:
            found[what] = parse_list(line[1], f'{path} ({field})')
            sources.append((what, f'{field} of /proc/self/status',
                            found[what]))

    return found.get('cpus'), found.get('mems'), sources


def _meet(a, b):
    if a is None:
        return b
    return a if b is None else a & b


def read(root='/', affinity=None):
    '''The :class:`Allowed` view under ``root`` (``/``: this process; a
    snapshot's root), narrowed by ``affinity`` (this process's
    ``sched_getaffinity``, live) where given.

    :raises AllowedViewError: where a file it reads is garbled.
    '''
    mounts, cgroups = _mounts(root), _cgroups(root)
    cpus, mems, sources = _cpuset(root, mounts, cgroups)
    status_cpus, status_mems, status_sources = _status(root)
    cpus, mems = _meet(cpus, status_cpus), _meet(mems, status_mems)
    sources += status_sources
    if affinity is not None:
        cpus = _meet(cpus, frozenset(affinity))
        sources.append(('cpus', 'the process\'s CPU affinity '
                                '(sched_getaffinity)', frozenset(affinity)))

    limit, where = _memory_limit(root, mounts, cgroups)
    if limit is not None:
        sources.append(('memory', f'the cgroup\'s {where}', limit))

    return Allowed(cpus, mems, limit, tuple(sources))


def of_this_process():
    '''The :class:`Allowed` view of this process.'''
    return read('/', os.sched_getaffinity(0))
