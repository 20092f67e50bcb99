'''The STREAM check, run through the reframe CLI for real on this machine.

No McCalpin STREAM is installed here, so the check runs the in-tree
program. The McCalpin path is exercised by replaying real McCalpin outputs
(tests/fixtures/data/stream) through a stream_c.exe on PATH that prints them.
'''

import os
import re
from pathlib import Path

import pytest
from reframe.utility.cpuinfo import cpuinfo

from conftest import DATA_DIR
from helpers.report_cases import (CLOCK_FIGURES, DEFAULT_VARIANTS, case_of,
                                  results)
from hpc_acceptance.core import identity
from hpc_acceptance.stream import output as stream_output
from hpc_acceptance.stream import sizing as stream_sizing

# every check also measures the core clock around its run
KERNELS = {'copy', 'scale', 'add', 'triad'}
# the in-tree program's median repetition and best/median of each kernel
REPETITIONS = ({f'{k}_median' for k in KERNELS} |
               {f'best_to_median_{k}' for k in KERNELS})
FIGURES = KERNELS | REPETITIONS | CLOCK_FIGURES
# The layouts' sizes are STREAM's rule, so every run is full size: few
# repetitions keep the test short. Not a test of the variants: the default
# ones only.
FEW = ['-S', 'StreamCheck.ntimes=3', *DEFAULT_VARIANTS]


def perf_names(case):
    return {name.split(':')[-1] for name in case['perfvalues']}


def test_in_tree_stream_passes_for_every_layout(run_reframe, tmp_path):
    done = run_reframe('-c', 'checks/stream', '-r', *FEW)
    assert done.returncode == 0, done.stdout[-3000:]
    assert 'WARNING' not in done.stdout

    cases = results(tmp_path / 'report.json')
    assert len(cases) == 3
    for layout in ('single', 'socket', 'all_cores'):
        case = case_of(cases, 'StreamCheck', threads=layout)
        assert case['result'] == 'pass'
        # no peak bandwidth declared on the embedded default: no triad_peak
        assert perf_names(case) == FIGURES
        assert all(values[0] > 0 for values in case['perfvalues'].values())

    perflog = (tmp_path / 'perflogs' / 'local' / 'default' /
               'StreamCheck.log').read_text().splitlines()
    assert len(perflog) == 4
    assert all('dependency=in-tree:' in line for line in perflog[1:])

    outputs = tmp_path / 'prefix' / 'output' / 'local' / 'default' / 'gnu'
    scripts = {path.read_text() for path in
               outputs.glob('StreamCheck_*/rfm_job.sh')}
    assert any('export OMP_NUM_THREADS=1\n' in s and
               "export OMP_PLACES='{0}'" in s for s in scripts)
    assert all('export OMP_PROC_BIND=close' in s for s in scripts)
    runs = [path.read_text() for path in
            outputs.glob('StreamCheck_*/rfm_job.out')]
    assert all("# stream_intree: STREAM rules, in-tree implementation "
               "(not McCalpin's STREAM)" in out for out in runs)

    # each array is 4 x the last-level cache of the cores used, here
    info = cpuinfo()
    every = stream_sizing.layout_cores(info, 'all_cores')
    rule = stream_sizing.min_array_elements(
        stream_sizing.last_level_cache_bytes(info, every))
    whole_node = next(out for out in runs
                      if f'# threads {len(every)}' in out)
    assert stream_output.parse(whole_node).elements == rule


