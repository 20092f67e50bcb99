'''What a job's exit status and Slurm's lines in its standard error say.

The Slurm lines are the ones Slurm 22.05 wrote to jobs of the tests'
namespaced cluster (tests/e2e/test_slurm_multinode.py).'''

import pytest

from hpc_acceptance.core import job_status

NODE_FAILURE = ('slurmstepd-n1: error: *** JOB 4 ON n1 CANCELLED AT '
                '2026-11-23T05:06:08 DUE TO NODE FAILURE, SEE SLURMCTLD LOG '
                'FOR DETAILS ***')
LAUNCH_FAILED = 'srun: error: task 1 launch failed: Unspecified error'


@pytest.fixture
def stderr(tmp_path):
    def write(*lines):
        path = tmp_path / 'rfm_job.err'
        path.write_text(''.join(f'{line}\n' for line in lines))
        return str(path)

    return write


def test_a_job_without_status_or_slurm_lines_has_no_problem(stderr):
    assert job_status.exit_problems(None, stderr('benchmark noise')) == []
    assert job_status.exit_problems(0) == []


def test_slurm_ending_a_job_is_a_problem_without_exit_status(stderr):
    problems = job_status.exit_problems(
        None, stderr('noise', NODE_FAILURE, NODE_FAILURE, LAUNCH_FAILED))
    assert problems == [
        'Slurm: *** JOB 4 ON n1 CANCELLED AT 2026-11-23T05:06:08 DUE TO '
        'NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***',
        f'Slurm: {LAUNCH_FAILED}',
    ]


def test_a_failed_exit_status_names_the_first_error(stderr):
    path = stderr('-' * 20, 'mpirun noticed that process rank 1 exited')
    assert job_status.exit_problems(3, path) == [
        'exit status 3 (mpirun noticed that process rank 1 exited)']


def test_a_job_slurm_ended_ended_early_even_without_status(stderr):
    assert job_status.ended_early(None, stderr(NODE_FAILURE))
    assert job_status.ended_early(2, stderr())
    assert not job_status.ended_early(None, stderr('noise'))
    assert not job_status.ended_early(0, stderr('noise'))
