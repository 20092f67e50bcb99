'''The suite on sixteen real machines (tests/fixtures/data/sysfs: their
/sys and /proc/cpuinfo from hwloc's test data, with hwloc's lstopo output
of what a process there may use beside each), replayed by
``hpc-acceptance topology`` as a site would run it: ReFrame's detection on
the snapshot in a private mount namespace, then every test case's own
setup hooks.

Two kinds of assertion: the counts against hwloc's, with each deliberate
difference named and why; and the decisions against rules written here
from the machine's shape as the snapshot's own files give it (packages
from ``physical_package_id``, NUMA nodes and distances from ``node/nodeN``,
ISA from the CPU flags), not from the suite's reading of it. The sizes of
the working sets and the kinds of core: test_topology_fixture_sizes.py.

The snapshots are replayed once for both files, with the odd shapes
(the fixture ``replays`` of tests/conftest.py).
'''

import json
import math

import archspec.cpu
import pytest

from helpers import sysfs_tree
from helpers.replay import Machine, decisions, lstopo, parameters, places

FIXTURES = sysfs_tree.fixtures()

BULLDOZER = '64amd64-4s2n4ca2co'
CONFLICTS = '40intel64-4n10c+pci-conflicts'
GUEST = 'fakecpuid1f-64intel64-2p4d2n2c2t'
OPTERON = '48amd64-4pa2n6c-sparse'
SNC = 'memorysidecaches'

#: Packages and caches of the allowed view the suite counts otherwise than
#: hwloc, on purpose: hwloc keeps a package (and the L3 of an Opteron's
#: NUMA node) that holds an allowed NUMA node but no allowed CPU, for its
#: memory may be allocated on; the suite counts the sockets and cache
#: instances a rank or thread can run on.
WITH_ALLOWED_CPUS = {
    '32amd64-4s2n4c-cgroup2': {'sockets': 1, 'l3': {5240832: 2}},
    '16amd64-8n2c-cpusets': {'sockets': 6},
}

#: Where the suite counts otherwise than hwloc, on purpose, and why.
DIFFERENCES = {
    CONFLICTS: {
        # cpu3's core_siblings says CPUs 0-3 are its package and cpu2's L3
        # shared_cpu_map says CPUs 0-3 share it, against the other 39 CPUs'
        # masks. hwloc repairs the tree into 3 packages and 3 L3s, ReFrame
        # counts 5 sockets and two kinds of L3; both are guesses at a node
        # whose sysfs contradicts itself. The suite uses neither: sockets
        # and caches are unusable, and what needs them skips saying so.
        'sockets': 'sockets', 'l3': 'caches',
    },
}


@pytest.fixture(scope='module')
def machines():
    return {name: Machine.of_tarball(sysfs_tree.SYSFS_DIR /
                                     f'{name}.tar.bz2')
            for name in FIXTURES}


@pytest.fixture(scope='module')
def reports(replays):
    return {name: replays[name] for name in FIXTURES}


def hwloc_of(name):
    return lstopo(sysfs_tree.SYSFS_DIR / f'{name}.lstopo.txt')


def test_every_snapshot_of_the_fixtures_is_tested():
    assert len(FIXTURES) == 16
    assert {BULLDOZER, CONFLICTS, GUEST, OPTERON, SNC} < set(FIXTURES)
    assert set(WITH_ALLOWED_CPUS) < set(FIXTURES)


def as_printed(size):
    '''``size`` as lstopo prints it: in the largest binary unit of which
    it is at least 10, rounded (27.5 MiB of L3 is "28MiB").'''
    for scale in (2**30, 2**20, 2**10):
        if size >= 10 * scale:
            return int(size / scale + 0.5) * scale
    return size