def test_in_tree_stream_built_for_avx2_says_so(run_reframe, tmp_path):
    done = run_reframe('-c', 'checks/stream', '-r',
                       '-n', 'StreamCheck%isa=avx2.*%threads=single$',
                       '-S', 'StreamCheck.ntimes=3')
    assert done.returncode == 0, done.stdout[-3000:]
    cases = results(tmp_path / 'report.json')
    assert len(cases) == 1
    case = case_of(cases, 'StreamCheck', isa='avx2', threads='single')
    assert case['result'] == 'pass'
    assert 'variant' in case['tags']
    # the program states what it was built for; the check records it
    assert case['isa_built'] == 'avx2'
    assert case['dependency_source'].startswith('in-tree:')
    assert case['dependency_source'].endswith('/avx2')
    out = (Path(case['outputdir']) / 'rfm_job.out').read_text()
    assert '# built for: avx2\n' in out
    assert perf_names(case) == FIGURES


def test_spread_binding_is_applied_and_recorded(run_reframe, tmp_path):
    done = run_reframe('-c', 'checks/stream', '-n', '%threads=all_cores',
                       '-r', *FEW, '-S', 'StreamCheck.binding=spread')
    assert done.returncode == 0, done.stdout[-3000:]
    out = next((tmp_path / 'prefix' / 'output').rglob(
        'StreamCheck_*/rfm_job.out')).read_text()
    assert '# OMP_PROC_BIND=spread' in out
    case = case_of(results(tmp_path / 'report.json'), 'StreamCheck',
                   threads='all_cores')
    assert case['binding'] == 'spread'
    assert case['implementation'] == 'in-tree'


def test_binding_outside_close_and_spread_is_refused(run_reframe):
    done = run_reframe('-c', 'checks/stream', '-l',
                       '-S', 'StreamCheck.binding=master')
    assert done.returncode == 1
    assert "failed to set variable 'binding'" in done.stdout


def test_array_below_the_rule_is_refused_before_running(run_reframe,
                                                        tmp_path):
    done = run_reframe('-c', 'checks/stream', '-n', '%threads=single', '-r',
                       *DEFAULT_VARIANTS,
                       '-S', 'StreamCheck.array_elements=1000')
    assert done.returncode == 1
    assert re.search(r"array_elements=1000 is below STREAM's rule for the "
                     r"'single' layout on local:default: 4 x \d+ bytes of "
                     r"last-level cache = \d+ elements per array",
                     done.stdout)
    assert 'Traceback' not in done.stdout


def test_arrays_larger_than_the_node_are_refused(run_reframe):
    physical = os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
    elements = physical // 8 // 3 + 1
    done = run_reframe('-c', 'checks/stream', '-n', '%threads=single', '-r',
                       *DEFAULT_VARIANTS,
                       '-S', f'StreamCheck.array_elements={elements}')
    assert done.returncode == 1
    assert (f'the three STREAM arrays of {elements} elements need'
            in done.stdout)
    assert "of the node's" in done.stdout
    assert 'Traceback' not in done.stdout


@pytest.fixture
def mccalpin_on_path(tmp_path):
    '''A stream_c.exe on PATH that prints a captured McCalpin output.'''
    def install(output_name):
        bindir = tmp_path / 'bin'
        bindir.mkdir()
        exe = bindir / 'stream_c.exe'
        exe.write_text(f'#!/bin/sh\nexec cat '
                       f'{DATA_DIR / "stream" / output_name}\n')
        exe.chmod(0o755)
        return {'PATH': f'{bindir}:{os.environ["PATH"]}'}

    return install


def test_mccalpin_binary_below_the_rule_fails_with_the_fix(
        run_reframe, tmp_path, mccalpin_on_path):
    # the captured run has 10M elements and 2 threads, like the socket
    # layout here; its arrays are far below 4 x this machine's L3
    env = mccalpin_on_path('stream_c.default-10M.omp2.txt')
    done = run_reframe('-c', 'checks/stream', '-n', '%threads=socket', '-r',
                       *DEFAULT_VARIANTS, env=env)
    assert done.returncode == 1
    assert re.search(r"McCalpin's STREAM uses arrays of 10000000 elements, "
                     r"below STREAM's rule .*Rebuild it with "
                     r"STREAM_ARRAY_SIZE >= \d+ \(Spack: stream\+openmp "
                     r"stream_array_size=\d+\)", done.stdout)
    perflog = (tmp_path / 'perflogs' / 'local' / 'default' /
               'StreamCheck.log').read_text()
    assert f'dependency=path:{tmp_path}/bin/stream_c.exe' in perflog


