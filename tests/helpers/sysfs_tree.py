'''Real machines' /sys snapshots (tests/fixtures/data/sysfs) changed into
the odd shapes a site's nodes have: CPUs taken offline or absent, sparse
CPU and NUMA node numbering, NUMA nodes without CPUs, caches missing,
dies, sub-NUMA clusters, hybrid cores.

Each change edits the files ReFrame's detection and the node-state probe
read, keeping the kernel's formats (32-bit comma-separated hexadecimal
masks, ``0-3,8`` lists), so that the snapshot stays one a kernel could
have written.
'''

import re
import shutil
import tarfile
from pathlib import Path

from conftest import DATA_DIR

SYSFS_DIR = DATA_DIR / 'sysfs'

_MASKS = ('thread_siblings', 'core_siblings', 'core_cpus', 'package_cpus',
          'die_cpus', 'cluster_cpus', 'shared_cpu_map', 'cpumap')
_LISTS = tuple(f'{name}_list' for name in _MASKS[:-2]) + (
    'shared_cpu_list', 'cpulist')


def fixtures():
    '''The names of the real machines' snapshots.'''
    return sorted(p.name[:-len('.tar.bz2')]
                  for p in SYSFS_DIR.glob('*.tar.bz2'))


def extract(name, dest):
    '''The snapshot ``name`` unpacked under ``dest``: its root.'''
    with tarfile.open(SYSFS_DIR / f'{name}.tar.bz2') as tar:
        # the CPU and NUMA trees and /proc, not the node's every device
        tar.extractall(dest, filter='tar', members=[
            m for m in tar if '/devices/system/' in m.name or
            m.name.endswith('/devices/system') or '/proc' in m.name or
            m.name.count('/') < 2])
    return Path(dest) / name


def cpus_dir(root):
    return root / 'sys' / 'devices' / 'system' / 'cpu'


def nodes_dir(root):
    return root / 'sys' / 'devices' / 'system' / 'node'


def parse_mask(text):
    bits = int(re.sub(r'[\s,\x00]', '', text) or '0', 16)
    return {cpu for cpu in range(bits.bit_length()) if bits >> cpu & 1}


