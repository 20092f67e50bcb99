'''``spack load`` worked out once per run (hpc_acceptance.core.spack_load)
has the effect of the real ``spack load`` in a job's shell, with the real
Spack of the CI subset (tests/helpers/spack_ci.py) and with a site's Spack on
PATH (tests/helpers/spack_site.py); skipped without the offline kit.
'''

import os
import subprocess

from helpers.spack_ci import MISSING_KIT
from helpers.spack_site import SET_NAME, SET_VALUE, UNSET_NAME
from hpc_acceptance.core import spack_load
import pytest

pytestmark = pytest.mark.skipif(MISSING_KIT is not None,
                                reason=MISSING_KIT or '')

#: The job's own values: none, or some that Spack prepends to.
JOB_VALUES = [{}, {'MANPATH': '/opt/site/man',
                   'PKG_CONFIG_PATH': '/opt/site/pkgconfig',
                   'CMAKE_PREFIX_PATH': '/opt/site',
                   'SPACK_LOADED_HASHES': 'abcdef'}]


def job_environment(script, environ):
    '''The environment a job's shell has after ``script``.'''
    done = subprocess.run(['bash', '-c', f'{script}\nenv -0'], env=environ,
                          capture_output=True, text=True, check=True)
    variables = dict(entry.split('=', 1)
                     for entry in done.stdout.split('\0') if entry)
    for name in ('_', 'SHLVL', 'PWD'):
        variables.pop(name, None)

    return variables


@pytest.mark.parametrize('job_values', JOB_VALUES)
def test_same_effect_as_spack_load_in_the_job(spack_ci, monkeypatch,
                                              job_values):
    record = spack_ci['record']
    monkeypatch.setenv('PATH', f"{record['spack_bin']}:/usr/bin:/bin")
    for name, value in {**record['env_vars'], **job_values}.items():
        monkeypatch.setenv(name, value)

    env, spec = str(spack_ci['env']), 'hpcc'
    spack_load.load_commands.cache_clear()
    commands = spack_load.load_commands(env, spec)
    assert commands is not None
    assert not any('spack ' in c for c in commands[1:]), commands

    by_spack = job_environment(f'eval "$(spack -e {env} load --sh {spec})"',
                               dict(os.environ))
    ours = job_environment('\n'.join(commands), dict(os.environ))
    # Spack's PATH is its own process's, whatever its start-up added to
    # it; ours is the job's own, with Spack's directories in front.
    spack_path, our_path = by_spack.pop('PATH'), ours.pop('PATH')
    assert ours == by_spack
    assert our_path.endswith(':' + os.environ['PATH']), our_path
    added = our_path[:-len(os.environ['PATH']) - 1].split(':')
    assert added == spack_path.split(':')[:len(added)]
    assert all(d.startswith(str(spack_ci['cache'])) and d.endswith('/bin')
               for d in added), added


def test_variables_spack_sets_to_the_callers_value_or_unsets(
        site_spack, monkeypatch):
    '''load-probe's load sets LOAD_PROBE_SET to the value the ReFrame
    process already has and unsets LOAD_PROBE_UNSET, which that process
    does not have, so ``spack load --sh`` there prints neither; the job's
    modules set both, and Open MPI's wrappers.'''
    for name, value in site_spack['environ'].items():
        monkeypatch.setenv(name, value)

    monkeypatch.setenv(SET_NAME, SET_VALUE)
    monkeypatch.delenv(UNSET_NAME, raising=False)
    env, spec = str(site_spack['env']), 'load-probe'
    spack_load.load_commands.cache_clear()
    commands = spack_load.load_commands(env, spec)
    assert commands is not None

    job = dict(os.environ, **{name: 'set-by-a-module' for name in
                              (SET_NAME, UNSET_NAME, 'MPICC')})
    by_spack = job_environment(f'eval "$(spack -e {env} load --sh {spec})"',
                               job)
    assert by_spack[SET_NAME] == SET_VALUE
    assert UNSET_NAME not in by_spack
    assert job_environment('\n'.join(commands), job) == by_spack


def test_a_load_that_reorders_a_path_is_left_to_the_job(
        site_spack, monkeypatch):
    '''load-probe-reorder moves the system's directories of a search path
    behind the others: what that gives depends on the job's own value.'''
    for name, value in site_spack['environ'].items():
        monkeypatch.setenv(name, value)

    spack_load.load_commands.cache_clear()
    assert spack_load.load_commands(str(site_spack['env']),
                                    'load-probe-reorder') is None