@pytest.mark.parametrize('name', FIXTURES)
def test_counts_agree_with_hwloc(name, reports):
    node = reports[name]['node']
    hwloc = hwloc_of(name)
    different = DIFFERENCES.get(name, {})
    suite = {'sockets': node['sockets'], 'numa': node['numa_nodes'],
             'cores': node['cores'], 'pus': node['hardware_threads']}
    allowed = WITH_ALLOWED_CPUS.get(name, {})
    hwloc_counts = {'sockets': allowed.get('sockets', hwloc['packages']),
                    'numa': hwloc['numa'], 'cores': hwloc['cores'],
                    'pus': hwloc['pus']}
    for what, count in hwloc_counts.items():
        if what in different:
            assert different[what] in node['unusable'], what
        else:
            assert suite[what] == count, what

    caches = {c['level']: {as_printed(int(size)): n
                           for size, n in c['sizes'].items()}
              for c in node['caches']}
    levels = {level for level in hwloc['caches'] if level not in different}
    assert {level: caches[level] for level in levels} == {
        level: allowed.get(level, hwloc['caches'][level])
        for level in levels}
    for level in set(hwloc['caches']) - levels:
        assert 'inconsistent' in node['unusable'][different[level]]
        assert level.upper() in node['unusable'][different[level]]


@pytest.mark.parametrize('name', FIXTURES)
def test_no_setup_fails_and_every_skip_says_why(name, reports):
    for mode in ('nightly', 'post-upgrade'):
        for d in reports[name]['modes'][mode]:
            assert d['failure'] is None, (d['name'], d['failure'])
            assert d['skip'] is None or len(d['skip']) > 30, d['name']
    assert reports[name]['node']['topology_changed'] is None


@pytest.mark.parametrize('name', FIXTURES)
def test_the_report_is_the_same_each_time(name, reports):
    # the snapshot's temporary copy is named as the user named the
    # snapshot, so the JSON of two replays is the same
    text = json.dumps(reports[name])
    assert 'hpc-acceptance-snapshot-' not in text


def test_bulldozer_modules_are_two_cores_where_reframe_counts_one(reports):
    # ReFrame: 32 cores of 2 threads (the kernel lists a module's two
    # cores as thread siblings); hwloc and the suite: 64 cores of one, for
    # each has its own L1 data cache and integer units (AMD family 15h),
    # and Open MPI and Slurm bind to hwloc's cores
    node = reports[BULLDOZER]['node']
    assert (node['reframe']['num_cpus_per_core'],
            node['reframe']['num_cores']) == (2, 32)
    assert (node['cores'], node['threads_per_core']) == (64, [1])
    assert any('Bulldozer' in note for note in node['notes'])
    for d in reports[BULLDOZER]['modes']['post-upgrade']:
        if parameters(d['name'])['smt'] != 'as-configured':
            assert 'Bulldozer module' in d['skip']


def test_an_smt_guest_s_threads_with_their_own_l1_are_threads(reports):
    # a QEMU guest gives each hardware thread its own L1d: an Intel CPU,
    # so two threads of a core, as hwloc counts them, not Bulldozer modules
    report = reports[GUEST]
    node = report['node']
    assert (node['cores'], node['threads_per_core']) == (32, [2])
    assert any('threads of one core all the same' in note
               for note in node['notes'])
    [hpcc] = decisions(report, 'nightly', 'HpccCheck').values()
    assert (hpcc['decided']['num_tasks'],
            hpcc['decided']['process_grid']) == (32, '4x8')
    smt = {parameters(d['name'])['smt']: d
           for d in decisions(report, 'post-upgrade', 'HpccCheck').values()
           if '%turbo=as-configured' in d['name']}
    assert smt['on']['decided']['num_tasks'] == 64
    assert smt['off']['decided']['num_tasks'] == 32


@pytest.mark.parametrize('name', FIXTURES)
def test_smt_off_runs_one_thread_per_core_and_on_every_thread(name, reports):
    hwloc = hwloc_of(name)
    smt = hwloc['pus'] > hwloc['cores']
    for d in decisions(reports[name], 'post-upgrade').values():
        asked = parameters(d['name'])['smt']
        if asked == 'as-configured':
            continue
        if not smt:
            assert 'SMT is absent or disabled' in d['skip'], d['name']
            continue
        if d['skip'] or 'threads=all_cores' not in d['name'] or \
                'openmp' not in d['decided']:
            continue
        found = places(d)
        if asked == 'off':
            # a place per core, holding all of its hardware threads
            assert len(found) == hwloc['cores']
            assert sum(len(place) for place in found) == hwloc['pus']
        else:
            assert len(found) == hwloc['pus']
            assert all(len(place) == 1 for place in found)


