'''The kernels' output format (hpc_acceptance.core.figures), against real
output.

The files in tests/fixtures/data/memory/ were captured from runs of the in-tree
kernels through ReFrame on a 2-core KVM guest.
'''

import pytest

from hpc_acceptance.core.figures import (Figure, OutputError, output_problems,
                                         parse_figures)
from conftest import DATA_DIR

LEVELS = ('l1', 'l2', 'l3', 'memory')


def read(name):
    return (DATA_DIR / 'memory' / name).read_text()


def test_latency_output_has_sweep_and_per_level_figures():
    figures = parse_figures(read('mem_latency.1thread.out'))
    assert figures['core_clock'].unit == 'GHz'
    assert figures['latency.4096B'].unit == 'ns'
    for level in LEVELS:
        assert figures[f'latency.{level}'].unit == 'ns'
        assert figures[f'cycles.{level}'].unit == 'cycles'

    # a ladder: every level slower than the one inside it
    ns = [figures[f'latency.{level}'].value for level in LEVELS]
    assert ns == sorted(ns)


def test_read_bandwidth_output():
    figures = parse_figures(read('mem_readbw.2threads.out'))
    assert set(figures) == {f'bandwidth.{level}' for level in LEVELS}
    assert figures['bandwidth.memory'] == Figure(40087.8, 'MB/s')


@pytest.mark.parametrize('name, expected', [
    ('mem_readbw.2threads.out',
     {f'bandwidth.{level}': 'MB/s' for level in LEVELS}),
    ('mem_dotstreams.2streams.2threads.out',
     {'bandwidth': 'MB/s', 'time_per_iteration': 'ns'}),
    ('mem_gatherdot.2threads.out',
     {f'time_per_iteration.{level}': 'ns' for level in LEVELS}),
    ('mem_daxpy.1thread.out',
     {**{f'flops.{level}': 'MFLOP/s' for level in LEVELS},
      **{f'time_per_iteration.{level}': 'ns' for level in LEVELS}}),
])
def test_real_outputs_have_no_problems(name, expected):
    assert output_problems(read(name), expected) == []


def test_truncated_output_is_a_problem():
    text = read('mem_readbw.2threads.out')
    cut = text[:text.index('bandwidth.l3')]
    problems = output_problems(cut, {'bandwidth.l3': 'MB/s'})
    assert any('truncated' in p for p in problems)
    assert "figure 'bandwidth.l3' is missing" in problems


def test_failed_validation_reports_the_programs_reason():
    text = read('mem_readbw.2threads.out').replace(
        '# validation: passed',
        '# validation: FAILED memory: sum 1.5 differs from expected 2')
    assert output_problems(text, {'bandwidth.l1': 'MB/s'}) == [
        'the program failed its own validation: memory: sum 1.5 differs '
        'from expected 2'
    ]


def test_non_finite_and_wrong_unit_figures_are_problems():
    text = read('mem_readbw.2threads.out')
    text = text.replace('bandwidth.l1 391566 MB/s', 'bandwidth.l1 nan MB/s')
    text = text.replace('bandwidth.l2 293080 MB/s', 'bandwidth.l2 293 GB/s')
    problems = output_problems(text, {'bandwidth.l1': 'MB/s',
                                      'bandwidth.l2': 'MB/s'})
    assert problems == ["figure 'bandwidth.l1' is not finite: nan",
                        "figure 'bandwidth.l2' is in 'GB/s', expected 'MB/s'"]


def test_numa_on_one_node_prints_no_figures():
    text = read('mem_numa.one-node.out')
    assert parse_figures(text) == {}
    assert 'only one NUMA node online' in text


@pytest.mark.parametrize('line, message', [
    ('bandwidth.l1 fast MB/s', "value of 'bandwidth.l1' is not a number"),
    ('Segmentation fault', 'not a "name value unit" line'),
])
def test_garbage_lines_are_errors_with_line_numbers(line, message):
    with pytest.raises(OutputError, match=message) as err:
        parse_figures(f'# header\n{line}\n', source='job.out')

    assert str(err.value).startswith('job.out:2:')


def test_a_figure_printed_twice_is_an_error():
    with pytest.raises(OutputError, match='printed twice'):
        parse_figures('bandwidth 1 MB/s\nbandwidth 2 MB/s\n')
