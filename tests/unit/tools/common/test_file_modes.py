'''Who may read the files the tool writes
(hpc_acceptance.tools.common.file_modes): results private to the site and
the night's account whatever the caller's umask, unless the caller's is
stricter; settings an administrator writes for that account readable by
it. Through the command and the run lock as processes, as a run starts
them.'''

import os
import stat
import subprocess
import sys

import pytest

from conftest import DATA_DIR, PROJECT_DIR
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.common import file_modes
from hpc_acceptance.tools.results.atomic_file import write_atomically

COMMAND = PROJECT_DIR / '.venv' / 'bin' / 'hpc-acceptance'
REPORT = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'
LOCK = [sys.executable, '-m', 'hpc_acceptance.tools.launch.lock']


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def with_umask(mask, command, **kwargs):
    return subprocess.run(command, preexec_fn=lambda: os.umask(mask),
                          capture_output=True, text=True, timeout=120,
                          **kwargs)


@pytest.fixture
def caller_umask():
    '''This process's umask put back after a test that changes it.'''
    mask = file_modes.umask()
    yield mask
    os.umask(mask)


@pytest.mark.parametrize('caller', [0o022, 0o002, 0o077])
def test_the_results_database_is_private_whatever_the_caller_s_umask(
        tmp_path, caller):
    if not COMMAND.exists():
        pytest.skip(f'{COMMAND} is missing (ci/setup.sh makes it)')
    database = tmp_path / 'results.db'
    done = with_umask(caller, [str(COMMAND), 'db', 'import', str(REPORT),
                               '--db', str(database)])
    assert done.returncode == 0, done.stderr
    # the mode config/settings.py gives ReFrame, which sets it itself
    assert mode(database) == 0o640
    # its backups and the export's spool beside it
    done = with_umask(caller, [str(COMMAND), 'db', 'backup', '--db',
                               str(database)])
    assert done.returncode == 0, done.stderr
    [backup] = (tmp_path / 'backups').iterdir()
    assert mode(backup) == (0o600 if caller == 0o077 else 0o640)
    assert mode(tmp_path / 'backups') == (0o700 if caller == 0o077 else
                                          0o750)


def test_the_run_lock_makes_var_and_the_run_s_files_private(tmp_path):
    var = tmp_path / 'var'
    done = with_umask(0o022, [*LOCK, '--lock-file', str(var / 'run.lock'),
                              '--', 'sh', '-c', f'echo > {var}/report.json'],
                      env=dict(os.environ, PYTHONPATH=str(PROJECT_DIR /
                                                          'checks')))
    assert done.returncode == 0, done.stderr
    assert mode(var) == 0o750
    assert mode(var / 'run.lock') == 0o640
    # what the run it starts writes (ReFrame, the command) inherits it
    assert mode(var / 'report.json') == 0o640


@pytest.mark.parametrize('argv, private', [
    (['hpc-acceptance', 'db', '--help'], True),
    (['hpc-acceptance', 'new-system', '--help'], False),
    (['hpc-acceptance', 'propose-references', '--help'], False),
])
def test_only_the_commands_that_write_settings_keep_the_caller_s_umask(
        monkeypatch, capsys, caller_umask, argv, private):
    os.umask(0o022)
    monkeypatch.setattr(sys, 'argv', argv)
    with pytest.raises(SystemExit):
        cli.main()
    assert file_modes.umask() == (0o027 if private else 0o022)


def test_a_command_called_in_process_leaves_the_caller_s_umask(
        capsys, caller_umask):
    os.umask(0o022)
    with pytest.raises(SystemExit):
        cli.main(['db', '--help'])
    assert file_modes.umask() == 0o022


def test_a_settings_file_is_readable_by_the_night_s_account(
        tmp_path, caller_umask):
    os.umask(0o022)
    written = tmp_path / 'reference.yaml'
    write_atomically(written, 'a: 1\n', shared=True)
    assert mode(written) == 0o644
    # an administrator's own choice of mode is kept
    written.chmod(0o640)
    write_atomically(written, 'a: 2\n', shared=True)
    assert mode(written) == 0o640 and written.read_text() == 'a: 2\n'
    # results stay their owner's
    write_atomically(tmp_path / 'nodes.json', '{}')
    assert mode(tmp_path / 'nodes.json') == 0o600


def test_reframe_creates_the_nightly_s_database_with_the_same_mode():
    from reframe.core import config

    from conftest import CONFIG
    site = config.load_config(str(CONFIG))
    site.select_subconfig('local')
    assert int(site.get('storage/0/sqlite_db_file_mode'), 8) == \
        file_modes.DATABASE_MODE
