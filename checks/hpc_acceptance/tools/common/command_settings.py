'''The settings a command runs with: read once, at the edge, from its
options and the environment, checked there, and passed down as a value.

Deeper code takes what it needs as arguments (the database's path, the
site's shift limit, the systems that may pass without references) and
never reads the environment, so that what it returns depends on what it
was given; a child process is given its environment
(:meth:`Settings.run_env`), this process's is never changed.

A setting that cannot be read is refused before anything runs
(:class:`BadSetting`, the message naming the variable and why): a night
is never run, and a failed check never reported as something else,
because of a typing error in a unit file.
'''

import os
import pwd
import re
from typing import NamedTuple, Optional

from hpc_acceptance.core.paths import PROJECT_DIR
from hpc_acceptance.tools.common import arguments

#: The results database ReFrame stores runs in (``config/settings.py``).
DB_FILE = 'RFM_SQLITE_DB_FILE'

#: Where ``config/settings.py`` keeps the database without :data:`DB_FILE`.
DEFAULT_DB = PROJECT_DIR / 'var' / 'results.db'

#: The site's shift limit (:mod:`..shifts.limit` reads its text).
SHIFT_LIMIT = 'HPC_ACCEPTANCE_SHIFT_LIMIT'

#: The systems that may pass without a reference file
#: (:mod:`..references.unreferenced`).
UNREFERENCED_OK = 'HPC_ACCEPTANCE_UNREFERENCED_OK'

#: Backups of the results database a run keeps.
DB_BACKUPS = 'HPC_ACCEPTANCE_DB_BACKUPS'

#: Backups kept without :data:`DB_BACKUPS`: a week of nightly runs.
DEFAULT_BACKUPS = 7

#: The variable that bounds the jobs ReFrame submits at once per partition
#: (``config/settings.py`` reads it in ReFrame's process).
MAX_JOBS = 'HPC_ACCEPTANCE_MAX_JOBS'

#: The system a run is for, where its arguments name none.
SYSTEM = 'HPC_ACCEPTANCE_SYSTEM'

#: The name of a run's JSON report (ReFrame's own variable).
REPORT_FILE = 'RFM_REPORT_FILE'

#: The system ReFrame runs for without ``--system`` (ReFrame's own).
REFRAME_SYSTEM = 'RFM_SYSTEM'

#: Names another run lock than the checkout's (tests use their own).
LOCK_FILE = 'HPC_ACCEPTANCE_LOCK_FILE'

#: Set in a locked run's environment: the lock is held, do not take it
#: again (:mod:`..launch.lock`).
LOCK_HELD = 'HPC_ACCEPTANCE_LOCK_HELD'

#: The checkout's own run lock, beside its results (config/README.md).
DEFAULT_LOCK = PROJECT_DIR / 'var' / 'run.lock'

#: Where the reference files are, in place of the site's and the
#: checkout's (ReFrame's own variable, ``config/settings.py``).
REFERENCE_PREFIX = 'RFM_REFERENCE_PREFIX'

#: The account that ran ``sudo``: the person behind a command run as root.
SUDO_USER = 'SUDO_USER'

#: The site directory (config/README.md, "The site directory"; ReFrame's
#: process reads it as :data:`hpc_acceptance.core.site.VARIABLE`).
SITE_DIR = 'HPC_ACCEPTANCE_SITE_DIR'


class ReframeDirs(NamedTuple):
    '''Where ReFrame's own variables put a run's files (``None``: where
    its configuration says).'''
    #: ``RFM_PREFIX``
    prefix: Optional[str] = None
    #: ``RFM_STAGE_DIR``
    stage: Optional[str] = None
    #: ``RFM_OUTPUT_DIR``
    output: Optional[str] = None
    #: ``RFM_PERFLOG_DIR``
    perflogs: Optional[str] = None


class BadSetting(ValueError):
    '''A setting cannot be used; the message names the variable or option
    and says why.'''


