'''The job's commands for what ``spack load --sh`` printed with the markers
(hpc_acceptance.core.spack_load.job_command), and their effect in a shell.'''

import subprocess

import pytest

from hpc_acceptance.core.spack_load import MARKER, job_command

JOB_PATH = '/usr/bin:/bin'


def in_job(command, **job_values):
    '''The value the job's shell has after ``command``, for each variable
    it sets (``None``: unset), starting from ``job_values``.'''
    done = subprocess.run(
        ['bash', '-c', f'{command}\nprintf "%s" "${{X-<unset>}}"'],
        env={'PATH': JOB_PATH, **job_values}, capture_output=True,
        text=True, check=True)
    return None if done.stdout == '<unset>' else done.stdout


@pytest.mark.parametrize('spack_value, job_value, expected', [
    # prepended: the job's value after Spack's part, no empty element
    # where the job has none
    (f'/s/lib/pkgconfig:{MARKER}X', '/site', '/s/lib/pkgconfig:/site'),
    (f'/s/lib/pkgconfig:{MARKER}X', None, '/s/lib/pkgconfig'),
    # appended
    (f'{MARKER}X:abc', 'old', 'old:abc'),
    (f'{MARKER}X:abc', None, 'abc'),
    # both sides (MANPATH: Spack ends it with ':', the system's default)
    (f'/s/man:{MARKER}X:', '/site/man', '/s/man:/site/man:'),
    (f'/s/man:{MARKER}X:', None, '/s/man:'),
    # set outright, whatever the job had; a value with a space
    ('/usr/bin/mpicc', 'cc', '/usr/bin/mpicc'),
    ('a b', None, 'a b'),
    # unset
    (None, 'old', None),
])
def test_spack_value_relative_to_the_jobs_own(spack_value, job_value,
                                              expected):
    command = job_command('X', spack_value)
    values = {} if job_value is None else {'X': job_value}
    assert in_job(command, **values) == expected


def test_path_keeps_the_jobs_own_after_spacks_directories():
    command = job_command('PATH', f'/s/bin:/t/bin:{MARKER}PATH')
    done = subprocess.run(['bash', '-c', f'{command}\nprintf "%s" "$PATH"'],
                          env={'PATH': JOB_PATH}, capture_output=True,
                          text=True, check=True)
    assert done.stdout == f'/s/bin:/t/bin:{JOB_PATH}'


@pytest.mark.parametrize('spack_value', [
    # the job's value twice, or glued to Spack's without a separator
    f'{MARKER}X:{MARKER}X',
    f'/s{MARKER}X',
    f'{MARKER}X/lib',
    # the job's value alone: nothing says what the load did to it
    f'{MARKER}X',
])
def test_what_cannot_be_written_relative_to_the_job_is_none(spack_value):
    assert job_command('X', spack_value) is None
