'''NPB output parsing and judging (hpc_acceptance.npb.output), against real
NPB 3.4 output (tests/fixtures/data/npb/README.md says where each file comes
from).'''

import re

import pytest

from conftest import DATA_DIR
from hpc_acceptance.npb.output import (NpbOutputError, complaints,
                                       parse_summary, result_problems)

NPB_DIR = DATA_DIR / 'npb'
# <bench>.<class>.<ranks>.out: complete, verified runs
VERIFIED = sorted(p for p in NPB_DIR.glob('*.out')
                  if re.fullmatch(r'[a-z]{2}\.[SW]\.\d\.out', p.name))


def read(name):
    return (NPB_DIR / name).read_text()


def asked(name):
    bench, npb_class, ranks = name.split('.')[:3]
    return dict(benchmark=bench, npb_class=npb_class, num_procs=int(ranks))


def test_every_benchmark_class_and_rank_count_is_covered():
    assert len(VERIFIED) == 44
    assert {p.name.split('.')[0] for p in VERIFIED} == set(
        'bt cg ep ft is lu mg sp'.split())


@pytest.mark.parametrize('path', VERIFIED, ids=lambda p: p.name)
def test_verified_runs_have_no_problems(path):
    text = path.read_text()
    summary = parse_summary(text, path.name)
    expected = asked(path.name)
    assert summary.benchmark == expected['benchmark']
    assert summary.npb_class == expected['npb_class']
    assert summary.total_processes == expected['num_procs']
    assert summary.verification == 'SUCCESSFUL'
    assert summary.mops_total > 0
    assert result_problems(text, **expected) == []


def test_summary_figures_are_read_as_printed():
    summary = parse_summary(read('cg.W.2.out'))
    assert (summary.mops_total, summary.mops_per_process, summary.time) == (
        3325.72, 1662.86, 0.13)
    assert (summary.version, summary.active_processes) == ('3.4', 2)


def test_is_summary_without_trailing_period_and_zero_time():
    # IS prints "IS Benchmark Completed" and, at class S, 0.00 seconds
    summary = parse_summary(read('is.S.1.out'))
    assert (summary.benchmark, summary.time, summary.mops_total) == (
        'is', 0.0, 297.41)


def test_unsuccessful_verification_fails_although_mpirun_exited_0():
    problems = result_problems(read('bt.S.1.unsuccessful-class-U.out'),
                               benchmark='bt', npb_class='S', num_procs=1)
    assert problems == [
        'Verification = UNSUCCESSFUL (the benchmark failed its own '
        'verification)',
        'Class = U, expected S',
    ]


def test_truncated_output_names_the_file_and_the_benchmark():
    with pytest.raises(NpbOutputError,
                       match=r'^cg\.W\.2\.truncated\.out: the CG benchmark '
                             r'started but printed no "Benchmark Completed" '
                             r'summary \(truncated output or crashed run\?\)'):
        parse_summary(read('cg.W.2.truncated.out'), 'cg.W.2.truncated.out')

    problems = result_problems(read('cg.W.2.truncated.out'), benchmark='cg',
                               npb_class='W', num_procs=2)
    assert len(problems) == 1 and 'truncated' in problems[0]


def test_summary_cut_short_names_the_missing_fields():
    text = read('cg.W.2.out')
    cut = text[:text.index(' Mop/s total')]
    with pytest.raises(NpbOutputError,
                       match=r"lacks 'Mop/s total', 'Mop/s/process', "
                             r"'Verification', 'Version'"):
        parse_summary(cut, 'cut.out')


def test_fortran_overflow_asterisks_are_not_a_number():
    text = read('cg.W.2.out').replace('3325.72', '*******')
    with pytest.raises(NpbOutputError,
                       match=r"^bad\.out:\d+: mops_total is not a number: "
                             r"'\*\*\*\*\*\*\*'$"):
        parse_summary(text, 'bad.out')


def test_fewer_active_processes_fails_the_run():
    # BT on 2 ranks works on 1 (not square) and still verifies
    text = read('bt.S.2.active-processes-warning.out')
    assert parse_summary(text).verification == 'SUCCESSFUL'
    assert result_problems(text, benchmark='bt', npb_class='S',
                           num_procs=2) == [
        'NPB says: WARNING: Number of active processes: 1',
        'Active procs = 1 of 2: NPB left ranks idle',
    ]


def test_mg_on_three_ranks_fails_although_it_verifies():
    text = read('mg.S.3.active-processes-warning.out')
    problems = result_problems(text, benchmark='mg', npb_class='S',
                               num_procs=3)
    assert problems[0] == ('NPB says: WARNING: The benchmark requires '
                           'power-of-two processes.')
    assert 'Active procs = 2 of 3: NPB left ranks idle' in problems


def test_ft_refusing_to_verify_is_reported_with_its_reason():
    problems = result_problems(read('ft.S.3.not-power-of-two.out'),
                               benchmark='ft', npb_class='S', num_procs=3)
    assert problems[0] == ('NPB says: WARNING: Number of processes is not '
                           'power of two (2). Will not verify.')
    assert ('Verification = UNSUCCESSFUL (the benchmark failed its own '
            'verification)') in problems


def test_count_the_benchmark_refuses_gives_npb_error_and_no_summary():
    problems = result_problems(read('cg.S.3.error-not-power-of-two.out'),
                               benchmark='cg', npb_class='S', num_procs=3)
    assert problems == [
        'NPB says: ERROR: Number of processes (3) is not a power of two (2?)',
        '<output>: no NPB benchmark header and no "Benchmark Completed" '
        'summary (truncated output or crashed run?)',
    ]


@pytest.mark.parametrize('changes, problem', [
    (dict(npb_class='W'), 'Class = S, expected W'),
    (dict(num_procs=4), 'Total processes = 2, expected 4'),
    (dict(benchmark='mg'), 'the output is from CG, not MG'),
])
def test_a_run_unlike_the_one_asked_for_fails(changes, problem):
    ask = dict(benchmark='cg', npb_class='S', num_procs=2)
    ask.update(changes)
    assert result_problems(read('cg.S.2.out'), **ask) == [problem]


def test_complaints_ignore_ordinary_lines():
    assert complaints(read('lu.W.4.out')) == []