def lacking(machine, variant):
    '''What ``machine``'s flags lack of an ISA variant's archspec level,
    SSE3 being ``pni`` to the kernel.'''
    target = {'sse4.2': 'x86_64_v2', 'avx': 'x86_64_v2', 'avx2': 'x86_64_v3',
              'avx512': 'x86_64_v4'}[variant]
    needed = set(archspec.cpu.TARGETS[target].features)
    if variant == 'avx':
        needed.add('avx')
    flags = machine.flags | ({'sse3'} if 'pni' in machine.flags else set())
    return sorted(needed - flags)


@pytest.mark.parametrize('name', FIXTURES)
def test_isa_variants_run_only_where_the_cpu_has_the_instructions(
        name, reports, machines):
    machine = machines[name]
    for d in decisions(reports[name], 'post-upgrade').values():
        asked = parameters(d['name'])['isa']
        if asked == 'native':
            assert not (d['skip'] or '').startswith('isa=')
            continue
        if not machine.x86:
            assert 'only native runs here' in d['skip'], d['name']
        elif lacking(machine, asked):
            # named from the node's own flags
            assert d['skip'].startswith(f'isa={asked}: the CPU'), d['name']
            assert d['skip'].endswith(
                'its flags in /proc/cpuinfo lack '
                + ', '.join(lacking(machine, asked))), d['skip']
        else:
            assert not (d['skip'] or '').startswith('isa='), d['name']


def numa_run(report):
    [d] = decisions(report, 'nightly', 'MemoryNumaCheck').values()
    return d


def option(decision, name):
    [value] = [o.split('=', 1)[1]
               for o in decision['decided']['program_options']
               if o.startswith(f'--{name}=')] or [None]
    return value


@pytest.mark.parametrize('name', FIXTURES)
def test_the_numa_check_pairs_every_thread_with_remote_memory(
        name, reports, machines):
    machine = machines[name]
    d = numa_run(reports[name])
    if len(machine.numa_nodes_with_cpus()) < 2:
        assert '1 NUMA node' in d['skip']
        return
    if name in DIFFERENCES:
        # its size is four times the caches, which contradict themselves
        assert 'inconsistent' in d['skip']
        return

    threads = places(d)
    partners = [int(p) for p in option(d, 'partners').split(',')]
    assert sorted(partners) == list(range(len(threads)))
    for thread, partner in enumerate(partners):
        home, away = threads[thread], threads[partner]
        assert {machine.node[c] for c in home} != \
            {machine.node[c] for c in away}
        if len(machine.packages) > 1:
            # remote means the other end of the link between the sockets
            assert {machine.package[c] for c in home} != \
                {machine.package[c] for c in away}


@pytest.mark.parametrize('name', FIXTURES)
def test_every_distance_of_the_slit_is_measured_apart(name, reports,
                                                      machines):
    # one remote pass per distance between the nodes of the threads, each
    # thread's partner on a node at that distance from its own
    machine = machines[name]
    d = numa_run(reports[name])
    if d['skip']:
        return
    threads = places(d)
    nodes = {machine.node[min(place)] for place in threads}
    remote = sorted({machine.distances[a][b] for a in nodes for b in nodes
                     if a != b}) if machine.distances else []
    if len(remote) < 2:
        assert option(d, 'distances') is None
        return

    measured = {}
    for part in option(d, 'distances').split('/'):
        distance, partners = part.split(':')
        # '-': the thread rests, its node having no node that far
        measured[int(distance)] = [None if p == '-' else int(p)
                                   for p in partners.split(',')]
    assert sorted(measured) == remote
    for distance, partners in measured.items():
        taking = [p for p in partners if p is not None]
        # one pair of nodes at least, each block read by one thread
        assert len(taking) >= 2 and len(set(taking)) == len(taking)
        for thread, partner in enumerate(partners):
            if partner is None:
                continue
            home = machine.node[min(threads[thread])]
            away = machine.node[min(threads[partner])]
            assert machine.distances[home][away] == distance
    assert d['decided']['distance_classes'].startswith(
        'measured apart: distance ' + ', '.join(map(str, remote)))


