'''Odd shapes of a node, made from the real machines' snapshots
(tests/sysfs_tree.py) and replayed as a site would: each gives a right
decision or a skip that says why, never a crash or a silently wrong size.

- offline CPUs, sparse CPU numbering, a NUMA node without CPUs and sparse
  node numbering (the 4-socket Xeon with Hyper-Threading: a core and a
  thread offline, CPUs 8-15 renumbered 64-71, node 2 with memory only);
- a hybrid CPU (the same Xeon as one package: 4 cores of 2 threads with
  their own L2, 4 of one thread sharing a 2 MiB L2);
- sub-NUMA clusters and dies (the 2-socket Xeon: each pair of cores
  sharing an L2 a die and a NUMA node, two per socket);
- caches missing from sysfs: the ARM's L3 for a quarter of its CPUs (a
  node without any cache information: tests/unit/core/test_topology.py).

The four replays run side by side: 41 s on the busy 2-core CI machine
(18 s of CPU).
'''

import pytest

import sysfs_tree
from replay import (decisions, namespace_refused, parameters, places,
                    replay_all)

REFUSED = namespace_refused()
pytestmark = pytest.mark.skipif(REFUSED is not None, reason=REFUSED or '')

XEON_HT = '16em64t-4s2c2t'
XEON = '8em64t-2s2ca2c'
ARM = '128arm-2pa2n8cluster4co'


def offline_sparse(root):
    # core {5,13} and the second thread of core {3,11} offline
    sysfs_tree.offline(root, [5, 13, 11])
    sysfs_tree.renumber(root, {cpu: cpu + 56 for cpu in range(8, 16)})
    online = {0, 1, 2, 3, 4, 6, 7, 64, 65, 66, 68, 70, 71}
    sysfs_tree.set_numa_nodes(root, {0: online, 2: set()})


def hybrid(root):
    sysfs_tree.remove(root, [12, 13, 14, 15])
    present = set(range(12))
    for topology in sysfs_tree.cpus_dir(root).glob('cpu*/topology'):
        (topology / 'core_siblings').write_text(
            sysfs_tree.format_mask(present) + '\n')
        (topology / 'physical_package_id').write_text('0\n')
    sysfs_tree.set_cache(root, 2, [{4, 5, 6, 7}], 2048)
    sysfs_tree.set_cache(root, 3, [present], 8192)


def snc_and_dies(root):
    pairs = [{0, 4}, {2, 6}, {1, 5}, {3, 7}]
    sysfs_tree.set_numa_nodes(root, dict(enumerate(pairs)),
                              memory_kb=4 * 2**20)
    sysfs_tree.set_dies(root, pairs)


def l3_missing_on_a_quarter(root):
    sysfs_tree.drop_cache(root, 3, cpus=set(range(96, 128)))


SHAPES = {
    'offline-sparse': (XEON_HT, offline_sparse),
    'hybrid': (XEON_HT, hybrid),
    'snc-dies': (XEON, snc_and_dies),
    'l3-missing': (ARM, l3_missing_on_a_quarter),
}


@pytest.fixture(scope='module')
def reports(tmp_path_factory):
    snapshots = {}
    for shape, (fixture, change) in SHAPES.items():
        root = sysfs_tree.extract(fixture, tmp_path_factory.mktemp(shape))
        change(root)
        snapshots[shape] = root
    return replay_all(snapshots)


def runs(report, mode='nightly'):
    return [d for d in report['modes'][mode] if not d['skip']]


@pytest.mark.parametrize('shape', sorted(SHAPES))
def test_no_setup_fails_and_every_skip_says_why(shape, reports):
    for mode in ('nightly', 'post-upgrade'):
        for d in reports[shape]['modes'][mode]:
            assert d['failure'] is None, (d['name'], d['failure'])
            assert d['skip'] is None or len(d['skip']) > 30
    # and no job would find the node unlike its description
    assert reports[shape]['node']['topology_changed'] is None


