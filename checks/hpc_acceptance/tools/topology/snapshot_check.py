'''Every file of a snapshot that the replay reads, checked against the
format the kernel writes it in, before anything reads it.

ReFrame's detection parses some of them (cache levels, sizes, line sizes,
``shared_cpu_map``) and stops with a Python error on what it cannot
parse; the suite reads the CPU masks and lists, the NUMA distances and
memory, the clocks and the cgroup files; the node-state probe reads Turbo
and SMT switches as words. A file truncated or garbled on its way from the
node (a copy cut short, a mail client, an editor) is found here and named,
one line: ``SNAPSHOT:sys/devices/system/node/node0/cpulist: '0-' is not a
CPU list (such as 0-3,8)``. A file that is missing is no error here: the
kernel leaves out what a node does not have, and what the replay then
cannot count it says.
'''

import re
from pathlib import Path

_MASK = re.compile(r'[0-9a-fA-F]+(,[0-9a-fA-F]+)*')
_LIST = re.compile(r'(\d+(-\d+)?(,\d+(-\d+)?)*)?')
_INT = re.compile(r'-?\d+')
_SIZE = re.compile(r'\d+[KMG]')
_SWITCH = re.compile(r'[01]')

#: what each format is, for the message
_FORMATS = {
    'mask': 'a CPU mask (hexadecimal words such as 00000000,0000ffff)',
    'list': 'a CPU list (such as 0-3,8)',
    'int': 'a whole number',
    'size': 'a cache size (such as 32K)',
    'switch': '0 or 1',
}

_CPU = r'sys/devices/system/cpu'
_NODE = r'sys/devices/system/node'

#: ``(path pattern below the snapshot's root, format)``
_FILES = [
    (rf'{_CPU}/cpu\d+/topology/(core_cpus|thread_siblings|package_cpus|'
     rf'core_siblings|die_cpus)', 'mask'),
    (rf'{_CPU}/cpu\d+/topology/(die_id|core_id|physical_package_id)',
     'int'),
    (rf'{_CPU}/cpu\d+/cache/index\d+/shared_cpu_map', 'cache mask'),
    (rf'{_CPU}/cpu\d+/cache/index\d+/(level|coherency_line_size|'
     rf'number_of_sets|physical_line_partition)', 'whole number'),
    (rf'{_CPU}/cpu\d+/cache/index\d+/size', 'size'),
    (rf'{_CPU}/cpu\d+/online', 'switch'),
    (rf'{_CPU}/(cpu\d+/cpufreq|cpufreq/policy\d+)/(cpuinfo_max_freq|'
     rf'base_frequency)', 'int'),
    (rf'{_CPU}/(online|possible|present|offline)', 'list'),
    (rf'{_CPU}/(intel_pstate/no_turbo|cpufreq/boost|smt/active)', 'switch'),
    (rf'{_NODE}/node\d+/cpumap', 'mask'),
    (rf'{_NODE}/node\d+/cpulist', 'list'),
    (rf'{_NODE}/node\d+/access\d/initiators/(read|write)_bandwidth', 'int'),
    (rf'{_NODE}/(online|possible|has_cpu|has_memory|has_normal_memory)',
     'list'),
    (r'sys/devices/virtual/memory_tiering/memory_tier\d+/nodelist', 'list'),
]
_MATCHERS = [(re.compile(pattern), kind) for pattern, kind in _FILES]

#: Bytes of a file looked at: sysfs files are at most a page.
_READ = 1 << 16


def _problem(kind, text):
    '''Why ``text`` is not of the format ``kind``, or ``None``.'''
    clean = re.sub(r'[\s\x00]', '', text)
    if kind in ('cache mask', 'whole number', 'size'):
        # ReFrame's detection parses these: a NUL byte stops it, and a
        # number with a space inside
        if '\0' in text:
            return ('holds a NUL byte, which ReFrame\'s detection cannot '
                    'read there')
        if kind != 'cache mask':
            clean = text.strip()
        kind = {'cache mask': 'mask', 'whole number': 'int'}.get(kind, kind)
    if not clean and kind != 'list':
        return ('is empty (cut short, or a link that led out of the '
                'snapshot)')
    pattern = {'mask': _MASK, 'list': _LIST, 'int': _INT, 'size': _SIZE,
               'switch': _SWITCH}[kind]
    if pattern.fullmatch(clean):
        return None
    shown = text.strip().replace('\0', '')
    shown = shown if len(shown) <= 40 else shown[:40] + '...'
    return f'{shown!r} is not {_FORMATS[kind]}'


