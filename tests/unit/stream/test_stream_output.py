'''STREAM output parsers (hpc_acceptance.stream.output), against real runs.

tests/fixtures/data/stream/README.md says where each file comes from.
'''

import pytest

from hpc_acceptance.stream import output as stream_output
from hpc_acceptance.stream.output import StreamOutputError, parse, problems
from conftest import DATA_DIR


def read(name):
    return (DATA_DIR / 'stream' / name).read_text()


def test_mccalpin_openmp_run():
    run = parse(read('stream_c.default-10M.omp2.txt'))
    assert run.implementation == stream_output.MCCALPIN
    assert run.elements == 10_000_000
    assert run.bytes_per_element == 8
    assert run.array_bytes == 80_000_000
    assert run.ntimes == 10
    assert run.threads == 2
    assert run.rates == {'copy': 23467.1, 'scale': 19990.1, 'add': 22946.9,
                         'triad': 22507.7}
    assert run.validated is True
    assert problems(run, threads=2, min_elements=10_000_000) == []


def test_mccalpin_without_openmp_prints_no_thread_count():
    run = parse(read('stream_c.default-10M.serial.txt'))
    assert run.threads is None
    assert run.rates['triad'] == 13828.9
    assert problems(run, threads=1) == []
    [problem] = problems(run, threads=2)
    assert 'built without OpenMP' in problem
    assert 'stream+openmp' in problem


def test_fortran_stream_reads_the_same_way():
    run = parse(read('stream_f.default.serial.txt'))
    assert run.implementation == stream_output.MCCALPIN
    assert run.elements == 20_000_000
    assert run.ntimes == 10
    assert run.rates['copy'] == 17920.1
    assert run.validated is True


def test_mccalpin_array_below_four_times_llc_is_refused_with_the_fix():
    run = parse(read('stream_c.default-10M.omp2.txt'))
    [problem] = problems(run, threads=2, min_elements=251_658_240)
    assert 'arrays of 10000000 elements' in problem
    assert 'measure caches, not memory' in problem
    assert 'stream_array_size=251658240' in problem


def test_mccalpin_failed_validation_is_reported_in_its_words():
    run = parse(read('stream_c.omp2-10M.failed-validation.txt'))
    assert run.validated is False
    # the rates were printed before validation: they must not count
    assert run.rates['triad'] == 11995.1
    assert problems(run, threads=2) == [
        "McCalpin's STREAM failed its own validation: Failed Validation on "
        "array a[], AvgRelAbsErr > epsilon (1.000000e-13); Failed Validation "
        "on array c[], AvgRelAbsErr > epsilon (1.000000e-13)"
    ]


def test_mccalpin_truncated_run_has_no_verdict_and_no_rates():
    run = parse(read('stream_c.omp2-4xLLC.truncated.txt'))
    assert run.elements == 251_658_240
    assert run.validated is None
    assert run.rates == {}
    found = problems(run, threads=2, min_elements=251_658_240)
    assert found[0] == ("McCalpin's STREAM printed no validation verdict "
                        "(truncated or crashed run?)")
    assert 'no triad rate in the output' in found


def test_in_tree_run():
    run = parse(read('stream_intree.omp2-10M.txt'))
    assert run.implementation == stream_output.IN_TREE
    assert run.elements == 10_000_000
    assert run.bytes_per_element == 8
    assert run.ntimes == 10
    assert run.threads == 2
    assert set(run.rates) == set(stream_output.KERNELS)
    assert all(rate > 1000 for rate in run.rates.values())
    assert run.validated is True
    assert problems(run, threads=2, min_elements=10_000_000) == []
    assert 'ran 2 threads, expected 1' in problems(run, threads=1)[0]


def test_in_tree_failed_validation():
    run = parse(read('stream_intree.omp2-10M.failed-validation.txt'))
    assert run.validated is False
    assert run.rates == {}
    [problem] = problems(run, threads=2)
    assert problem.startswith('stream_intree failed its own validation: '
                              'array a: average relative error 1.000e-07')


def test_in_tree_truncated_run():
    run = parse(read('stream_intree.omp2-4xLLC.truncated.txt'))
    assert run.validated is None
    found = problems(run, threads=2, min_elements=251_658_240)
    assert 'stream_intree printed no validation verdict' in found[0]
    assert len(found) == 5   # no verdict and no rate for any kernel


def test_in_tree_below_the_rule_says_which_variable_to_raise():
    run = parse(read('stream_intree.omp2-10M.txt'))
    [problem] = problems(run, threads=2, min_elements=10_000_001)
    assert 'Raise array_elements to at least 10000001' in problem


def test_other_output_is_named_by_its_source():
    text = read('../hpcc/hpccoutf.1.txt')
    with pytest.raises(StreamOutputError, match=r'^rfm_job\.out: not STREAM '
                       r'output .* starts with \'#####'):
        parse(text, 'rfm_job.out')

    with pytest.raises(StreamOutputError, match=r'\(empty output\)'):
        parse('', 'rfm_job.out')


def test_mccalpin_run_that_does_not_say_its_repetitions_is_refused():
    # its figures' identity records the repetitions the binary ran
    text = read('stream_c.default-10M.omp2.txt').replace(
        'Each kernel will be executed 10 times.', '')
    run = parse(text)
    assert run.ntimes is None
    assert problems(run, threads=2) == [
        "McCalpin's STREAM did not print its repetitions (NTIMES): what ran "
        "cannot be recorded"]