def test_mccalpin_failed_validation_fails_the_check(run_reframe,
                                                    mccalpin_on_path):
    env = mccalpin_on_path('stream_c.omp2-10M.failed-validation.txt')
    done = run_reframe('-c', 'checks/stream', '-n', '%threads=socket', '-r',
                       *DEFAULT_VARIANTS,
                       '-S', 'StreamCheck.array_elements=251658240',
                       env=env)
    assert done.returncode == 1
    assert ("McCalpin's STREAM failed its own validation: Failed Validation "
            "on array a[]" in done.stdout)


def test_example_cluster_layouts_sizes_and_peak(run_reframe, tmp_path):
    # two sockets of 36 cores (72 hardware threads each), 54 MiB of L3 per
    # socket, 409.6 GB/s of peak memory bandwidth declared
    done = run_reframe('-c', 'checks/stream', '--system', 'example-cluster',
                       *DEFAULT_VARIANTS, '--dry-run', '--warn-as-error')
    assert done.returncode == 0, done.stdout
    assert 'SKIP' not in done.stdout
    assert done.stdout.count('P: triad_peak: None %') == 3

    stage = tmp_path / 'prefix' / 'stage' / 'example-cluster' / 'compute'
    scripts = {}
    for path in stage.rglob('StreamCheck_*/rfm_job.sh'):
        text = path.read_text()
        threads = re.search(r'OMP_NUM_THREADS=(\d+)', text)[1]
        scripts[threads] = text

    assert set(scripts) == {'1', '36', '72'}
    l3 = 56623104
    assert f'--elements={4 * l3 // 8} ' in scripts['1']
    assert f'--elements={4 * l3 // 8} ' in scripts['36']
    assert f'--elements={4 * 2 * l3 // 8} ' in scripts['72']
    # one socket is CPUs 0-35 with their siblings 72-107, quoted for bash
    assert "export OMP_PLACES='{0,72},{1,73}," in scripts['36']
    assert ",{35,107}'\n" in scripts['36']
    assert '#SBATCH --exclusive' in scripts['72']


def test_mccalpin_identity_records_what_the_binary_ran(
        run_reframe, tmp_path, mccalpin_on_path):
    # McCalpin's array size and repetitions are compiled in: this binary
    # ran 268435456 elements 4 times, whatever the check's own settings
    # (the rule's minimum, ntimes 10) say
    compiled_in = 268_435_456
    info = cpuinfo()
    rule = stream_sizing.min_array_elements(
        stream_sizing.last_level_cache_bytes(
            info, stream_sizing.layout_cores(info, 'single')))
    if rule > compiled_in:
        pytest.skip(f'STREAM\'s rule asks for {rule} elements on this host, '
                    f'more than the captured run\'s {compiled_in}')

    env = mccalpin_on_path('stream_c.omp1-268435456-ntimes4.txt')
    done = run_reframe('-c', 'checks/stream', '-n', '%threads=single', '-r',
                       *DEFAULT_VARIANTS, env=env)
    assert done.returncode == 0, done.stdout[-3000:]
    case = case_of(results(tmp_path / 'report.json'), 'StreamCheck',
                   threads='single')
    assert case['implementation'] == 'mccalpin'
    assert (case['array_elements'], case['ntimes']) == (compiled_in, 4)
    ran = identity.parse(case['identity'])
    assert (ran['array_elements'], ran['ntimes']) == (str(compiled_in), '4')
    perflog = (tmp_path / 'perflogs' / 'local' / 'default' /
               'StreamCheck.log').read_text().splitlines()
    assert f'identity={case["identity"]}|' in perflog[1]