def _read(path):
    with open(path, 'rb') as fp:
        return fp.read(_READ).decode('utf-8', errors='replace')


def problems(root):
    '''``[(path below root, why)]`` of the files of the snapshot at
    ``root`` not in their kernel format, in path order.'''
    root = Path(root)
    found = []
    for base in ('sys/devices/system', 'sys/devices/virtual/memory_tiering'):
        for path in sorted((root / base).rglob('*')):
            if path.is_symlink() or not path.is_file():
                continue
            name = path.relative_to(root).as_posix()
            kind = next((kind for matcher, kind in _MATCHERS
                         if matcher.fullmatch(name)), None)
            if kind is None:
                continue
            why = _problem(kind, _read(path))
            if why:
                found.append((name, why))

    found += _cache_problems(root)
    found += _distance_problems(root)
    found += _meminfo_problems(root)
    return sorted(found)


def _possible_nodes(root):
    '''How many NUMA nodes ``node/possible`` lists, or ``None``.'''
    path = root / _NODE / 'possible'
    if path.is_symlink() or not path.is_file():
        return None
    clean = re.sub(r'[\s\x00]', '', _read(path))
    if not clean or not _LIST.fullmatch(clean):
        return None
    count = 0
    for part in clean.split(','):
        first, _, last = part.partition('-')
        count += int(last or first) - int(first) + 1
    return count


def _cache_problems(root):
    '''ReFrame's detection reads the ``shared_cpu_map`` of every
    ``cache/indexN`` and stops on one that is missing.'''
    found = []
    for index in sorted((root / _CPU).glob('cpu[0-9]*/cache/index[0-9]*')):
        if index.is_dir() and not index.is_symlink() and \
                not (index / 'shared_cpu_map').is_file():
            found.append(((index / 'shared_cpu_map').relative_to(
                root).as_posix(), 'is missing, where ReFrame\'s detection '
                                  'reads it of every cache'))
    return found


def _distance_problems(root):
    '''Each ``nodeN/distance`` must list one whole number per NUMA node
    (online, or possible where a node was taken offline by hand, as in
    hwloc's snapshot of one): a row of another length loses the node's
    SLIT.'''
    nodes = sorted((root / _NODE).glob('node[0-9]*'))
    lengths = {len(nodes), _possible_nodes(root)}
    found = []
    for node in nodes:
        path = node / 'distance'
        if not path.is_file() or path.is_symlink():
            continue
        text = _read(path)
        row = re.sub(r'\x00', '', text).split()
        name = path.relative_to(root).as_posix()
        if not all(_INT.fullmatch(d) for d in row):
            found.append((name, f'{text.strip()[:40]!r} is not a row of '
                                f'whole numbers (NUMA distances)'))
        elif len(row) not in lengths:
            found.append((name, f'lists {len(row)} distances for '
                                f'{len(nodes)} NUMA nodes'))
    return found


def _meminfo_problems(root):
    found = []
    for path in sorted((root / _NODE).glob('node[0-9]*/meminfo')):
        if not path.is_symlink() and path.is_file() and not re.search(
                r'MemTotal:\s+\d+ kB', _read(path)):
            found.append((path.relative_to(root).as_posix(),
                          'has no "MemTotal: N kB" line'))
    meminfo = root / 'proc' / 'meminfo'
    if meminfo.is_file() and not meminfo.is_symlink() and not re.search(
            r'^MemTotal:\s+\d+ kB', _read(meminfo), re.MULTILINE):
        found.append(('proc/meminfo', 'has no "MemTotal: N kB" line'))
    return found


def first_problem(root, source):
    '''One line naming the first file of the snapshot at ``root`` (named
    ``source`` to the user) not in its kernel format, and how many more;
    ``None`` where every file is.'''
    found = problems(root)
    if not found:
        return None

    name, why = found[0]
    more = (f' ({len(found) - 1} more file'
            f'{"s" if len(found) > 2 else ""} like it)'
            if len(found) > 1 else '')
    return (f'{source}:{name}: {why}{more}: the snapshot is damaged; take '
            f'it again (checks/README.md, "Replaying a node")')
