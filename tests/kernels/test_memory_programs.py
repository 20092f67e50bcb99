'''The C programs of src/memory, built and run for real.

Small sizes keep this fast; the full-size runs happen in the end-to-end
ReFrame tests.
'''

import os
import re
import shutil
import subprocess

import pytest

from hpc_acceptance.core.figures import output_problems, parse_figures
from conftest import PROJECT_DIR

SMALL = '--sizes=l1:16K,l2:256K,memory:16M'


@pytest.fixture(scope='module')
def bindir(tmp_path_factory):
    build = tmp_path_factory.mktemp('memory')
    shutil.copytree(PROJECT_DIR / 'src' / 'memory', build, dirs_exist_ok=True)
    subprocess.run(['make', 'clean'], cwd=build, check=True,
                   capture_output=True)
    done = subprocess.run(['make', 'CFLAGS=-O2 -march=native'], cwd=build,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # -Wall -Wextra are always on: a clean build prints no warnings
    assert 'warning' not in done.stderr
    return build


def run(bindir, program, *args, threads=2, env=None):
    run_env = dict(os.environ, OMP_NUM_THREADS=str(threads),
                   OMP_PROC_BIND='close', OMP_PLACES='cores', **(env or {}))
    return subprocess.run([str(bindir / program), *args], env=run_env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize('program, args, expected', [
    ('mem_latency', ['--max=16M', '--repeats=1', '--span-ms=1', SMALL],
     {'core_clock': 'GHz', 'latency.l1': 'ns', 'cycles.memory': 'cycles',
      'latency.4096B': 'ns', 'latency.16777216B': 'ns'}),
    ('mem_readbw', [SMALL, '--repeats=2', '--span-ms=1'],
     {'bandwidth.l1': 'MB/s', 'bandwidth.memory': 'MB/s'}),
    ('mem_dotstreams', ['--size=16M', '--streams=6', '--repeats=2',
                        '--span-ms=1'],
     {'bandwidth': 'MB/s', 'time_per_iteration': 'ns'}),
    ('mem_gatherdot', [SMALL, '--repeats=2', '--span-ms=1'],
     {'time_per_iteration.l2': 'ns'}),
    ('mem_daxpy', [SMALL, '--repeats=2', '--span-ms=1'],
     {'flops.l1': 'MFLOP/s', 'time_per_iteration.memory': 'ns'}),
    ('core_clock', ['--repeats=3'],
     {'core_clock': 'GHz', 'core_clock.median': 'GHz',
      'best_to_median': 'ratio'}),
])
def test_programs_validate_and_print_their_figures(bindir, program, args,
                                                   expected):
    done = run(bindir, program, *args)
    assert done.returncode == 0, done.stderr
    assert output_problems(done.stdout, expected) == []


def test_latency_grows_from_l1_to_memory(bindir):
    done = run(bindir, 'mem_latency', '--max=64M', '--repeats=2',
               '--span-ms=1', '--sizes=l1:16K,memory:64M', threads=1)
    figures = parse_figures(done.stdout)
    assert figures['latency.memory'].value > 5 * figures['latency.l1'].value


@pytest.mark.parametrize('program, args, labels', [
    # the latency sweep is not held to the span; each --sizes figure is
    ('mem_latency', ['--max=64K', '--sizes=l1:16K,l2:256K'], ['l1', 'l2']),
    ('mem_readbw', ['--sizes=l1:16K,l2:256K'], ['l1', 'l2']),
    ('mem_daxpy', ['--sizes=l1:16K'], ['l1']),
    ('mem_gatherdot', ['--sizes=l2:256K'], ['l2']),
    ('mem_dotstreams', ['--size=1M'], ['dot']),
])
def test_each_figure_is_the_best_of_runs_spanning_span_ms(bindir, program,
                                                          args, labels):
    done = run(bindir, program, *args, '--repeats=1', '--span-ms=300')
    assert done.returncode == 0, done.stderr
    spans = re.findall(r'^# (\w+): best of (\d+) timed runs over '
                       r'([0-9.]+) s$', done.stdout, re.MULTILINE)
    assert [label for label, _, _ in spans] == labels
    for _, runs, seconds in spans:
        assert float(seconds) >= 0.3
        assert int(runs) > 1


@pytest.mark.parametrize('program, args, best, median, ratio', [
    ('mem_readbw', ['--sizes=l1:16K', '--span-ms=200'], 'bandwidth.l1',
     'bandwidth.l1.median', 'best_to_median.l1'),
    ('mem_daxpy', ['--sizes=l1:16K', '--span-ms=200'], 'flops.l1',
     'flops.l1.median', 'best_to_median.l1'),
    ('mem_gatherdot', ['--sizes=l2:256K', '--span-ms=200'],
     'time_per_iteration.l2', 'time_per_iteration.l2.median',
     'best_to_median.l2'),
    ('mem_dotstreams', ['--size=1M', '--span-ms=200'], 'bandwidth',
     'bandwidth.median', 'best_to_median'),
    ('mem_latency', ['--max=64K', '--sizes=l1:16K', '--span-ms=200'],
     'latency.l1', 'latency.l1.median', 'best_to_median.l1'),
    # the clock probe: --repeats chains, the fastest and the median one
    ('core_clock', [], 'core_clock', 'core_clock.median', 'best_to_median'),
])
def test_beside_the_best_repetition_the_median_and_their_ratio(
        bindir, program, args, best, median, ratio):
    done = run(bindir, program, *args, '--repeats=5')
    assert done.returncode == 0, done.stderr
    figures = parse_figures(done.stdout)
    assert figures[ratio].unit == 'ratio'
    assert 0 < figures[ratio].value <= 1
    assert figures[median].unit == figures[best].unit
    # the median repetition is no faster than the best one, and the
    # ratio is how much slower
    rate = figures[best].unit != 'ns'
    worse = (figures[best].value / figures[median].value if rate else
             figures[median].value / figures[best].value)
    assert worse >= 1 - 1e-5
    assert worse == pytest.approx(1 / figures[ratio].value, rel=1e-4)


@pytest.mark.parametrize('program, args, option', [
    ('mem_readbw', ['--sizes=l1:0'], 'sizes'),
    ('mem_readbw', ['--sizes=l1:12X'], 'sizes'),
    ('mem_readbw', ['--sizes=l1:16K,l1:32K'], 'sizes'),
    ('mem_readbw', ['--colour=red'], 'colour'),
    ('mem_readbw', ['--repeats=0'], 'repeats'),
    ('mem_dotstreams', ['--size=16M', '--streams=3'], 'streams'),
    ('mem_dotstreams', ['--streams=2'], 'size'),
    ('mem_latency', ['--min=1M', '--max=64K'], 'min'),
    ('mem_latency', ['--max=64K', '--span-ms=0'], 'span-ms'),
    ('mem_readbw', ['--span-ms=-5'], 'span-ms'),
    ('mem_numa', ['--size=16M'], 'partners'),
    ('mem_numa', ['--size=16M', '--partners=1'], 'partners'),
    ('mem_numa', ['--size=16M', '--partners=1,1'], 'partners'),
    ('mem_numa', ['--size=16M', '--partners=0,2'], 'partners'),
    ('mem_numa', ['--size=16M', '--partners=1,0,1'], 'partners'),
    ('mem_numa', ['--size=16M', '--partners=1;0'], 'partners'),
    ('mem_numa', ['--size=16M', '--partners=1,0', '--distances=20'],
     'distances'),
    ('mem_numa', ['--size=16M', '--partners=1,0', '--distances=20:1,1'],
     'distances'),
    ('mem_numa', ['--size=16M', '--partners=1,0', '--distances=20:1,0/x'],
     'distances'),
    ('mem_numa', ['--size=16M', '--partners=-,0'], 'partners'),
])
def test_bad_arguments_exit_2_naming_the_option(bindir, program, args,
                                                option):
    done = run(bindir, program, *args)
    assert done.returncode == 2
    assert f'--{option}' in done.stderr
    assert done.stdout == '' or 'validation: passed' not in done.stdout


def test_more_memory_than_the_node_has_exits_4(bindir):
    # a working set larger than the node refuses before it allocates
    physical = os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
    too_much = physical // (1 << 30) + 1
    done = run(bindir, 'mem_readbw', f'--sizes=memory:{too_much}G')
    assert done.returncode == 4
    assert 'cannot allocate' in done.stderr
    assert 'physical memory' in done.stderr


def test_numa_says_why_it_has_no_figures_on_one_node(bindir, tmp_path):
    sysfs = _fake_sysfs(tmp_path, nodes={0: [0, 1]})
    done = run(bindir, 'mem_numa', '--size=16M', '--partners=1,0',
               env={'MEMBENCH_SYSFS': str(sysfs)})
    assert done.returncode == 0
    assert '# numa: only one NUMA node online' in done.stdout
    assert parse_figures(done.stdout) == {}


def test_numa_measures_the_partners_it_is_given(bindir, tmp_path):
    # CPU 0 on node 0, CPU 1 on node 1: one thread per node, paired remote
    sysfs = _fake_sysfs(tmp_path, nodes={0: [0], 1: [1]})
    done = run(bindir, 'mem_numa', '--size=16M', '--repeats=2',
               '--partners=1,0', env={'MEMBENCH_SYSFS': str(sysfs)})
    assert done.returncode == 0, done.stderr
    assert '# remote pairs (thread:block) 0:1,1:0' in done.stdout
    assert output_problems(done.stdout, {
        'bandwidth.local': 'MB/s', 'bandwidth.remote': 'MB/s',
        'remote_penalty': 'ns'}) == []


def test_numa_measures_each_distance_class_it_is_given(bindir, tmp_path):
    sysfs = _fake_sysfs(tmp_path, nodes={0: [0], 1: [1]},
                        distances={0: [10, 21], 1: [21, 10]})
    done = run(bindir, 'mem_numa', '--size=16M', '--repeats=2',
               '--partners=1,0', '--distances=21:1,0',
               env={'MEMBENCH_SYSFS': str(sysfs)})
    assert done.returncode == 0, done.stderr
    assert ('# remote pairs at distance 21 (thread:block, -: rests) 0:1,1:0'
            in done.stdout)
    assert output_problems(done.stdout, {
        'bandwidth.remote': 'MB/s', 'bandwidth.remote.d21': 'MB/s',
        'remote_penalty.d21': 'ns'}) == []


def test_numa_threads_rest_where_their_node_has_no_partner(bindir, tmp_path):
    # thread 1 rests in the distance pass: thread 0 alone reads block 1,
    # and every block still validates
    sysfs = _fake_sysfs(tmp_path, nodes={0: [0], 1: [1]},
                        distances={0: [10, 21], 1: [21, 10]})
    done = run(bindir, 'mem_numa', '--size=16M', '--repeats=3',
               '--partners=1,0', '--distances=21:1,-',
               env={'MEMBENCH_SYSFS': str(sysfs)})
    assert done.returncode == 0, done.stderr
    assert '0:1,1:-' in done.stdout and '# d21: 1 of 2 threads' in done.stdout
    assert '# validation: passed' in done.stdout
    assert output_problems(done.stdout, {'bandwidth.remote.d21': 'MB/s'}) \
        == []


def test_numa_refuses_partners_at_another_distance(bindir, tmp_path):
    sysfs = _fake_sysfs(tmp_path, nodes={0: [0], 1: [1]},
                        distances={0: [10, 21], 1: [21, 10]})
    done = run(bindir, 'mem_numa', '--size=16M', '--partners=1,0',
               '--distances=32:1,0', env={'MEMBENCH_SYSFS': str(sysfs)})
    assert done.returncode == 0, done.stderr
    assert ('# numa: thread 0 (NUMA node 0) and its partner 1 (node 1) are '
            'at distance 21, not 32' in done.stdout)
    assert parse_figures(done.stdout) == {}


def test_numa_refuses_a_partner_on_its_own_node(bindir, tmp_path):
    # two nodes online, both threads on node 0: the partners the caller
    # chose are not remote where the threads ran
    sysfs = _fake_sysfs(tmp_path, nodes={0: [0, 1], 1: []})
    done = run(bindir, 'mem_numa', '--size=16M', '--partners=1,0',
               env={'MEMBENCH_SYSFS': str(sysfs)})
    assert done.returncode == 0, done.stderr
    assert ('# numa: thread 0 and its partner 1 both run on NUMA node 0'
            in done.stdout)
    assert parse_figures(done.stdout) == {}


def _fake_sysfs(root, nodes, distances=None):
    '''A /sys tree with the given ``{node: [cpus]}`` layout and SLIT rows
    ``{node: [distance to each node]}``.'''
    system = root / 'devices' / 'system'
    (system / 'node').mkdir(parents=True)
    ids = sorted(nodes)
    (system / 'node' / 'online').write_text(
        f'{ids[0]}-{ids[-1]}\n' if len(ids) > 1 else f'{ids[0]}\n')
    for node, row in (distances or {}).items():
        (system / 'node' / f'node{node}').mkdir()
        (system / 'node' / f'node{node}' / 'distance').write_text(
            ' '.join(map(str, row)) + '\n')
    for node, cpus in nodes.items():
        for cpu in cpus:
            cpudir = system / 'cpu' / f'cpu{cpu}'
            cpudir.mkdir(parents=True)
            (cpudir / f'node{node}').mkdir()

    return root
