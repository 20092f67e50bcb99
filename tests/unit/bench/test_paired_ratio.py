'''The bench scripts' paired comparison (ci/bench/paired_ratio.py): the
median's exact interval against published tables, the verdicts, and the
rates files the scripts write.'''

import importlib.util
import io
import math
import random

import pytest

from conftest import PROJECT_DIR

_spec = importlib.util.spec_from_file_location(
    'paired_ratio', PROJECT_DIR / 'ci' / 'bench' / 'paired_ratio.py')
paired_ratio = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(paired_ratio)


def test_binomial_cdf_of_a_fair_coin():
    assert paired_ratio.binomial_cdf(0, 6) == 1 / 64
    assert paired_ratio.binomial_cdf(1, 10) == 11 / 1024
    assert paired_ratio.binomial_cdf(10, 10) == 1


# Ranks of the 95 % interval of the median as the tables give them
# (e.g. Conover, Practical Nonparametric Statistics, table A3; Campbell &
# Gardner, BMJ 1988): n=6 -> (1, 6), n=10 -> (2, 9), n=20 -> (6, 15),
# n=30 -> (10, 21), n=50 -> (18, 33).
@pytest.mark.parametrize('n, rank', [(6, 1), (8, 1), (9, 2), (10, 2),
                                     (20, 6), (30, 10), (50, 18)])
def test_the_interval_ranks_are_the_tables(n, rank):
    assert paired_ratio.median_interval_rank(n) == rank


def test_five_pairs_give_no_95_percent_interval():
    # even [min, max] of 5 covers only 1 - 2/32 = 93.75 %
    assert paired_ratio.median_interval_rank(5) is None
    assert paired_ratio.median_interval_rank(5, confidence=0.9) == 1
    assert paired_ratio.median_interval([1.0] * 5) == (None, 1.0, None)


def test_the_interval_is_the_order_statistics_of_the_ranks():
    values = [1.05, 0.97, 1.01, 0.99, 1.00, 1.03, 0.98, 1.02, 0.96, 1.04]
    # sorted: 0.96 0.97 0.98 0.99 1.00 1.01 1.02 1.03 1.04 1.05; ranks 2, 9
    assert paired_ratio.median_interval(values) == (0.97, 1.005, 1.04)


def test_the_interval_covers_the_median_as_often_as_it_says():
    # lognormal ratios, true median 1: coverage of the exact interval of
    # 10 values is 1 - 2 * 11/1024 = 97.9 %, whatever the distribution
    rng = random.Random(26)
    covered = 0
    trials = 4000
    for _ in range(trials):
        values = [math.exp(rng.gauss(0, 0.1)) for _ in range(10)]
        low, _, high = paired_ratio.median_interval(values)
        covered += low <= 1 <= high

    assert covered / trials == pytest.approx(1 - 2 * 11 / 1024, abs=0.01)


def test_half_width_is_the_larger_side_relative_to_the_median():
    assert paired_ratio.half_width(0.99, 1.0, 1.02) == pytest.approx(0.02)
    assert paired_ratio.half_width(None, 1.0, None) == math.inf


@pytest.mark.parametrize('low, high, expected', [
    (0.98, 1.02, 'within'),
    (0.97, 1.03, 'within'),
    (0.90, 0.96, 'below'),
    (1.04, 1.10, 'above'),
    # wholly below 1 but reaching into the tolerance: not shown to be
    # more than 3 % slower, nor within 3 %
    (0.95, 0.99, 'inconclusive'),
    (0.95, 1.05, 'inconclusive'),
    (None, None, 'inconclusive'),
])
def test_verdicts(low, high, expected):
    assert paired_ratio.verdict(low, high, 0.03) == expected


def rates_file(*lines):
    return paired_ratio.read_rates(io.StringIO('\n'.join(lines)))


def test_ratios_are_taken_within_each_pair():
    # a slow phase in pair 2 slows both sides: the ratio is unchanged
    rates = rates_file('1 triad ours 100', '1 triad McCalpin 100',
                       '2 triad ours 50', '2 triad McCalpin 50',
                       '3 triad ours 99')
    assert paired_ratio.ratios(rates['triad'], 'McCalpin') == [1.0, 1.0]


def test_the_best_peer_has_the_highest_median():
    rates = rates_file('1 read ours 40', '1 read ddot_avx 42',
                       '1 read load_avx 38', '2 read ours 41',
                       '2 read ddot_avx 41', '2 read load_avx 39')
    rows = paired_ratio.compare(rates)
    assert [(r['peer'], r['best']) for r in rows] == [
        ('ddot_avx', True), ('load_avx', False)]


def many_pairs(ratio, pairs=20, jitter=0.002):
    lines = []
    for pair in range(1, pairs + 1):
        peer = 1000 * (1 + 0.3 * (pair % 3))    # the machine's phases
        wobble = 1 + jitter * ((pair % 5) - 2)
        lines += [f'{pair} triad ours {peer * ratio * wobble}',
                  f'{pair} triad McCalpin {peer}']
    return rates_file(*lines)


@pytest.mark.parametrize('ratio, status, said', [
    (1.01, 0, 'within 3 %'),
    (0.90, 1, 'BELOW'),
    (1.10, 1, 'ABOVE'),
    (0.97, 2, 'inconclusive'),
])
def test_table_lines_and_exit_status(ratio, status, said):
    out = io.StringIO()
    assert paired_ratio.table(many_pairs(ratio), 0.03, 0.95, out) == status
    [line] = out.getvalue().splitlines()
    assert line.startswith('triad    vs McCalpin      20 pairs')
    assert said in line and '95 % interval [' in line


def test_narrow_waits_for_enough_pairs_and_a_narrow_interval():
    out = io.StringIO()
    assert paired_ratio.narrow(many_pairs(1.0), 0.015, 10, 0.95, out) == 0
    assert 'after 20 pairs: widest interval +-0.' in out.getvalue()
    assert paired_ratio.narrow(many_pairs(1.0, pairs=8), 0.015, 10,
                               0.95, io.StringIO()) == 1
    wide = many_pairs(1.0, jitter=0.05)
    assert paired_ratio.narrow(wide, 0.015, 10, 0.95, io.StringIO()) == 1


@pytest.mark.parametrize('line, named', [
    ('1 triad ours', 'expected PAIR FIGURE SIDE VALUE'),
    ('1 triad ours fast', "'fast' is not a number"),
    ('1 triad ours 0', 'a rate must be positive'),
])
def test_a_bad_rates_line_is_named(line, named):
    with pytest.raises(paired_ratio.RatesError, match=named) as err:
        rates_file('1 triad McCalpin 10', line)
    assert 'rates:2:' in str(err.value)


def test_a_pair_given_twice_is_refused():
    with pytest.raises(paired_ratio.RatesError, match='pair 1 of triad ours'):
        rates_file('1 triad ours 10', '1 triad ours 11')


def test_the_command_line_reports_a_missing_file(tmp_path, capsys):
    assert paired_ratio.main(['table', str(tmp_path / 'none')]) == 2
    assert 'paired_ratio:' in capsys.readouterr().err
