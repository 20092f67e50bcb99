'''The MPI program of src/network, built and run for real with mpirun.'''

import os
import shutil
import subprocess

import pytest

from conftest import PROJECT_DIR
from hpc_acceptance.core.figures import output_problems, parse_figures
from hpc_acceptance.network.rank_report import parse_rank_lines

SUMMARY = {'latency': 'us', 'bandwidth': 'MB/s',
           'bandwidth_aggregate': 'MB/s', 'bandwidth_effective': 'MB/s'}


@pytest.fixture(scope='module')
def program(tmp_path_factory):
    build = tmp_path_factory.mktemp('network')
    shutil.copytree(PROJECT_DIR / 'src' / 'network', build,
                    dirs_exist_ok=True)
    subprocess.run(['make', 'clean'], cwd=build, check=True,
                   capture_output=True)
    done = subprocess.run(['make'], cwd=build, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    # -Wall -Wextra are always on: a clean build prints no warnings
    assert 'warning' not in done.stderr
    return build / 'net_pairs'


def mpirun(program, *args, ranks=2, launcher=('--map-by', 'core',
                                              '--bind-to', 'core'),
           env=None):
    run_env = dict(os.environ, **(env or {}))
    if os.geteuid() == 0:
        run_env.update(OMPI_ALLOW_RUN_AS_ROOT='1',
                       OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1')

    return subprocess.run(['mpirun', '-np', str(ranks), *launcher,
                           str(program), *args],
                          env=run_env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize('pattern, pairs', [('pingpong', 'single'),
                                            ('pingping', 'multi')])
def test_two_ranks_validate_and_report(program, pattern, pairs):
    done = mpirun(program, f'--pattern={pattern}', f'--pairs={pairs}',
                  '--repeats=1')
    assert done.returncode == 0, done.stderr
    assert output_problems(done.stdout, SUMMARY) == []
    fig = parse_figures(done.stdout)
    # a 4 MiB message takes longer than an empty one
    assert fig['time.4194304B'].value > 10 * fig['time.0B'].value


def test_beside_the_best_run_the_median_and_their_ratio(program):
    done = mpirun(program, '--pattern=pingpong', '--repeats=4')
    assert done.returncode == 0, done.stderr
    fig = parse_figures(done.stdout)
    for name, rate in (('latency', False), ('bandwidth', True)):
        best, median = fig[name], fig[f'{name}.median']
        ratio = fig[f'best_to_median.{name}']
        assert (median.unit, ratio.unit) == (best.unit, 'ratio')
        assert 0 < ratio.value <= 1
        # the median run is no faster than the best one, and the ratio
        # says how much slower
        worse = (best.value / median.value if rate else
                 median.value / best.value)
        assert worse >= 1 - 1e-5
        assert worse == pytest.approx(1 / ratio.value, rel=1e-4)


def test_ranks_report_the_cores_they_were_bound_to(program):
    done = mpirun(program, '--pattern=pingpong', '--repeats=1')
    ranks = parse_rank_lines(done.stdout)
    assert [(r.allowed, r.partner) for r in ranks] == [
        (frozenset({0}), 1), (frozenset({1}), 0)]
    assert ranks[0].host == ranks[1].host


def test_a_corrupted_transfer_fails_the_run(program):
    done = mpirun(program, '--pattern=pingping', '--repeats=1',
                  env={'NET_PAIRS_CORRUPT_RANK': '0'})
    assert done.returncode != 0
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith('# validation: FAILED rank 1: byte 0 of a 1-byte '
                           'message from rank 0')
    assert 'latency' not in done.stdout


@pytest.mark.parametrize('args, option', [
    ([], 'pattern'),
    (['--pattern=pingpang'], 'pattern'),
    (['--pattern=pingpong', '--pairs=all'], 'pairs'),
    (['--pattern=pingpong', '--max-size=1M'], 'max-size'),
    (['--pattern=pingpong', '--max-size=4X'], 'max-size'),
    (['--pattern=pingpong', '--repeats=0'], 'repeats'),
    (['--pattern=pingpong', '--colour=red'], 'colour'),
    (['--pattern'], 'pattern'),
])
def test_bad_arguments_exit_2_naming_the_option(program, args, option):
    done = mpirun(program, *args)
    assert done.returncode == 2
    assert f'net_pairs: option --{option}: ' in done.stderr
    assert 'usage: mpirun -np N net_pairs' in done.stderr
    assert 'validation' not in done.stdout


def test_multi_pair_needs_an_even_number_of_ranks(program):
    done = mpirun(program, '--pattern=pingpong', '--pairs=multi', ranks=3,
                  launcher=('--oversubscribe', '--bind-to', 'none'))
    assert done.returncode == 2
    assert ('net_pairs: option --pairs: multi needs an even number of '
            'ranks, got 3') in done.stderr


def test_one_rank_has_no_pair(program):
    done = mpirun(program, '--pattern=pingpong', ranks=1)
    assert done.returncode == 2
    assert 'needs at least 2 ranks, got 1' in done.stderr
