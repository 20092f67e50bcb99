'''Process counts and memory per class of the NPB checks
(hpc_acceptance.npb.classes).'''

import pytest

from hpc_acceptance.npb import classes as npb_classes
from hpc_acceptance.npb.classes import (accepts, data_bytes, memory_fit,
                                        process_counts)

GIB = 2**30


def test_bt_and_sp_get_square_counts_only():
    squares = [n * n for n in range(1, 17)]
    assert process_counts('bt') == squares
    assert process_counts('sp') == squares


@pytest.mark.parametrize('bench', ['cg', 'ep', 'ft', 'is', 'lu', 'mg'])
def test_the_others_get_powers_of_two(bench):
    assert process_counts(bench) == [1, 2, 4, 8, 16, 32, 64, 128, 256]


@pytest.mark.parametrize('bench, count', [
    ('bt', 2), ('sp', 8), ('cg', 3), ('mg', 6), ('ft', 12), ('bt', 0),
])
def test_counts_a_benchmark_cannot_use_are_refused(bench, count):
    assert not accepts(bench, count)


def test_unknown_benchmark_is_named():
    with pytest.raises(ValueError, match="unknown NPB benchmark 'dt'"):
        process_counts('dt')


def test_data_follows_the_measured_footprint():
    # FT class C measured at 5258816 KiB on one rank, 16 MiB of it the rank
    assert data_bytes('ft', 'C') == (5258816 - 16384) * 1024
    # EP's data is negligible at every class
    assert data_bytes('ep', 'C') == 0


def test_class_d_scales_class_c_with_the_problem():
    # BT: 162^3 -> 408^3 grid points
    ratio = data_bytes('bt', 'D') / data_bytes('bt', 'C')
    assert ratio == pytest.approx((408 / 162) ** 3, rel=1e-6)
    # IS: 2^27 -> 2^31 keys
    assert data_bytes('is', 'D') == pytest.approx(16 * data_bytes('is', 'C'),
                                                  rel=1e-6)


def test_class_c_fits_one_small_node():
    fit = memory_fit('bt', 'C', 1, nodes=1, node_memory=24 * GIB)
    assert fit.fits
    assert 1 * GIB < fit.per_node < 2 * GIB


def test_class_that_does_not_fit_says_so_with_figures():
    fit = memory_fit('ft', 'D', 4, nodes=1, node_memory=24 * GIB)
    assert not fit.fits
    assert fit.reason == (
        'NPB FT class D on 4 rank(s) needs about 80.1 GiB per node (80.0 GiB '
        'of data over 1 node(s) + 4 rank(s) x 32 MiB), more than the 21.6 '
        'GiB usable of a node\'s 24.0 GiB (extras.memory_bytes, 90% usable)')


def test_data_spreads_over_the_nodes_used():
    one = memory_fit('ft', 'D', 128, nodes=1, node_memory=256 * GIB)
    two = memory_fit('ft', 'D', 128, nodes=2, node_memory=256 * GIB)
    assert two.per_node < one.per_node
    assert not memory_fit('ft', 'D', 2, nodes=1, node_memory=64 * GIB).fits
    assert memory_fit('ft', 'D', 128, nodes=2, node_memory=64 * GIB).fits


def test_every_benchmark_has_every_class():
    for bench in npb_classes.BENCHMARKS:
        for npb_class in npb_classes.CLASSES:
            assert data_bytes(bench, npb_class) >= 0
