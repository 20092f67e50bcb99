'''The output of src/network's net_pairs, as the network checks read it
(real runs on this project's 2-core test machine,
tests/fixtures/data/network).'''

import pytest

from conftest import DATA_DIR
from hpc_acceptance.core.figures import output_problems, parse_figures

NETWORK = DATA_DIR / 'network'
SUMMARY = {'latency': 'us', 'bandwidth': 'MB/s',
           'bandwidth_aggregate': 'MB/s', 'bandwidth_effective': 'MB/s'}
SIZES = [0] + [2**k for k in range(23)]


def figures(name):
    return parse_figures((NETWORK / name).read_text(), name)


@pytest.mark.parametrize('name', ['net_pairs.pingpong.single.2ranks.out',
                                  'net_pairs.pingping.multi.2ranks.out'])
def test_runs_validate_and_print_the_summary(name):
    text = (NETWORK / name).read_text()
    assert output_problems(text, SUMMARY, name) == []


@pytest.mark.parametrize('name', ['net_pairs.pingpong.single.2ranks.out',
                                  'net_pairs.pingping.multi.2ranks.out'])
def test_summary_is_derived_from_the_sweep(name):
    fig = figures(name)
    assert [n for n in SIZES if f'time.{n}B' in fig] == SIZES
    assert 'bandwidth.0B' not in fig
    assert fig['latency'].value == fig['time.0B'].value
    assert fig['bandwidth'].value == fig['bandwidth.4194304B'].value
    # one pair: the aggregate is the pair's
    assert fig['bandwidth_aggregate'].value == fig['bandwidth'].value
    mean = sum(fig[f'bandwidth.{n}B'].value for n in SIZES[1:]) / 23
    assert fig['bandwidth_effective'].value == pytest.approx(mean, rel=1e-5)


def test_pingpong_bandwidth_is_bytes_over_one_way_time():
    fig = figures('net_pairs.pingpong.single.2ranks.out')
    n = 4194304
    assert fig[f'bandwidth.{n}B'].value == pytest.approx(
        n / fig[f'time.{n}B'].value, rel=1e-5)


def test_pingping_counts_both_directions():
    fig = figures('net_pairs.pingping.multi.2ranks.out')
    n = 1048576
    assert fig[f'bandwidth.{n}B'].value == pytest.approx(
        2 * n / fig[f'time.{n}B'].value, rel=1e-5)


def test_corrupted_transfer_fails_with_where_and_what():
    text = (NETWORK / 'net_pairs.corrupted.out').read_text()
    assert output_problems(text, SUMMARY) == [
        'the program failed its own validation: rank 0: byte 0 of a 1-byte '
        'message from rank 1 is 0x7b, expected 0x21']
