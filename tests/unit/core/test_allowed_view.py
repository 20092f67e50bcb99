'''What a run may use of its node (hpc_acceptance.core.allowed_view,
numa_memory, node_view): read from fake roots laid out as the kernel and
hwloc-gather-topology lay them out, and from this process.'''

import os
import subprocess
import sys

import pytest

from helpers.descriptions import described
from hpc_acceptance.core import (allowed_view, node_shape, node_view,
                                 numa_memory)

GIB = 2**30


def tree(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_slurm_step_s_cgroup_v2_cpuset_and_its_job_s_memory_limit(
        tmp_path):
    step = 'sys/fs/cgroup/slurm/job_1/step_0'
    root = tree(tmp_path, {
        'proc/self/mounts': 'cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n',
        'proc/self/cgroup': '0::/slurm/job_1/step_0\n',
        f'{step}/cpuset.cpus.effective': '2-3,8\n',
        f'{step}/cpuset.mems.effective': '0\n',
        f'{step}/memory.max': 'max\n',
        'sys/fs/cgroup/slurm/job_1/memory.max': f'{8 * GIB}\n',
        'sys/fs/cgroup/slurm/memory.max': f'{64 * GIB}\n',
    })
    found = allowed_view.read(root)
    assert (found.cpus, found.mems, found.memory_limit) == (
        {2, 3, 8}, {0}, 8 * GIB)
    assert found.read_from('cpus') == (
        'cgroup v2 cpuset.cpus.effective of /slurm/job_1/step_0')
    assert found.read_from('memory') == (
        'the cgroup\'s memory.max of /slurm/job_1')


def test_without_the_cpuset_controller_the_nearest_ancestor_s_applies(
        tmp_path):
    root = tree(tmp_path, {
        'proc/mounts': 'none /cgroup/unified cgroup2 rw 0 0\n',
        'proc/self/cpuset': '/uid_2008/job_15389/step_0\n',
        'cgroup/unified/uid_2008/job_15389/cpuset.cpus.effective': '0-5\n',
    })
    assert allowed_view.read(root).cpus == set(range(6))


def test_cgroup_v1_and_the_legacy_cpuset_file_system(tmp_path):
    v1 = tree(tmp_path / 'v1', {
        'proc/mounts': ('cgroup /sys/fs/cgroup/cpuset cgroup rw,cpuset 0 0\n'
                        'cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\n'),
        'proc/self/cgroup': '9:cpuset:/jjh\n5:memory:/\n',
        'sys/fs/cgroup/cpuset/jjh/cpuset.cpus': '0-87\n',
        'sys/fs/cgroup/cpuset/jjh/cpuset.mems': '0,8\n',
        # PAGE_COUNTER_MAX: no limit
        'sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n',
    })
    found = allowed_view.read(v1)
    assert (found.cpus, found.mems, found.memory_limit) == (
        set(range(88)), {0, 8}, None)
    # a cpuset hierarchy mounted noprefix (Torque's, hwloc's 40-CPU Xeon)
    noprefix = tree(tmp_path / 'noprefix', {
        'proc/mounts': 'none /dev/cpuset cgroup rw,cpuset,noprefix 0 0\n',
        'proc/self/cpuset': '/torque/5\n',
        'dev/cpuset/torque/5/cpus': '36\n',
        'dev/cpuset/torque/5/mems': '0-3\n'})
    assert allowed_view.read(noprefix).cpus == {36}
    legacy = tree(tmp_path / 'legacy', {
        'proc/mounts': 'none /dev/cpuset cpuset rw 0 0\n',
        'proc/self/cpuset': '/dummy\n',
        'dev/cpuset/dummy/cpus': '0-6,12-15\n',
        'dev/cpuset/dummy/mems': '1-4\n'})
    assert allowed_view.read(legacy).mems == {1, 2, 3, 4}


def test_a_garbled_file_is_named_and_a_path_out_is_not_taken(tmp_path):
    root = tree(tmp_path / 'snap', {
        'proc/mounts': 'cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n',
        'proc/self/cgroup': '0::/job\n',
        'sys/fs/cgroup/job/cpuset.cpus.effective': '0-\n'})
    with pytest.raises(allowed_view.AllowedViewError,
                       match=r"job/cpuset.cpus.effective: '0-' is not a list"):
        allowed_view.read(root)

    outside = tree(tmp_path / 'outside', {'cpuset.cpus.effective': '0\n'})
    escaping = tree(tmp_path / 'escaping', {
        'proc/mounts': f'cgroup2 /../{outside.name} cgroup2 rw 0 0\n',
        'proc/self/cgroup': '0::/\n'})
    assert allowed_view.read(escaping).cpus is None


def test_this_process_under_taskset_sees_one_cpu():
    cpu = min(os.sched_getaffinity(0))
    code = ('from hpc_acceptance.core import allowed_view; '
            'print(sorted(allowed_view.of_this_process().cpus))')
    done = subprocess.run(['taskset', '-c', str(cpu), sys.executable, '-c',
                           code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f'[{cpu}]'


def numa_tree(root, nodes, tiers=None, bandwidth=None, memtotal_kb=None):
    '''NUMA nodes ``{node: (cpu list, MemTotal kB)}`` as sysfs lists
    them.'''
    files = {'sys/devices/system/cpu/online': '0-255\n'}
    for node, (cpus, kb) in nodes.items():
        base = f'sys/devices/system/node/node{node}'
        files[f'{base}/cpulist'] = f'{cpus}\n'
        files[f'{base}/meminfo'] = f'Node {node} MemTotal:   {kb} kB\n'
        if bandwidth and node in bandwidth:
            files[f'{base}/access0/initiators/read_bandwidth'] = \
                f'{bandwidth[node]}\n'
    for tier, listed in (tiers or {}).items():
        files[f'sys/devices/virtual/memory_tiering/memory_tier{tier}/'
              f'nodelist'] = f'{listed}\n'
    if memtotal_kb:
        files['proc/meminfo'] = f'MemTotal:       {memtotal_kb} kB\n'
    return tree(root, files)


def test_memory_kinds_from_the_kernel_s_tiers_and_the_hmat_s_bandwidth(
        tmp_path):
    tiered = numa_tree(tmp_path / 'tiers', {
        0: ('0-3', 16 << 20), 1: ('4-7', 16 << 20), 2: ('', 16 << 20),
        3: ('', 64 << 20)}, tiers={1: '2', 4: '0-1', 12: '3'})
    kinds = {n.node: n.kind for n in numa_memory.read(tiered / 'sys')}
    assert kinds == {0: numa_memory.MAIN, 1: numa_memory.MAIN,
                     2: numa_memory.FASTER, 3: numa_memory.SLOWER}
    measured = numa_memory.read(numa_tree(tmp_path / 'hmat', {
        0: ('0-1', 1 << 20), 1: ('2-3', 1 << 20), 2: ('4-5', 1 << 20),
        4: ('', 1 << 20), 6: ('', 1 << 20)},
        bandwidth={0: 1000, 1: 1000, 2: 10000, 4: 10000, 6: 100}) / 'sys')
    assert [n.kind for n in measured] == [
        numa_memory.MAIN, numa_memory.MAIN, numa_memory.FASTER,
        numa_memory.FASTER, numa_memory.SLOWER]
    assert measured[2].evidence == (
        'access0 read bandwidth 10000 MB/s (the nodes with CPUs: 1000)')
    plain = numa_memory.read(numa_tree(tmp_path / 'plain', {
        0: ('0-3', 1 << 20), 250: ('', 1 << 20)}) / 'sys')
    assert [n.kind for n in plain] == [numa_memory.MAIN, numa_memory.UNKNOWN]


def test_the_memory_a_run_sizes_by_and_why_it_is_not_memtotal(tmp_path):
    # a POWER node: 2 nodes with CPUs, 6 of GPU memory; the cgroup allows
    # node 0 only and 100 GiB
    nodes = {0: ('0-87', 124 << 20), 8: ('88-175', 128 << 20)}
    nodes.update({n: ('', 15 << 20) for n in range(250, 256)})
    root = numa_tree(tmp_path, nodes, memtotal_kb=342 << 20)
    read = numa_memory.read(root / 'sys')
    whole = numa_memory.usable(read, allowed_view.Allowed(), 342 * GIB)
    assert whole.memory_bytes == 252 * GIB
    [why] = whole.why
    assert why.startswith('NUMA nodes 250, 251, 252, 253, 254, 255 without '
                          'CPUs hold 90 GiB')
    allowed = allowed_view.Allowed(mems=frozenset({0}),
                                   memory_limit=100 * GIB,
                                   sources=(('memory', 'memory.max of /j',
                                             100 * GIB),))
    limited = numa_memory.usable(read, allowed, 342 * GIB)
    assert limited.memory_bytes == 100 * GIB
    assert limited.why[-1] == ('the cgroup limits the run to 100 GiB '
                               '(memory.max of /j)')
    offline = numa_memory.usable(read[1:2], allowed_view.Allowed(),
                                 253 * GIB, offline_nodes=(0,))
    assert offline.why == (
        'MemTotal counts 125 GiB that no online NUMA node holds (NUMA node '
        '0 offline)',)


def test_the_shape_is_planned_on_what_the_run_may_use(tmp_path):
    # 4 sockets of 8 cores, a NUMA node per 4; the run may use CPUs 0-5
    # and nodes 0-5, as a Slurm job of 6 CPUs
    cores = [{c} for c in range(32)]
    info = described(cores, [set(range(s, s + 8)) for s in range(0, 32, 8)],
                     nodes=[set(range(n, n + 4)) for n in range(0, 32, 4)],
                     caches=[(1, 65536, cores)])
    root = numa_tree(tmp_path, {n: (f'{4 * n}-{4 * n + 3}', 16 << 20)
                                for n in range(8)},
                     memtotal_kb=132295672)
    allowed = allowed_view.Allowed(
        frozenset(range(6)), frozenset(range(6)), None,
        (('cpus', 'cgroup v2 cpuset.cpus.effective of /job', set(range(6))),
         ('mems', 'cgroup v2 cpuset.mems.effective of /job', set(range(6)))))
    viewed = node_view.with_view(info, root / 'sys', root / 'proc', allowed)
    node = node_shape.shape(viewed)
    assert (node.core_count, node.socket_count, len(node.numa_nodes),
            len(node.numa_nodes_with_cpus)) == (6, 1, 6, 2)
    assert node_view.memory_bytes(viewed) == 96 * GIB
    assert node_view.summary(node).startswith(
        '6 of 32 CPUs, NUMA nodes 0-5 of 8, 96 of 126.2 GiB of memory: '
        'planned on what this run may use (CPUs: cgroup v2 '
        'cpuset.cpus.effective of /job; NUMA nodes: cgroup v2 '
        'cpuset.mems.effective of /job;')
    # ReFrame's own figures stay the machine's: a job's probe still tells
    # a stale description
    assert viewed['num_cpus'] == 32
    assert node_shape.shape(info).core_count == 32

    with pytest.raises(node_view.ViewError, match='none of which is online'):
        node_view.with_view(info, root / 'sys', root / 'proc',
                            allowed_view.Allowed(frozenset({99})))


def test_nodes_holding_less_than_is_free_are_not_believed(tmp_path):
    # a Firecracker guest: its one node says 12 GiB, 20 GiB are free; no
    # node is offline to explain it: MemTotal
    read = numa_memory.read(numa_tree(tmp_path, {0: ('0-1', 12 << 20)}) /
                            'sys')
    guest = numa_memory.usable(read, allowed_view.Allowed(), 24 * GIB,
                               memfree_bytes=20 * GIB)
    assert (guest.memory_bytes, guest.why) == (24 * GIB, ())
    # a node taken offline explains it: the online node's memory
    offline = numa_memory.usable(read, allowed_view.Allowed(), 24 * GIB,
                                 offline_nodes=(1,), memfree_bytes=20 * GIB)
    assert offline.memory_bytes == 12 * GIB
