'''The settings a command runs with (hpc_acceptance.tools.common.
command_settings): read once from the options and the environment, each
checked there, the options winning.'''

import os
import pwd

import pytest

from hpc_acceptance.core import site
from hpc_acceptance.tools.common import command_settings as settings


def test_the_option_wins_over_the_environment_and_says_so(tmp_path):
    env = {settings.DB_FILE: str(tmp_path / 'env.db')}
    assert settings.read(env).db == str(tmp_path / 'env.db')
    assert settings.read(env).db_from == settings.DB_FILE
    given = settings.read(env, db=str(tmp_path / 'named.db'))
    assert (given.db, given.db_from) == (str(tmp_path / 'named.db'), '--db')
    assert settings.read({}).db == str(settings.DEFAULT_DB)
    assert settings.read({}).db_from == 'the default'


def test_the_lists_and_numbers_a_site_writes_are_read():
    given = settings.read({settings.UNREFERENCED_OK: ' cluster, other  x ',
                           settings.DB_BACKUPS: '3',
                           settings.SHIFT_LIMIT: 'Memory=0.05',
                           settings.SYSTEM: 'cluster'})
    assert given.unreferenced_ok == {'cluster', 'other', 'x'}
    assert given.db_backups == 3
    assert given.shift_limit == 'Memory=0.05'
    assert given.system == 'cluster'
    assert settings.read({}).unreferenced_ok == frozenset()
    assert settings.read({}).db_backups == settings.DEFAULT_BACKUPS


def test_reframe_s_own_folders_are_read_once_empty_as_unset():
    given = settings.read({'RFM_PREFIX': '/site/rfm', 'RFM_STAGE_DIR': '',
                           'RFM_OUTPUT_DIR': '/scratch/out',
                           'RFM_PERFLOG_DIR': '/site/perflogs'})
    assert given.reframe_dirs == settings.ReframeDirs(
        '/site/rfm', None, '/scratch/out', '/site/perflogs')
    assert settings.read({}).reframe_dirs == settings.ReframeDirs()


def test_the_run_lock_is_the_checkout_s_unless_named_or_held():
    assert (settings.read({}).lock_file, settings.read({}).lock_held) == (
        str(settings.DEFAULT_LOCK), False)
    given = settings.read({settings.LOCK_FILE: '/run/site.lock',
                           settings.LOCK_HELD: '1'})
    assert (given.lock_file, given.lock_held) == ('/run/site.lock', True)


def test_the_person_is_the_one_behind_sudo_else_the_login():
    assert settings.read({settings.SUDO_USER: 'alice',
                          'LOGNAME': 'root'}).user == 'alice'
    assert settings.read({'LOGNAME': 'bob', 'USER': 'x'}).user == 'bob'
    # no variable at all: the account of this process's uid
    assert settings.read({}).user == pwd.getpwuid(os.getuid()).pw_name


def test_a_reference_prefix_is_read_empty_as_unset():
    assert settings.read({settings.REFERENCE_PREFIX: '/site/ref'}
                         ).reference_prefix == '/site/ref'
    assert settings.read({settings.REFERENCE_PREFIX: ''}
                         ).reference_prefix is None


@pytest.mark.parametrize('variable, value', [
    (settings.DB_BACKUPS, '0'), (settings.DB_BACKUPS, 'seven'),
    (settings.DB_BACKUPS, '-1'), (settings.MAX_JOBS, '0'),
    (settings.MAX_JOBS, 'many')])
def test_a_setting_that_cannot_be_used_is_refused_by_name(variable, value):
    with pytest.raises(settings.BadSetting) as refused:
        settings.read({variable: value})
    assert str(refused.value).startswith(f'{variable}={value}: ')


def test_a_run_s_reframe_is_given_its_bound_on_jobs():
    assert settings.read({}).run_env() == {}
    assert settings.read({}, max_jobs='4').run_env() == \
        {settings.MAX_JOBS: '4'}
    # the option wins over the environment's
    assert settings.read({settings.MAX_JOBS: '9'}, max_jobs='4').run_env() \
        == {settings.MAX_JOBS: '4'}
    assert settings.read({settings.MAX_JOBS: '9'}).run_env() == \
        {settings.MAX_JOBS: '9'}


def test_reading_the_settings_changes_no_environment(monkeypatch):
    monkeypatch.setenv(settings.MAX_JOBS, '2')
    before = dict(os.environ)
    settings.read(max_jobs='8')
    assert dict(os.environ) == before


def test_the_site_directory_is_read_where_reframe_reads_it():
    assert settings.SITE_DIR == site.VARIABLE
    assert settings.read({site.VARIABLE: '/site'}).site_dir == '/site'
    assert settings.read({site.VARIABLE: ''}).site_dir is None