def format_mask(cpus, groups=1):
    bits = sum(1 << cpu for cpu in cpus)
    groups = max(groups, (max(cpus, default=0) // 32) + 1)
    return ','.join(f'{bits >> (32 * g) & 0xffffffff:08x}'
                    for g in reversed(range(groups)))


def parse_list(text):
    cpus = set()
    for part in re.sub(r'[\s\x00]', '', text).split(','):
        if part:
            first, _, last = part.partition('-')
            cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def format_list(cpus):
    ranges, cpus = [], sorted(cpus)
    for cpu in cpus:
        if ranges and cpu == ranges[-1][1] + 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ','.join(str(a) if a == b else f'{a}-{b}' for a, b in ranges)


def _mask_files(root):
    system = root / 'sys' / 'devices' / 'system'
    for path in system.rglob('*'):
        if path.is_file() and not path.is_symlink() and \
                path.name in _MASKS + _LISTS:
            yield path


def map_cpus(root, change):
    '''Rewrite every CPU mask and list with ``change(set) -> set``.'''
    for path in _mask_files(root):
        text = path.read_text()
        if path.name in _MASKS:
            groups = len(text.strip('\n\x00').split(','))
            path.write_text(format_mask(change(parse_mask(text)), groups) +
                            '\n')
        else:
            path.write_text(format_list(change(parse_list(text))) + '\n')


def _online_list(root, change):
    online = cpus_dir(root) / 'online'
    if online.exists():
        online.write_text(format_list(change(parse_list(
            online.read_text()))) + '\n')


def offline(root, cpus):
    '''Take ``cpus`` offline as the kernel does: no topology or caches,
    ``online`` 0, gone from every mask.'''
    for cpu in cpus:
        directory = cpus_dir(root) / f'cpu{cpu}'
        shutil.rmtree(directory / 'topology', ignore_errors=True)
        shutil.rmtree(directory / 'cache', ignore_errors=True)
        (directory / 'online').write_text('0\n')

    map_cpus(root, lambda found: found - set(cpus))
    _online_list(root, lambda found: found - set(cpus))


def remove(root, cpus):
    '''``cpus`` do not exist (a hybrid CPU's efficiency cores have no
    second thread).'''
    for cpu in cpus:
        shutil.rmtree(cpus_dir(root) / f'cpu{cpu}')
        for node in nodes_dir(root).glob('node[0-9]*'):
            entry = node / f'cpu{cpu}'
            if entry.exists() or entry.is_symlink():
                entry.unlink()

    map_cpus(root, lambda found: found - set(cpus))
    _online_list(root, lambda found: found - set(cpus))


def renumber(root, mapping):
    '''CPU ``n`` becomes CPU ``mapping[n]`` (sparse numbering).'''
    directory = cpus_dir(root)
    for cpu in mapping:
        (directory / f'cpu{cpu}').rename(directory / f'tmp-cpu{cpu}')
    for cpu, new in mapping.items():
        (directory / f'tmp-cpu{cpu}').rename(directory / f'cpu{new}')
    for node in nodes_dir(root).glob('node[0-9]*'):
        for cpu in mapping:
            entry = node / f'cpu{cpu}'
            if entry.exists() or entry.is_symlink():
                entry.rename(node / f'tmp-cpu{cpu}')
        for cpu, new in mapping.items():
            entry = node / f'tmp-cpu{cpu}'
            if entry.exists() or entry.is_symlink():
                entry.rename(node / f'cpu{new}')

    def change(found):
        return {mapping.get(cpu, cpu) for cpu in found}

    map_cpus(root, change)
    _online_list(root, change)
    cpuinfo = root / 'proc' / 'cpuinfo'
    cpuinfo.write_text(re.sub(
        r'^(processor\s*:\s*)(\d+)$',
        lambda m: f'{m[1]}{mapping.get(int(m[2]), int(m[2]))}',
        cpuinfo.read_text(), flags=re.MULTILINE))


def set_numa_nodes(root, groups, memory_kb=16 * 2**20):
    '''The NUMA nodes are ``{node id: CPUs}`` (an empty set: a node with
    memory only).'''
    for node in nodes_dir(root).glob('node[0-9]*'):
        shutil.rmtree(node)
    for cpu_dir in cpus_dir(root).glob('cpu[0-9]*'):
        for link in cpu_dir.glob('node[0-9]*'):
            link.unlink()

    groups_of_cpumap = len((cpus_dir(root) / 'cpu0' / 'topology' /
                            'thread_siblings').read_text().split(','))
    for node, cpus in groups.items():
        directory = nodes_dir(root) / f'node{node}'
        directory.mkdir(parents=True)
        (directory / 'cpumap').write_text(
            format_mask(cpus, groups_of_cpumap) + '\n')
        (directory / 'cpulist').write_text(format_list(cpus) + '\n')
        (directory / 'meminfo').write_text(
            f'Node {node} MemTotal:       {memory_kb} kB\n')
        for cpu in cpus:
            (directory / f'cpu{cpu}').symlink_to(
                f'../../cpu/cpu{cpu}')
            (cpus_dir(root) / f'cpu{cpu}' / f'node{node}').symlink_to(
                f'../../node/node{node}')

    for name in ('online', 'possible', 'has_cpu', 'has_memory',
                 'has_normal_memory'):
        path = nodes_dir(root) / name
        with_cpus = {n for n, cpus in groups.items() if cpus}
        chosen = with_cpus if name == 'has_cpu' else set(groups)
        path.write_text(format_list(chosen) + '\n')


def _index(cpu_dir, level, kind=('Data', 'Unified')):
    for index in sorted((cpu_dir / 'cache').glob('index[0-9]*')):
        if (int((index / 'level').read_text()) == level and
                (index / 'type').read_text().strip() in kind):
            return index
    return None


def set_cache(root, level, groups, size_kb):
    '''Level ``level``'s instances share the CPU sets ``groups`` and hold
    ``size_kb`` each.'''
    for cpus in groups:
        for cpu in cpus:
            index = _index(cpus_dir(root) / f'cpu{cpu}', level)
            groups_of_mask = len((index / 'shared_cpu_map').read_text()
                                 .split(','))
            (index / 'shared_cpu_map').write_text(
                format_mask(cpus, groups_of_mask) + '\n')
            listed = index / 'shared_cpu_list'
            if listed.exists():
                listed.write_text(format_list(cpus) + '\n')
            (index / 'size').write_text(f'{size_kb}K\n')


def drop_cache(root, level, cpus=None):
    '''No level ``level`` in sysfs, for ``cpus`` (default: all).'''
    for cpu_dir in cpus_dir(root).glob('cpu[0-9]*'):
        cpu = int(cpu_dir.name[3:])
        if cpus is not None and cpu not in cpus:
            continue
        index = _index(cpu_dir, level)
        if index is not None:
            shutil.rmtree(index)


def set_dies(root, groups):
    '''Each CPU set of ``groups`` is one die of its package.'''
    groups_of_mask = len((cpus_dir(root) / 'cpu0' / 'topology' /
                          'thread_siblings').read_text().split(','))
    for die, cpus in enumerate(groups):
        for cpu in cpus:
            topology = cpus_dir(root) / f'cpu{cpu}' / 'topology'
            (topology / 'die_id').write_text(f'{die}\n')
            (topology / 'die_cpus').write_text(
                format_mask(cpus, groups_of_mask) + '\n')
            (topology / 'die_cpus_list').write_text(format_list(cpus) + '\n')
            package = topology / 'package_cpus'
            if not package.exists():
                package.write_text(
                    (topology / 'core_siblings').read_text())
