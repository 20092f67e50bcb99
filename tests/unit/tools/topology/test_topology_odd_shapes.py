'''Odd shapes of a node, made from the real machines' snapshots
(tests/helpers/odd_shapes.py) and replayed as a site would: each gives a right
decision or a skip that says why, never a crash or a silently wrong size.

Replayed once with the real machines' snapshots
(the fixture ``replays`` of tests/conftest.py).
'''

import pytest

from helpers.odd_shapes import SHAPES
from helpers.replay import decisions, places


@pytest.fixture(scope='module')
def reports(replays):
    return {shape: replays[shape] for shape in SHAPES}


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
    # a core with a thread offline is no other kind of core
    assert any('one kind of core by their caches: threads offline' in note
               for note in node['notes'])
    assert not node['core_kinds']['hybrid']
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


def test_a_level_missing_for_some_cpus_skips_only_what_it_sizes(reports):
    # before: every memory and STREAM case skipped, naming the first gap
    report = reports['l3-missing']
    assert 'caches' not in report['node']['unusable']
    assert any('no L3 for CPUs 96-127' in note
               for note in report['node']['notes'])
    for d in report['modes']['nightly']:
        if d['check'].startswith(('Memory', 'Stream')):
            assert d['skip'] is None, d['name']
        if d['check'].startswith('Memory') and \
                '%threads=all_cores' in d['name'] and \
                '--sizes=' in ' '.join(d['decided']['program_options']):
            assert 'l3: the node shows no L3 for CPUs 96-127' in \
                d['decided']['levels_not_measured'], d['name']
        elif d['check'] == 'HpccCheck':
            assert d['decided']['num_tasks'] == 128