def test_a_4_socket_opteron_s_two_hop_links_are_measured(reports):
    for name in (BULLDOZER, OPTERON):
        assert '16:' in option(numa_run(reports[name]), 'distances')
        assert '/22:' in option(numa_run(reports[name]), 'distances')
    # a sub-NUMA cluster's neighbour beside the other socket
    assert option(numa_run(reports[SNC]), 'distances').startswith('11:')


@pytest.mark.parametrize('name', FIXTURES)
def test_network_ranks_sit_on_the_sockets_the_placement_names(
        name, reports, machines):
    package = machines[name].package
    for d in decisions(reports[name], 'nightly').values():
        placement = parameters(d['name']).get('placement')
        if placement not in ('same_socket', 'cross_socket', 'all_cores'):
            continue
        if name in DIFFERENCES:
            assert 'inconsistent' in d['skip'], d['name']
            continue
        if d['skip']:
            assert 'socket' in d['skip'], d['name']
            continue
        ranks = [{package[int(c)] for c in cpus.replace('-', ',').split(',')}
                 for cpus in d['decided']['expected_cpus']]
        assert all(len(sockets) == 1 for sockets in ranks)
        if placement == 'same_socket':
            assert ranks[0] == ranks[1]
        elif placement == 'cross_socket':
            assert ranks[0] != ranks[1]
        elif len(machines[name].packages) > 1:
            # every rank paired with rank n-1-r on another socket
            for rank in range(len(ranks)):
                assert ranks[rank] != ranks[len(ranks) - 1 - rank]


@pytest.mark.parametrize('name', FIXTURES)
def test_hpcc_fills_the_cores_and_its_share_of_memory(name, reports,
                                                      machines):
    memory = machines[name].memory_bytes()
    cores = hwloc_of(name)['cores']
    for mode in ('nightly', 'post-upgrade'):
        [d] = [d for d in decisions(reports[name], mode,
                                    'HpccCheck').values()
               if '%isa=native %turbo=as-configured %smt=as-configured' in
               d['name']]
        if not memory:
            assert 'does not say how much memory' in d['skip']
            continue
        decided = d['decided']
        p, q = map(int, decided['process_grid'].split('x'))
        assert decided['num_tasks'] == p * q == cores
        assert p <= q and q - p <= cores
        n, nb = decided['problem_size'], decided['block_size']
        share = float(decided['memory_fraction']) * memory
        # the fraction of memory, unless that leaves a process fewer than
        # 4 blocks each way: then just 4 of them
        least = 4 * nb * q
        assert n % nb == 0
        assert 8 * n**2 <= share < 8 * (n + nb)**2 or (
            n == least and share < 8 * n**2)
        rows, columns = map(int, decided['blocks_per_process'].split('x'))
        assert (rows, columns) == (n // nb // p, n // nb // q)
        assert min(rows, columns) >= 4


@pytest.mark.parametrize('name', FIXTURES)
def test_npb_ranks_are_one_per_core_and_never_more(name, reports):
    cores = hwloc_of(name)['cores']
    for d in decisions(reports[name], 'nightly').values():
        procs = parameters(d['name']).get('num_procs')
        if procs is None or not d['check'].startswith('Npb'):
            continue
        if int(procs) > cores:
            assert f'exceed the {cores} cores' in d['skip'], d['name']
        elif not d['skip']:
            assert d['decided']['num_tasks'] == int(procs)
            assert '--map-by core' in d['decided']['launcher_options']


def test_hpl_on_a_small_guest_gives_each_process_four_blocks(reports):
    [d] = decisions(reports[GUEST], 'nightly', 'HpccCheck').values()
    # 0.005 of 3.8 GiB is N=1536: one 192-block for each of 32 processes
    assert (d['decided']['problem_size'],
            d['decided']['blocks_per_process']) == (6144, '8x4')
    assert math.isclose(float(d['decided']['memory_fraction']), 0.005)
