'''The working sets and the kinds of core the suite decides on the
sixteen real machines of tests/fixtures/data/sysfs, against rules written
here from each snapshot's own files (its caches' sizes and sharing, its CPUs'
clocks), not from the suite's reading of them: every working set named for
a cache level lies in that level for every thread that runs it, or the
level is said not to be measured and why; STREAM's arrays are four times
the last-level caches the threads reach; a hybrid CPU's kinds of core are
those of its clocks, and its performance cores run as a variant.

Replayed once with test_topology_fixtures.py (the fixture ``replays`` of
tests/conftest.py).
'''

import pytest

from helpers import sysfs_tree
from helpers.replay import Machine, decisions, parameters, places

FIXTURES = sysfs_tree.fixtures()
CONFLICTS = '40intel64-4n10c+pci-conflicts'
HYBRID = ('20em64t-hybrid-1p6c2t+2ca4co1t', 'nvidia-dgx-gb10')

_UNITS = {'K': 2**10, 'M': 2**20, 'G': 2**30}


@pytest.fixture(scope='module')
def machines():
    return {name: Machine.of_tarball(sysfs_tree.SYSFS_DIR /
                                     f'{name}.tar.bz2')
            for name in FIXTURES}


@pytest.fixture(scope='module')
def reports(replays):
    return {name: replays[name] for name in FIXTURES}


def size(text):
    return int(text[:-1]) * _UNITS[text[-1]] if text[-1] in _UNITS \
        else int(text)


#: Memory checks whose ``--sizes`` are each thread's, not all threads'.
PER_THREAD = ('MemoryDaxpyCheck', 'MemoryGatherDotCheck')


def thread_parts(decision):
    '''``{level: bytes of each thread}`` of a memory check's options.'''
    threads = len(places(decision))
    found = {}
    for option in decision['decided']['program_options']:
        if option.startswith('--sizes='):
            for item in option.split('=', 1)[1].split(','):
                level, text = item.split(':')
                found[level] = size(text)
        elif option.startswith('--size='):
            found['memory'] = size(option.split('=', 1)[1])
    divide = 1 if decision['check'] in PER_THREAD else threads
    return {level: part // divide for level, part in found.items()}


def memory_runs(report):
    return [d for mode in ('nightly', 'post-upgrade')
            for d in report['modes'][mode]
            if d['check'].startswith('Memory') and not d['skip']]


@pytest.mark.parametrize('name', FIXTURES)
def test_each_working_set_lies_in_its_level_for_every_thread(
        name, reports, machines):
    machine = machines[name]
    levels = sorted(machine.caches)
    runs = memory_runs(reports[name])
    if name == CONFLICTS:
        assert not runs  # its L3 masks contradict each other
        return
    assert runs
    for d in runs:
        threads = places(d)
        parts = thread_parts(d)
        skipped = d['decided'].get('levels_not_measured', '')
        below = [0]
        for level in levels:
            lacking = [place for place in threads
                       if not any(cpus & place
                                  for cpus in machine.caches[level])]
            if lacking and len(parts) > 1:
                # the node shows no such cache for those threads' CPUs
                assert f'{level}: the node shows no {level.upper()} for ' \
                    f'CPUs' in skipped, (d['name'], level)
                assert level not in parts, (d['name'], level)
            if lacking:
                continue
            inside = machine.share(level, threads)
            if level in parts:
                # larger than the level below for every thread, within
                # this level's share of every thread
                assert max(below) < parts[level] <= min(inside), \
                    (d['name'], level)
            elif 'memory' in parts and len(parts) > 1:
                # named as not measured: no size lies clear of the level
                # below and inside this one with a margin
                assert f'{level}: ' in skipped, (d['name'], level)
                assert min(inside) < 2 * max(below), (d['name'], level)
            below = inside
        assert parts['memory'] >= 4 * max(below), d['name']


def llc_reached(machine, cores):
    '''Bytes of the last-level instances that share a CPU with ``cores``.'''
    last = machine.caches[max(machine.caches)]
    used = set().union(*cores)
    return sum(size for cpus, size in last.items() if cpus & used)


@pytest.mark.parametrize('name', FIXTURES)
def test_stream_arrays_are_four_times_the_caches_of_the_cores_used(
        name, reports, machines):
    machine = machines[name]
    found = decisions(reports[name], 'nightly', 'StreamCheck')
    assert len(found) == 3
    for d in found.values():
        if name == CONFLICTS:
            assert 'inconsistent' in d['skip']
            continue
        layout = parameters(d['name'])['threads']
        elements = d['decided']['array_elements']
        assert 8 * elements >= 4 * llc_reached(machine, places(d)), d['name']
        used = set().union(*places(d))
        if layout == 'socket':
            assert {machine.package[c] for c in used} == {
                machine.package[min(machine.package)]}
        elif layout == 'all_cores':
            assert used == set(machine.package)


def kinds_by_clock(machine):
    '''The CPU sets of a snapshot's kinds of core, fastest first: CPUs of
    one base clock (or, without one, of one highest clock).'''
    groups = {}
    for cpu, (top, base) in machine.clocks.items():
        groups.setdefault(base or top, set()).add(cpu)
    return sorted(groups.values(),
                  key=lambda cpus: -max(machine.clocks[c][0] for c in cpus))


@pytest.mark.parametrize('name', FIXTURES)
def test_the_kinds_of_core_are_those_of_the_clocks(name, reports,
                                                   machines):
    kinds = reports[name]['node']['core_kinds']
    expected = kinds_by_clock(machines[name])
    if name in HYBRID:
        assert kinds['evidence'] == 'cpufreq' and kinds['hybrid']
        assert [sysfs_tree.parse_list(k['cpus']) for k in kinds['kinds']] \
            == expected
        assert kinds['described'].startswith(
            'a hybrid CPU, 2 kinds of core by their highest clocks')
    else:
        assert not kinds['hybrid'], name
        assert len(expected) <= 1, name


@pytest.mark.parametrize('name', HYBRID)
def test_a_hybrid_cpu_s_performance_cores_run_as_a_variant(
        name, reports, machines):
    report = reports[name]
    performance = kinds_by_clock(machines[name])[0]
    everyone = set(machines[name].clocks)
    nightly = [d['name'] for d in report['modes']['nightly']]
    assert not any('threads=performance_cores' in n for n in nightly)
    found = [d for d in report['modes']['post-upgrade']
             if 'threads=performance_cores' in d['name']]
    # STREAM and the memory programs of more than one thread
    assert {d['check'] for d in found} == {
        'StreamCheck', 'MemoryDaxpyCheck', 'MemoryGatherDotCheck',
        'MemoryReadBandwidthCheck', 'MemoryDotStreamsCheck'}
    for d in found:
        assert set().union(*places(d)) == performance, d['name']
        assert d['decided']['core_choice'] == \
            f'the {len(places(d))} performance cores', d['name']

    cores = reports[name]['node']['cores']
    for d in report['modes']['nightly']:
        layout = parameters(d['name']).get('threads')
        if d['skip']:
            continue
        if layout == 'single':
            # one thread measures the fastest kind of core
            assert set().union(*places(d)) <= performance, d['name']
        elif layout == 'all_cores' or d['check'] == 'HpccCheck':
            # every kind of core, and said so
            if 'openmp' in d['decided'] and layout:
                assert set().union(*places(d)) == everyone, d['name']
            assert d['decided']['core_choice'].startswith(
                f'all {cores} cores ('), d['name']
