'''The in-tree STREAM program (src/stream), built and run for real.

Small arrays keep this fast (they measure caches, which is fine for testing
the program); the check's full-size runs are in tests/e2e.
'''

import os
import shutil
import subprocess

import pytest

from hpc_acceptance.core.figures import output_problems, parse_figures
from hpc_acceptance.stream import output as stream_output
from conftest import PROJECT_DIR

KERNELS = {kernel: 'MB/s' for kernel in stream_output.KERNELS}


def build(tmp_path_factory, cflags):
    build_dir = tmp_path_factory.mktemp('stream')
    shutil.copytree(PROJECT_DIR / 'src' / 'stream', build_dir,
                    dirs_exist_ok=True)
    subprocess.run(['make', 'clean'], cwd=build_dir, check=True,
                   capture_output=True)
    done = subprocess.run(['make', f'CFLAGS={cflags}'], cwd=build_dir,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # -Wall -Wextra are always on: a clean build prints no warnings
    assert 'warning' not in done.stderr
    return build_dir / 'stream_intree'


@pytest.fixture(scope='module')
def program(tmp_path_factory):
    return build(tmp_path_factory, '-O3 -march=native')


def run(program, *args, threads=2):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads),
               OMP_PROC_BIND='close', OMP_PLACES='cores')
    return subprocess.run([str(program), *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_rates_and_validation(program):
    done = run(program, '--elements=2M', '--ntimes=4')
    assert done.returncode == 0, done.stderr
    assert output_problems(done.stdout, KERNELS) == []
    result = stream_output.parse(done.stdout)
    assert result.implementation == stream_output.IN_TREE
    assert (result.elements, result.ntimes, result.threads) == \
        (2_000_000, 4, 2)
    assert result.validated is True
    assert stream_output.problems(result, threads=2) == []
    assert "not McCalpin's STREAM" in done.stdout.splitlines()[0]


def test_each_kernel_has_its_median_repetition_and_best_to_median(program):
    done = run(program, '--elements=2M', '--ntimes=6')
    assert done.returncode == 0, done.stderr
    figures = parse_figures(done.stdout)
    for kernel in KERNELS:
        best, median = figures[kernel], figures[f'{kernel}.median']
        ratio = figures[f'best_to_median.{kernel}']
        assert median.unit == 'MB/s' and ratio.unit == 'ratio'
        assert 0 < ratio.value <= 1 and median.value <= best.value * 1.0001
        assert median.value == pytest.approx(best.value * ratio.value,
                                             rel=1e-4)
    # the rates the checks read are the best repetitions' still
    assert set(stream_output.parse(done.stdout).rates) == set(KERNELS)


def test_threads_and_binding_are_reported(program):
    done = run(program, '--elements=1M', '--ntimes=2', threads=1)
    assert '# threads 1' in done.stdout
    assert '# OMP_PROC_BIND=close OMP_PLACES=cores' in done.stdout
    assert '# cpus ' in done.stdout


def test_suffixes_are_decimal_like_stream_array_size(program):
    done = run(program, '--elements=3K', '--ntimes=2')
    assert stream_output.parse(done.stdout).elements == 3000


@pytest.mark.parametrize('args, option', [
    ([], 'elements'),
    (['--elements=0'], 'elements'),
    (['--elements=12X'], 'elements'),
    (['--elements=1M', '--ntimes=1'], 'ntimes'),
    (['--elements=1M', '--ntimes=201'], 'ntimes'),
    (['--elements=1M', '--offset=3'], 'offset'),
])
def test_bad_arguments_exit_2_naming_the_option(program, args, option):
    done = run(program, *args)
    assert done.returncode == 2
    assert f'--{option}' in done.stderr.splitlines()[0]
    assert done.stdout == ''


def test_arrays_larger_than_the_node_are_refused_before_allocation(program):
    physical = os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
    elements = physical // 8 // 3 + 1
    done = run(program, f'--elements={elements}')
    assert done.returncode == 4
    assert 'cannot allocate' in done.stderr
    assert 'physical memory' in done.stderr


@pytest.mark.skipif(shutil.which('gdb') is None,
                    reason='gdb is needed to corrupt an array element')
def test_a_corrupted_element_fails_validation(tmp_path_factory):
    # A memory fault, made with the debugger: one element of a is
    # overwritten after the kernels, before the program checks its arrays.
    program = build(tmp_path_factory, '-O0 -g')
    out = tmp_path_factory.mktemp('gdb') / 'out.txt'
    subprocess.run(
        ['gdb', '-batch', '-ex', 'break validate',
         '-ex', f'run --elements=100K --ntimes=3 > {out}',
         '-ex', 'set var a[777] = -1', '-ex', 'continue', str(program)],
        env=dict(os.environ, OMP_NUM_THREADS='2'), capture_output=True,
        timeout=300, check=True,
    )
    text = out.read_text()
    assert text.splitlines()[-1].startswith(
        '# validation: FAILED array a: average relative error')
    assert '1 of 100000 elements differ' in text
    result = stream_output.parse(text)
    assert result.validated is False
    assert result.rates == {}