class Settings(NamedTuple):
    '''What one command runs with.'''
    #: the results database's path
    db: str
    #: where that path came from: ``--db``, :data:`DB_FILE` or the default
    db_from: str = 'the default'
    #: the site's shift limit, as the site wrote it ('' for none)
    shift_limit: str = ''
    #: the systems that may pass without a reference file
    unreferenced_ok: frozenset = frozenset()
    #: backups of the results database a run keeps
    db_backups: int = DEFAULT_BACKUPS
    #: the system named by the environment, else ``None``
    system: Optional[str] = None
    #: the run report's name asked for, else ``None``
    report_file: Optional[str] = None
    #: the system ReFrame is told to run for, else ``None``
    reframe_system: Optional[str] = None
    #: at most this many jobs at once per partition (``--max-jobs``)
    max_jobs: Optional[str] = None
    #: where ReFrame's variables put the run's files
    reframe_dirs: ReframeDirs = ReframeDirs()
    #: the run lock's file
    lock_file: str = str(DEFAULT_LOCK)
    #: whether the script that started this command holds the lock
    lock_held: bool = False
    #: the reference directory configured in place of the site's and
    #: the checkout's, else ``None``
    reference_prefix: Optional[str] = None
    #: who runs the command: the account behind ``sudo``, else this one
    user: str = ''
    #: the site directory, else ``None``
    site_dir: Optional[str] = None

    def run_env(self):
        '''What the environment of a run's ReFrame adds to this
        process's: the bound on its jobs at once (:data:`MAX_JOBS`).'''
        return {MAX_JOBS: self.max_jobs} if self.max_jobs else {}


def names(text):
    '''The names of a list a site writes (spaces or commas between).'''
    return frozenset(re.split(r'[\s,]+', text.strip())) - {''}


def _backups(text):
    if not text.isdigit() or int(text) < 1:
        raise BadSetting(f'{DB_BACKUPS}={text}: the number of backups to '
                         f'keep, 1 or more')
    return int(text)


def _max_jobs(text):
    if text and not arguments.is_max_jobs(text):
        raise BadSetting(f'{MAX_JOBS}={text}: a whole number, 1 or more')
    return text or None


def read(environ=None, db=None, max_jobs=None):
    '''The :class:`Settings` of a command started in ``environ`` (default:
    this process's environment) with the options ``db`` (``--db``) and
    ``max_jobs`` (``--max-jobs``), which win over the environment.

    :raises BadSetting: naming the first setting that cannot be used.
    '''
    environ = os.environ if environ is None else environ
    return Settings(
        db=str(db or environ.get(DB_FILE) or DEFAULT_DB),
        db_from=('--db' if db else DB_FILE if environ.get(DB_FILE) else
                 'the default'),
        shift_limit=environ.get(SHIFT_LIMIT, ''),
        unreferenced_ok=names(environ.get(UNREFERENCED_OK, '')),
        db_backups=_backups(environ.get(DB_BACKUPS, str(DEFAULT_BACKUPS))),
        system=environ.get(SYSTEM) or None,
        report_file=environ.get(REPORT_FILE) or None,
        reframe_system=environ.get(REFRAME_SYSTEM) or None,
        max_jobs=max_jobs or _max_jobs(environ.get(MAX_JOBS)),
        reframe_dirs=ReframeDirs(
            prefix=environ.get('RFM_PREFIX') or None,
            stage=environ.get('RFM_STAGE_DIR') or None,
            output=environ.get('RFM_OUTPUT_DIR') or None,
            perflogs=environ.get('RFM_PERFLOG_DIR') or None),
        lock_file=environ.get(LOCK_FILE) or str(DEFAULT_LOCK),
        lock_held=bool(environ.get(LOCK_HELD)),
        reference_prefix=environ.get(REFERENCE_PREFIX) or None,
        user=environ.get(SUDO_USER) or _login(environ),
        site_dir=environ.get(SITE_DIR) or None)


def _login(environ):
    '''The login name, as :func:`getpass.getuser` finds it but in
    ``environ``: its variables, else the account of this process's uid.'''
    return (environ.get('LOGNAME') or environ.get('USER') or
            pwd.getpwuid(os.getuid()).pw_name)