def test_offline_cpus_are_left_out_and_sparse_numbers_kept(reports):
    report = reports['offline-sparse']
    node = report['node']
    # ReFrame counts the offline CPUs' directories: 16 CPUs, 2 per core
    assert node['reframe']['num_cpus'] == 16
    assert node['reframe']['num_cores'] == 8
    assert (node['cores'], node['hardware_threads']) == (7, 13)
    assert any('3 of the 16 CPUs' in note and 'offline' in note
               for note in node['notes'])
    [stream] = [d for d in runs(report) if 'threads=all_cores' in d['name']
                and d['check'] == 'StreamCheck']
    used = set().union(*places(stream))
    assert used == {0, 1, 2, 3, 4, 6, 7, 64, 65, 66, 68, 70, 71}
    [hpcc] = [d for d in runs(report) if d['check'] == 'HpccCheck']
    assert hpcc['decided']['num_tasks'] == 7
    assert hpcc['decided']['process_grid'] == '1x7'


def test_a_numa_node_without_cpus_is_not_remote_memory_of_the_check(
        reports):
    node = reports['offline-sparse']['node']
    assert (node['numa_nodes'], node['numa_nodes_without_cpus']) == (2, 1)
    [numa] = decisions(reports['offline-sparse'], 'nightly',
                       'MemoryNumaCheck').values()
    assert numa['skip'] == (
        'local:default: 1 NUMA node with CPUs (1 more without, memory '
        'only: no thread first-touches its memory): local and remote '
        'memory are the same, there is nothing to compare')


def test_hybrid_cores_count_as_cores_with_their_own_threads(reports):
    report = reports['hybrid']
    node = report['node']
    # ReFrame: 12 CPUs // 8 cores = 1 per core, so 12 "cores" and no SMT
    assert (node['reframe']['num_cpus_per_core'],
            node['reframe']['num_cores']) == (1, 12)
    assert (node['cores'], node['hardware_threads'],
            node['threads_per_core']) == (8, 12, [2, 1])
    [l2] = [c for c in node['caches'] if c['level'] == 'l2']
    assert l2['sizes'] == {str(2**20): 4, str(2**21): 1} or \
        l2['sizes'] == {2**20: 4, 2**21: 1}
    found = decisions(report, 'post-upgrade', 'StreamCheck')
    by_smt = {parameters(name)['smt']: d for name, d in found.items()
              if 'threads=all_cores' in name and '%isa=native' in name and
              '%turbo=as-configured' in name}
    assert len(places(by_smt['as-configured'])) == 8
    assert len(places(by_smt['off'])) == 8
    assert len(places(by_smt['on'])) == 12
    hpcc = {parameters(name)['smt']: d['decided']['num_tasks']
            for name, d in decisions(report, 'post-upgrade',
                                     'HpccCheck').items()
            if '%turbo=as-configured' in name}
    assert hpcc == {'as-configured': 8, 'on': 12, 'off': 8}


def test_sub_numa_clusters_pair_threads_across_sockets(reports):
    report = reports['snc-dies']
    node = report['node']
    assert (node['sockets'], node['numa_nodes'],
            node['dies_per_package']) == (2, 4, 2)
    [numa] = decisions(report, 'nightly', 'MemoryNumaCheck').values()
    threads = places(numa)
    [option] = [o for o in numa['decided']['program_options']
                if o.startswith('--partners=')]
    partners = list(map(int, option.split('=')[1].split(',')))
    socket_of = {0: 0, 2: 0, 4: 0, 6: 0, 1: 1, 3: 1, 5: 1, 7: 1}
    for thread, partner in enumerate(partners):
        [home], [away] = threads[thread], threads[partner]
        # not the other cluster of the same socket
        assert socket_of[home] != socket_of[away]
    [socket] = [d for d in runs(report) if d['check'] == 'StreamCheck' and
                'threads=socket' in d['name']]
    assert set().union(*places(socket)) == {0, 2, 4, 6}


def test_a_level_missing_for_some_cpus_skips_what_it_sizes(reports):
    report = reports['l3-missing']
    assert 'L3 for CPUs 96-127' in report['node']['unusable']['caches']
    for d in report['modes']['nightly']:
        if d['check'].startswith(('Memory', 'Stream')):
            assert 'no L3 for CPUs 96-127' in d['skip'], d['name']
        elif d['check'] == 'HpccCheck':
            assert d['decided']['num_tasks'] == 128
