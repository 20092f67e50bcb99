'''HPCC's input file (hpc_acceptance.hpcc.input_file).'''

import pytest

from hpc_acceptance.hpcc.input_file import (InputError, blocks_per_process,
                                            problem_size, process_grid,
                                            render)
from conftest import DATA_DIR

GIB = 2**30


@pytest.mark.parametrize('processes', [1, 2])
def test_rendered_file_is_the_one_hpcc_ran_with(processes):
    # the fixtures' hpccinf.<np>.txt produced the real runs next to them
    expected = (DATA_DIR / 'hpcc' / f'hpccinf.{processes}.txt').read_text()
    p, q = process_grid(processes)
    assert render(3000, 80, p, q) == expected


@pytest.mark.parametrize('processes, grid', [
    (1, (1, 1)), (2, (1, 2)), (3, (1, 3)), (4, (2, 2)), (6, (2, 3)),
    (7, (1, 7)), (12, (3, 4)), (72, (8, 9)), (144, (12, 12)),
    (288, (16, 18)),
])
def test_grid_is_as_square_as_possible_with_p_not_above_q(processes, grid):
    assert process_grid(processes) == grid


def test_problem_size_fills_the_fraction_in_whole_blocks():
    # 80 % of 256 GiB: sqrt(0.8 * 256 GiB / 8) = 165794.6
    n = problem_size(256 * GIB, 0.8, 192)
    assert n == 165696
    assert n % 192 == 0
    assert 8 * n * n <= 0.8 * 256 * GIB
    assert 8 * (n + 192) ** 2 > 0.8 * 256 * GIB
    # two nodes of the same kind: sqrt(2) times the order
    assert problem_size(512 * GIB, 0.8, 192) == 234432


def test_problem_size_of_the_nightly_default_on_a_24_gib_node():
    # sqrt(0.005 * 24 GiB / 8) = 4013.2
    assert problem_size(24 * GIB, 0.005, 192) == 3840


def test_each_process_holds_at_least_four_blocks_each_way():
    # the nightly's 0.005 of a 4 GiB guest: N=1536, 8 blocks of 192, one
    # block for each process of an 8x8 grid; raised to 4 x 192 x 8
    assert problem_size(4 * GIB, 0.005, 192) == 1536
    n = problem_size(4 * GIB, 0.005, 192, grid=(4, 8))
    assert n == 6144
    assert blocks_per_process(n, 192, (4, 8)) == '8x4'
    # a grid the fraction already fills is left as it is
    assert problem_size(24 * GIB, 0.005, 192, grid=(1, 2)) == 3840


def test_a_grid_too_large_for_the_memory_is_refused():
    with pytest.raises(InputError, match=r'4 blocks of 192 per process in '
                                         r'each direction of the 8x16 grid '
                                         r'need N=12288'):
        problem_size(GIB, 0.005, 192, grid=(8, 16))


def test_problem_smaller_than_a_block_is_refused():
    with pytest.raises(InputError, match='less than one block of 192: raise '
                                         'memory_fraction or lower '
                                         'block_size'):
        problem_size(GIB, 1e-6, 192)


@pytest.mark.parametrize('fraction', [0, -0.1, 1.5])
def test_fraction_outside_zero_one_is_refused(fraction):
    with pytest.raises(InputError, match=r'not in \(0, 1\]'):
        problem_size(GIB, fraction, 80)


def test_no_processes_is_refused():
    with pytest.raises(InputError, match='need at least one'):
        process_grid(0)
