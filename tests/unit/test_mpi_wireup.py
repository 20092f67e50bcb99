'''The namespaced cluster's one rerun (tests/helpers/mpi_wireup.py): taken
on Open MPI's TCP wire-up warning only, with fresh perflogs and report.'''

import subprocess

import pytest

from helpers.mpi_wireup import WARNING, run_past_wireup_fault

FAILED = subprocess.CompletedProcess([], 1)
PASSED = subprocess.CompletedProcess([], 0)


def _runs(tmp_path, stderr, results):
    '''A run_reframe stand-in: each call leaves a job's stderr and a
    perflog line, and answers the next of ``results``.'''
    calls = []

    def run():
        calls.append(len(calls))
        stage = tmp_path / 'prefix' / 'stage' / 'HpccMultiNodeCheck_0ea1'
        stage.mkdir(parents=True, exist_ok=True)
        (stage / 'rfm_job.err').write_text(stderr)
        perflogs = tmp_path / 'perflogs'
        perflogs.mkdir(exist_ok=True)
        with open(perflogs / 'Hpcc.log', 'a') as log:
            log.write(f'run {len(calls)}\n')
        return results[len(calls) - 1]

    return run, calls


def test_a_wireup_fault_runs_once_more_with_fresh_perflogs(tmp_path):
    run, calls = _runs(tmp_path, f'--\nWARNING: {WARNING}.  This\n',
                       [FAILED, PASSED])
    with pytest.warns(UserWarning, match='HpccMultiNodeCheck_0ea1'):
        assert run_past_wireup_fault(run, tmp_path) is PASSED
    assert calls == [0, 1]
    assert (tmp_path / 'perflogs' / 'Hpcc.log').read_text() == 'run 2\n'


@pytest.mark.parametrize('stderr, results', [
    ('srun: error: n1: task 0: Segmentation fault\n', [FAILED, PASSED]),
    (f'WARNING: {WARNING}.\n', [PASSED, FAILED]),
])
def test_any_other_outcome_stands(tmp_path, stderr, results):
    run, calls = _runs(tmp_path, stderr, results)
    assert run_past_wireup_fault(run, tmp_path) is results[0]
    assert calls == [0]


def test_a_second_wireup_fault_is_the_answer(tmp_path):
    run, calls = _runs(tmp_path, f'WARNING: {WARNING}.\n', [FAILED, FAILED])
    with pytest.warns(UserWarning):
        assert run_past_wireup_fault(run, tmp_path) is FAILED
    assert calls == [0, 1]
