'''HPCC output parser (hpc_acceptance.hpcc.output), against real runs.

tests/fixtures/data/hpcc/README.md says where each file comes from.
'''

import pytest

from hpc_acceptance.hpcc import output as hpcc_output
from hpc_acceptance.hpcc.output import (FIGURES, HpccOutputError,
                                        expected_figures, figure_value,
                                        parse_summary, problems)
from conftest import DATA_DIR

TWO_PROCESS_ONLY = {
    'pingpong_latency_min', 'pingpong_latency_avg', 'pingpong_latency_max',
    'pingpong_bandwidth_min', 'pingpong_bandwidth_avg',
    'pingpong_bandwidth_max', 'natural_ring_latency',
    'natural_ring_bandwidth', 'random_ring_latency', 'random_ring_bandwidth',
}


def read(name):
    return (DATA_DIR / 'hpcc' / name).read_text()


def test_summary_has_all_148_keys():
    summary = parse_summary(read('hpccoutf.2.txt'))
    assert len(summary) == 148
    assert summary['Success'] == '1'
    assert summary['HPL_Tflops'] == '0.00671953'


def test_every_figure_names_a_summary_key():
    keys = set(parse_summary(read('hpccoutf.2.txt')))
    assert {figure.key for figure in FIGURES.values()} <= keys
    assert len(FIGURES) == 31


def test_two_process_run_has_every_figure():
    text = read('hpccoutf.2.txt')
    summary = parse_summary(text)
    expected = expected_figures(2)
    assert set(expected) == set(FIGURES)
    assert problems(text, expected, num_processes=2) == []
    values = {name: figure_value(summary, fig)
              for name, fig in expected.items()}
    assert values['hpl'] == 0.00671953
    assert values['star_dgemm'] == 3.53733
    assert values['single_stream_triad'] == 27.7869
    assert values['mpi_random_access'] == 0.0264138
    assert values['single_random_access_lcg'] == 0.142483
    assert values['ptrans'] == 2.23863
    assert values['mpi_fft'] == 5.71935
    assert values['pingpong_latency_min'] == 0.324222
    assert values['pingpong_bandwidth_max'] == 10.0646
    assert values['random_ring_bandwidth'] == 9.72807


def test_one_process_leaves_out_what_hpcc_reports_as_minus_one():
    text = read('hpccoutf.1.txt')
    summary = parse_summary(text)
    expected = expected_figures(1)
    assert set(FIGURES) - set(expected) == TWO_PROCESS_ONLY
    assert problems(text, expected, num_processes=1) == []
    for name in TWO_PROCESS_ONLY:
        assert summary[FIGURES[name].key] == '-1'
        assert figure_value(summary, FIGURES[name]) is None


def test_a_minus_one_where_a_figure_is_expected_is_a_problem():
    found = problems(read('hpccoutf.1.txt'), expected_figures(2),
                     num_processes=2)
    assert found[0] == 'HPCC ran on 1 processes, expected 2'
    assert found[1].startswith('no value for pingpong_latency_min '
                               '(MinPingPongLatency_usec=-1), ')
    assert found[1].count('=-1') == 10


def test_truncated_run_names_the_section_it_stopped_in():
    text = read('hpccoutf.2.truncated.txt')
    with pytest.raises(HpccOutputError) as err:
        parse_summary(text, 'stage/hpccoutf.txt')

    assert str(err.value) == (
        'stage/hpccoutf.txt: HPCC did not finish: it stopped in its '
        'MPIRandomAccess section; no complete "Summary" section (cut short '
        'by a time limit, killed, or crashed?)'
    )
    assert problems(text, expected_figures(2), num_processes=2,
                    source='stage/hpccoutf.txt') == [str(err.value)]


def test_run_cut_between_sections_and_before_any():
    text = read('hpccoutf.2.txt')
    cut = text[:text.index('Begin of PTRANS section.')]
    with pytest.raises(HpccOutputError,
                       match='stopped after its SingleRandomAccess_LCG'):
        parse_summary(cut)

    header = text[:text.index('Begin of MPIRandomAccess section.')]
    with pytest.raises(HpccOutputError, match='no section began'):
        parse_summary(header)


def test_summary_cut_in_the_middle_is_incomplete():
    text = read('hpccoutf.2.txt')
    cut = text[:text.index('PTRANS_GBs=')]
    with pytest.raises(HpccOutputError, match='stopped in its Summary'):
        parse_summary(cut)


def test_failed_hpl_residual_check_fails_the_run():
    text = read('hpccoutf.1.hpl-residual-failed.txt')
    found = problems(text, expected_figures(1), num_processes=1)
    assert found == [
        'HPCC reports Success=0: a component failed its verification',
        'HPL failed its residual check in 1 of 1 tests '
        '(||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=        '
        '0.0071960 ...... FAILED)',
    ]


def test_hpl_residual_check_reads_the_hpl_section_only():
    # PTRANS prints "tests completed and passed residual checks" too
    assert hpcc_output.hpl_residual_problems(read('hpccoutf.2.txt')) == []
    text = read('hpccoutf.2.txt')
    without_hpl = text.replace('Begin of HPL section.', 'Begin of X section.')
    assert hpcc_output.hpl_residual_problems(without_hpl) == [
        'no HPL section']
