'''The noise model: bands, direction, verdicts
(hpc_acceptance.tools.references.noise).
'''

import math
import re

import pytest

from hpc_acceptance.tools.references import noise


def test_direction_comes_from_the_unit():
    assert noise.higher_is_better('MB/s') and noise.higher_is_better('%')
    assert not noise.higher_is_better('ns')
    assert not noise.higher_is_better('s')
    # memory latency in core cycles
    assert not noise.higher_is_better('cycles')


@pytest.mark.parametrize('unit', [
    's', 'sec', 'seconds', 'ms', 'msec', 'us', 'usec', '\N{MICRO SIGN}s',
    '\N{GREEK SMALL LETTER MU}s', 'ns', 'nsec', 'ps', 'min', 'h', 'cycles',
    'Cycles', 'clocks', 'ticks', 's/iter', 'ns/access', 'us per call',
    'cycles/byte', 'usec (avg)'])
def test_every_spelling_of_a_time_or_cycles_is_better_lower(unit):
    '''What a site's check may report: OSU's usec, a solver's s/iter.'''
    assert not noise.higher_is_better(unit)
    assert noise.verdict(3.0, 2.0, 0.1, unit) == 'regressed'


@pytest.mark.parametrize('unit', [
    'MB/s', 'GB/s', 'Gflop/s', 'MFLOP/s', 'Mop/s', 'iter/s', '1/s', 'GHz',
    '%', 'msg/s', 'mops', '', None, 'seconds^-1'])
def test_rates_and_everything_else_are_better_higher(unit):
    assert noise.higher_is_better(unit)


@pytest.mark.parametrize('unit', ['MB/s', 'ns', 'usec', 's/iter'])
def test_a_figure_of_0_is_the_worst_value(unit):
    '''A bandwidth of 0 lost everything, a time of 0 is no measurement:
    regressed whatever the band, never improved or within noise.'''
    for width in (0.1, 0.7, 1.0):
        assert noise.verdict(0.0, 36.6, width, unit) == 'regressed'

    assert noise.verdict(-1.0, 36.6, 0.25, unit) == 'regressed'


def test_among_ten_runs_one_odd_run_does_not_widen_the_band():
    # the median absolute deviation and the range term both ignore it
    median, width = noise.band([100, 101, 99, 100, 100, 101, 99, 100, 101,
                                60], floor=0.01)
    assert median == 100
    # deviations are factors: 4 robust standard deviations of about 1 %
    spread = 4 * 1.4826 * math.log(1.01)
    assert width == pytest.approx(1 - math.exp(-spread), abs=1e-3)


def test_a_jump_seen_in_few_quiet_runs_is_noise_it_can_repeat():
    # memory latency at the L3 working set in 3 quiet runs of a KVM guest:
    # the next quiet runs measured 49.9 ns again
    median, width = noise.band([17.9, 48.9, 18.5], floor=0.15)
    assert median == 18.5
    # a factor of 48.9 / 18.5 seen, half as far again allowed: 79.5 ns
    assert width == pytest.approx(1 - (18.5 / 48.9) ** 1.5, abs=1e-3)
    assert noise.verdict(49.9, median, width, 'ns') == 'within noise'
    assert noise.verdict(90.0, median, width, 'ns') == 'regressed'


def test_the_family_floor_is_the_narrowest_band():
    assert noise.band([36.6, 36.9, 35.7], noise.family_floor('StreamCheck')
                      ) == (36.6, 0.25)
    assert noise.family_floor('MemoryLatencyCheck') == 0.15
    assert noise.family_floor('SomethingElse') == noise.DEFAULT_FLOOR


def test_a_systems_floors_replace_its_families_defaults():
    floors = noise.parse_floors('Memory=0.5, Network=0.3')
    assert floors == {'Memory': 0.5, 'Network': 0.3}
    assert noise.family_floor('MemoryDaxpyCheck', floors) == 0.5
    assert noise.family_floor('StreamCheck', floors) == 0.25


@pytest.mark.parametrize('text, named', [
    ('Memroy=0.5', "unknown family 'Memroy'"),
    ('Memory=half', "'half' is not a fraction"),
    ('Memory=2', "'Memory=2': a fraction in [0, 1]"),
])
def test_a_bad_floor_is_named(text, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        noise.parse_floors(text)


@pytest.mark.parametrize('value, expected', [
    (17.7, 'regressed'),      # STREAM triad beside a memory-bandwidth hog
    (32.0, 'within noise'),   # a quiet night a +-5 % band failed
    (50.0, 'improved'),
])
def test_bandwidth_verdicts(value, expected):
    assert noise.verdict(value, 36.6, 0.25, 'GB/s') == expected


def test_a_time_and_its_rate_get_one_verdict():
    # DotStreams, 8 streams, all cores, in the quiet proof's fourth run:
    # the same measurement as bandwidth and as time per iteration
    assert noise.verdict(33.0, 53.8, 0.5, 'GB/s') == 'within noise'
    assert noise.verdict(0.971, 0.594, 0.5, 'ns') == 'within noise'
    assert noise.verdict(26.0, 53.8, 0.5, 'GB/s') == 'regressed'
    assert noise.verdict(0.594 * 53.8 / 26.0, 0.594, 0.5, 'ns') == \
        'regressed'


def test_the_band_is_symmetric_as_factors():
    low, high = noise.limits(36.6, 0.25)
    assert low == pytest.approx(36.6 * 0.75)
    assert high == pytest.approx(36.6 / 0.75)
    assert noise.limits(1.0, 1.0) == (0.0, None)


def test_latency_is_better_lower():
    # 151 ns against 124: a CPU hog on the benchmark's core
    assert noise.verdict(151, 124, 0.15, 'ns') == 'regressed'
    assert noise.verdict(100, 124, 0.15, 'ns') == 'improved'


def test_only_the_worse_side_is_bounded():
    assert noise.tolerances(0.2, 'MB/s') == (-0.2, None)
    assert noise.tolerances(1.5, 'MB/s') == (-1.0, None)
    # the bound of a time is that of a rate: 0.2 less rate, 0.25 more time
    assert noise.tolerances(0.2, 'ns') == (None, 0.25)
    assert noise.tolerances(0.5, 'ns') == (None, 1.0)
    assert noise.tolerances(1.0, 'ns') == (None, None)
