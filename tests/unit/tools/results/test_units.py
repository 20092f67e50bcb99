'''The units figures are recorded in (hpc_acceptance.tools.results.units):
which are multiples of one another, and by what factor.'''

import pytest

from hpc_acceptance.tools.results import units


@pytest.mark.parametrize('unit, quantity, factor', [
    ('MB/s', 'B/s', 1e6), ('GB/s', 'B/s', 1e9), ('kB/s', 'B/s', 1e3),
    ('KB/s', 'B/s', 1e3), ('MiB/s', 'B/s', 2.0 ** 20),
    ('Gb/s', 'B/s', 1.25e8), ('Mbps', 'B/s', 1.25e5),
    ('MFLOP/s', 'FLOP/s', 1e6), ('Gflop/s', 'FLOP/s', 1e9),
    ('Tflop/s', 'FLOP/s', 1e12), ('GFLOPS', 'FLOP/s', 1e9),
    ('Mop/s', 'op/s', 1e6), ('GUP/s', 'UP/s', 1e9), ('GHz', 'Hz', 1e9),
    ('s', 's', 1.0), ('ms', 's', 1e-3), ('us', 's', 1e-6),
    ('usec', 's', 1e-6), ('\N{MICRO SIGN}s', 's', 1e-6),
    ('ns', 's', 1e-9), ('ps', 's', 1e-12)])
def test_a_known_unit_is_a_quantity_and_a_factor(unit, quantity, factor):
    assert units.parse(unit) == (quantity, pytest.approx(factor))


@pytest.mark.parametrize('unit', ['%', 'cycles', 'msg/s', 'mb/s', 'mGB/s',
                                  '', None, 'GHz/s', 'widgets'])
def test_anything_else_is_no_unit_this_module_knows(unit):
    '''A prefix below one is read for a time only: "mb/s" is someone's
    MB/s or Mb/s, which no one can tell.'''
    assert units.parse(unit) is None


def test_units_of_one_quantity_convert():
    assert units.convert(38.5, 'GB/s', 'MB/s') == pytest.approx(38500.0)
    assert units.convert(95.0, 'ns', 'us') == pytest.approx(0.095)
    assert units.convert(1.0, 'Gb/s', 'MB/s') == pytest.approx(125.0)
    assert units.factor('MB/s', 'MB/s') == 1.0


def test_units_that_are_no_multiples_do_not_convert():
    assert units.convert(38.5, 'GB/s', 's') is None
    assert units.convert(38.5, 'GB/s', 'Gflop/s') is None
    assert units.convert(5.0, '%', 'MB/s') is None
    assert units.convert(None, 'MB/s', 'MB/s') is None
    # written alike, compared alike, whatever it is
    assert units.convert(5.0, '%', '%') == 5.0
    assert units.factor('widgets', 'widgets') == 1.0


def test_the_most_common_unit_is_the_same_whatever_the_order():
    assert units.most_common(['MB/s', 'GB/s', 'MB/s']) == 'MB/s'
    assert units.most_common(['MB/s', 'GB/s']) == \
        units.most_common(['GB/s', 'MB/s']) == 'GB/s'


def test_another_unit_is_named_with_the_one_it_is_compared_with():
    assert units.other_unit('widgets', 'MB/s') == \
        "in 'widgets', not a multiple of the 'MB/s' it is compared with"
    assert units.other_unit('', 'MB/s').startswith("in 'no unit'")
