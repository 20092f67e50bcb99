'''The results database: where it is, whether ReFrame can store runs in it
(integrity, ReFrame's schema, writable), its backups, the runs imported
into it from their JSON reports, and what it holds.

ReFrame only warns when it cannot store a run: these functions say what
is wrong and the commands that recover it (the damaged file moved aside,
never deleted; the newest backup restored; the runs since then imported).
'''

import contextlib
import datetime
import glob
import os
import re
import sqlite3
import sys
from pathlib import Path

from hpc_acceptance.core.paths import PROJECT_DIR
from hpc_acceptance.tools.common import (command_settings, console,
                                         file_modes, shell_line)
from hpc_acceptance.tools.results import (bounded_json, disk_space,
                                          report_shape, report_text,
                                          session_parts)


#: Where the acceptance runs' JSON reports are unless told otherwise.
DEFAULT_REPORTS = PROJECT_DIR / 'var' / 'reports'

#: Backups kept by default: a week of nightly runs.
DEFAULT_KEEP = 7

#: Exit status of ``import`` when a report cannot be read, as the
#: verdict's for an unreadable report.
UNREADABLE = 3

#: The project's command, as a recovery step names it.
COMMAND = os.path.join(os.path.dirname(sys.executable), 'hpc-acceptance')

#: ReFrame's own lines, whole: a fleet night's log holds lines its nodes
#: wrote (their skips), which are evidence, never the run's word on what
#: was stored.
_STORE_FAILED = re.compile(
    r'^WARNING: failed to store results in the database: (.*)$', re.M)

_STORED_AS = re.compile(r'^Current session stored with UUID: (\S+)$', re.M)

#: What a refusal of a session too large for one SQLite value says: no
#: import of the same report can store it either.
TOO_LARGE = 'more than SQLite holds in one value'


class DatabaseError(RuntimeError):
    '''The database cannot be used; ``kind`` is ``damaged`` (restore it)
    or ``unwritable`` (fix permissions, space or mount).'''

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


@contextlib.contextmanager
def _read_only(path):
    conn = sqlite3.connect(f'{Path(path).resolve().as_uri()}?mode=ro',
                           uri=True)
    try:
        yield conn
    finally:
        conn.close()


def _reframe_schema_version():
    from reframe.frontend.reporting.storage import _SqliteStorage
    return _SqliteStorage.SCHEMA_VERSION


def _check_contents(path):
    try:
        with _read_only(path) as conn:
            found = [row[0] for row in
                     conn.execute('PRAGMA integrity_check').fetchall()]
            if found != ['ok']:
                raise DatabaseError('damaged', '; '.join(found[:3]))

            tables = {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            version = (conn.execute('SELECT schema_version FROM metadata')
                       .fetchone() if 'metadata' in tables else None)
    except sqlite3.DatabaseError as err:
        raise DatabaseError('damaged', str(err)) from None

    missing = {'sessions', 'testcases'} - tables
    if missing:
        raise DatabaseError('damaged', f'not a ReFrame results database '
                                       f'(no table {", ".join(missing)})')

    required = _reframe_schema_version()
    if version and version[0] != required:
        raise DatabaseError('damaged', f'schema version {version[0]}, '
                                       f'ReFrame needs {required}')


def _check_writable(path):
    directory = os.path.dirname(os.path.abspath(path))
    # ReFrame locks the database with a file beside it (.db.lock).
    if not os.access(disk_space.existing_parent(directory), os.W_OK):
        raise DatabaseError('unwritable', f'{directory} is not writable')

    if not os.path.exists(path):
        return

    try:
        conn = sqlite3.connect(path, timeout=10, isolation_level=None)
        try:
            conn.execute('BEGIN IMMEDIATE')
            conn.execute('ROLLBACK')
        finally:
            conn.close()
    except sqlite3.DatabaseError as err:
        raise DatabaseError('unwritable', str(err)) from None


def check(path):
    '''Raise :class:`DatabaseError` if ReFrame cannot store runs in the
    database at ``path``; a missing one is fine (ReFrame creates it).'''
    if os.path.exists(path):
        if os.path.getsize(path) == 0:
            raise DatabaseError('damaged', 'the file is empty (a run that '
                                           'could not write it)')

        _check_contents(path)

    _check_writable(path)


def backup_dir(path):
    return os.path.join(os.path.dirname(os.path.abspath(path)), 'backups')


def backups(path):
    '''The backups of ``path`` this command made, oldest first.'''
    stem = re.escape(Path(path).stem)
    pattern = re.compile(rf'^{stem}-\d{{8}}T\d{{6}}\.\d{{6}}Z\.db$')
    found = [p for p in glob.glob(os.path.join(backup_dir(path), '*.db'))
             if pattern.match(os.path.basename(p))]
    return sorted(found)


def backup(path, keep=DEFAULT_KEEP):
    '''Copy the database with SQLite's backup API (consistent even while
    another process reads it) into :func:`backup_dir`; remove this
    command's backups beyond the newest ``keep``. The new backup's path,
    or ``None`` when there is no database yet.

    :raises DatabaseError: the copy could not be written (it is removed).
    '''
    if not os.path.exists(path):
        return None

    os.makedirs(backup_dir(path), exist_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y%m%dT%H%M%S.%fZ')
    target = os.path.join(backup_dir(path), f'{Path(path).stem}-{stamp}.db')
    partial = target + '.partial'
    try:
        with _read_only(path) as source:
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy)
            finally:
                copy.close()

        os.replace(partial, target)
    except (sqlite3.DatabaseError, OSError) as err:
        if os.path.exists(partial):
            os.remove(partial)

        raise DatabaseError('unwritable', f'cannot back it up into '
                                          f'{backup_dir(path)}: {err}') \
            from None

    for old in backups(path)[:-keep]:
        os.remove(old)

    return target


def _looks_like_run_report(path):
    '''The parsed file if ``path`` looks like a ReFrame JSON run report
    (a session UUID, a list of runs), else ``None``: which files of a
    reports folder to import, each then read at the door
    (:func:`validated`), which names what is wrong with it.'''
    try:
        report = bounded_json.load(path)
    except (OSError, ValueError):
        return None

    info = report.get('session_info') if isinstance(report, dict) else None
    if not isinstance(info, dict) or not info.get('uuid') or \
            not isinstance(report.get('runs'), list):
        return None

    return report


def reports_since(reports_dir, when):
    '''The ReFrame run reports in ``reports_dir`` written after ``when``
    (a modification time; 0: all), oldest first.'''
    found = []
    for path in glob.glob(os.path.join(reports_dir, '*.json')):
        if (not os.path.islink(path) and os.path.getmtime(path) > when and
                _looks_like_run_report(path) is not None):
            found.append(path)

    return sorted(found, key=os.path.getmtime)


def recovery(path, error, reports_dir):
    '''The commands that make the database usable again, as lines.'''
    if error.kind == 'unwritable':
        return [f'  make {path} and its directory writable for this user, '
                f'free space there, or set {command_settings.DB_FILE} to '
                f'another file; then run again']

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y%m%dT%H%M%SZ')
    lines = [_for_a_shell(['mv', path, f'{path}.damaged-{stamp}'],
                          'kept, not deleted')]
    newest = (backups(path) or [None])[-1]
    since = 0
    if newest:
        since = os.path.getmtime(newest)
        lines.append(_for_a_shell(['cp', newest, path], 'the newest backup'))

    runs = [r for r in reports_since(reports_dir, since)
            if not console.has_control(r)]
    if runs:
        which = ('the runs since that backup' if newest else
                 'every run report kept')
        lines.append(_for_a_shell([COMMAND, 'db', 'import', '--db', path,
                                   *runs], which))

    return lines + ['then run again.']


def _for_a_shell(argv, why=None):
    '''A recovery step: ``argv`` as a line for a shell (every word quoted),
    and why; a comment where a word cannot be on one line.'''
    try:
        line = shell_line.quoted(argv)
    except shell_line.NotALine as err:
        return f'  {shell_line.comment(err)}'

    return f'  {line}' + (f'    # {why}' if why else '')


def stored(path, session):
    '''Whether the session ``session`` (a UUID) is in the database.'''
    if not os.path.exists(path):
        return False

    try:
        with _read_only(path) as conn:
            return conn.execute('SELECT 1 FROM sessions WHERE uuid = ?',
                                (session,)).fetchone() is not None
    except sqlite3.DatabaseError:
        return False


def reframe_storage(path):
    '''ReFrame's own SQLite storage of finished runs, on ``path``.'''
    from reframe.core import config, runtime
    from reframe.frontend.reporting.storage import StorageBackend

    site = config.load_config()
    site.select_subconfig('generic')
    # Only where no runtime exists yet; one that does keeps its own.
    runtime.init_runtime(site)
    # The key of the option command_settings.DB_FILE sets.
    runtime.runtime().site_config.add_sticky_option(
        'storage/sqlite_db_file', os.path.abspath(path))
    # the mode ReFrame gives a database it creates, as config/settings.py
    runtime.runtime().site_config.add_sticky_option(
        'storage/sqlite_db_file_mode', f'{file_modes.DATABASE_MODE:o}')
    return StorageBackend.create('sqlite')


def stored_cases(path, start, end):
    '''Test cases of the runs in the database at ``path`` completed
    between ``start`` and ``end`` (Unix times); none without a database.'''
    if not os.path.exists(path):
        return []

    from reframe.frontend.reporting.utility import QuerySelectorTestcase
    try:
        return reframe_storage(path).fetch_testcases(
            QuerySelectorTestcase(time_period=(start, end)))
    except sqlite3.DatabaseError as err:
        raise DatabaseError('damaged', str(err)) from None


def session_reports(path, start, end):
    '''The sessions (ReFrame's reports) in the database at ``path`` that
    started between ``start`` and ``end`` (Unix times), oldest first; none
    without a database.'''
    if not os.path.exists(path):
        return []

    from reframe.frontend.reporting.utility import QuerySelectorTestcase
    try:
        sessions = reframe_storage(path).fetch_sessions(
            QuerySelectorTestcase(time_period=(start, end)))
    except sqlite3.DatabaseError as err:
        raise DatabaseError('damaged', str(err)) from None

    return sorted(session_parts.merged(sessions),
                  key=lambda s: s['session_info'].get('time_start_unix', 0))


#: Characters of a refusal kept: ReFrame's quotes the value at fault,
#: twice, and a report may hold one of megabytes.
REFUSAL_CHARS = 600


def _one_line(text):
    '''``text`` on one line, cut to :data:`REFUSAL_CHARS`.'''
    line = ' '.join(str(text).split())
    if len(line) <= REFUSAL_CHARS:
        return line

    return f'{line[:REFUSAL_CHARS]}... ({len(line)} characters)'


def validated(path):
    '''The run report at ``path``, read and checked as the tools read it
    (:mod:`.report_shape`) and as ReFrame does before it restores a
    session.

    :raises ValueError: naming the file and what is wrong, in one line.
    '''
    with _refused(path):
        data = bounded_json.read(path)
        report_shape.check_size(data)
        report = bounded_json.parse(data)

    return checked(report, path)


def checked(report, path):
    '''The run report ``report``, parsed from ``path`` or written there,
    checked as :func:`validated` checks what it reads.

    :raises ValueError: as :func:`validated`.
    '''
    from hpc_acceptance.tools.results import reframe_schema

    with _refused(path):
        report_shape.check(report)
        reframe_schema.check(report, path)

    return report


@contextlib.contextmanager
def _refused(path):
    '''What goes wrong reading or checking the report at ``path`` in the
    ``with`` block, as a :class:`ValueError` naming it in one line.'''
    from reframe.core.exceptions import ReframeError

    try:
        yield
    except RecursionError:
        raise ValueError(f'cannot read the run report {path}: ReFrame: '
                         f'{bounded_json.NESTED_TOO_DEEPLY}') from None
    except (OSError, ValueError) as err:
        raise ValueError(f'cannot read the run report {path}: '
                         f'{_one_line(err)}') from None
    except ReframeError as err:
        raise ValueError(f'cannot read the run report {path}: ReFrame: '
                         f'{_one_line(err)}') from None


def import_reports(path, reports):
    '''Store each report's session; ``(stored, already there, errors)``.
    Where a report cannot be read (``errors``), none is stored.'''
    read, errors = [], []
    for report_path in reports:
        try:
            read.append((report_path, validated(report_path)))
        except ValueError as err:
            errors.append(str(err))

    if errors:
        return [], [], errors + [f'{report_path} (readable, but nothing is '
                                 f'stored until every report is)'
                                 for report_path, _ in read]

    return store_validated(path, read)


def store_validated(path, read):
    '''Store the sessions of ``read``, ``[(report path, its report as
    :func:`validated` returned it, or as text: a
    :class:`.report_text.ReportText`)]``; ``(stored, already there,
    errors)``, of the reports' paths. A report too large for one value of
    SQLite is stored as parts (:mod:`.session_parts`), all or none.'''
    storage = reframe_storage(path)
    largest = _largest_value()
    done, present, errors = [], [], []
    for report_path, report in read:
        if not isinstance(report, report_text.ReportText):
            report = report_text.ReportText.of(report)
        try:
            _store_in_parts(storage, report, session_parts.needed(
                _size(report_path), largest), os.path.abspath(report_path))
        except sqlite3.IntegrityError:
            present.append(report_path)
        except sqlite3.DataError as err:
            errors.append(f'{report_path}: {_one_line(err)}: ReFrame keeps '
                          f'a session\'s whole report as one value, '
                          f'{TOO_LARGE} ({largest:,} bytes)')
        except sqlite3.DatabaseError as err:
            errors.append(f'{report_path}: {_one_line(err)}')
        else:
            done.append(report_path)

    return done, present, errors


def _size(report_path):
    '''The bytes of the report at ``report_path`` (collect writes it
    compact); 0 where it is gone: its parts are then found by
    :func:`_store_in_parts` alone.'''
    try:
        return os.path.getsize(report_path)
    except OSError:
        return 0


def _store_in_parts(storage, report, parts, report_path):
    '''Store ``report`` in ``parts`` parts (:func:`_store`); where one is
    still more than SQLite holds in one value, in twice as many, up to a
    test case a part. A report's size on disk says too little where its
    text is stored longer: by Python's json (:mod:`.json_text`: a figure
    of NaN), which writes each character beyond ASCII as an escape, up to
    three times its bytes (a node's reason in emoji).

    :raises sqlite3.DataError: where a test case alone is too large.
    '''
    most = session_parts.most(report)
    while True:
        try:
            _store(storage, session_parts.split(report, parts), report_path)
            return
        except sqlite3.DataError:
            if parts >= most:
                raise
            parts = min(parts * 2, most)


def _store(storage, parts, report_path):
    '''Store ``parts`` in one transaction of ReFrame's storage: a night is
    stored whole or not at all.'''
    with storage._db_write(storage._db_file()) as conn:
        for part in parts:
            _insert(conn, part, report_path)


def _insert(conn, report, report_path):
    '''Insert ``report`` (a :class:`.report_text.ReportText`) as
    ReFrame's storage inserts a run (its ``_db_store_report``; ReFrame is
    pinned): its session with the report as JSON text
    (:meth:`~.report_text.ReportText.stored`), a row for each test case,
    where ReFrame's own insert encodes the whole night again through
    Python's json.'''
    info = report.session_info
    conn.execute(
        'INSERT INTO sessions VALUES(:uuid, :session_start_unix, '
        ':session_end_unix, :json_blob, :report_file)',
        {'uuid': info['uuid'], 'session_start_unix': info['time_start_unix'],
         'session_end_unix': info['time_end_unix'],
         'json_blob': report.stored(), 'report_file': report_path})
    conn.executemany(
        'INSERT INTO testcases VALUES(?, ?, ?, ?, ?, ?, ?)',
        ((record.name, record.system, record.partition, record.environ,
          record.completion, info['uuid'],
          None if record.uuid is report_text.NO_UUID else record.uuid)
         for record in report.records()))


def _largest_value():
    '''The most bytes SQLite takes in one value here (its length limit:
    1,000,000,000 as SQLite is built by default).'''
    conn = sqlite3.connect(':memory:')
    try:
        return conn.getlimit(sqlite3.SQLITE_LIMIT_LENGTH)
    finally:
        conn.close()


def run_check(path, report_path, log_path):
    '''After a run: ``(stored, lines)``, whether its session is stored
    (and no file system it wrote to is full), and what to say on standard
    error: where its results are, the full file systems.'''
    log = ''
    if log_path and os.path.exists(log_path):
        with open(log_path, errors='replace') as fp:
            log = fp.read()

    try:
        report = validated(report_path)
    except ValueError:
        report = None
    session = (report['session_info']['uuid'] if report else
               next(iter(_STORED_AS.findall(log)), None))
    full = disk_space.full([os.path.dirname(os.path.abspath(p))
                            for p in (report_path, path)])
    lines = [f'db: {line}' for line in disk_space.describe(full)]
    if session and stored(path, session):
        if report is None:
            lines.append(f'db: the run report {report_path} could not be '
                         f'written; the results are in {path} (session '
                         f'{session})')
        return not full, lines

    if report is None:
        if full or os.path.exists(report_path):
            return False, lines + [
                f'db: this run\'s results are lost: its report '
                f'{report_path} could not be written and nothing was '
                f'stored in {path}']

        return True, lines

    why = next(iter(_STORE_FAILED.findall(log)), 'not stored')
    said = (f'db: this run (session {session}) is not in the results '
            f'database {path} ({why}); its results are only in '
            f'{report_path}')
    if TOO_LARGE in why:
        return False, lines + [f'{said}, which no import can store either']

    return False, lines + [
        f'{said}. Once "{COMMAND} db check --db {path}" passes, store them '
        f'with:\n' +
        _for_a_shell([COMMAND, 'db', 'import', '--db', path, report_path])]


def cannot_be_used(path, error):
    '''What a command that stopped on ``error`` says of the database at
    ``path``, and where to look further.'''
    return [f'db: the results database {path} cannot be used: {error}',
            f'db: see "{COMMAND} db check --db {path}"']


def unusable(path, reports_dir=None):
    '''Why the database at ``path`` cannot take a run's results, with
    the commands that recover it (the reports in ``reports_dir`` its
    recovery would import), as lines; none when it can.'''
    try:
        check(path)
    except DatabaseError as err:
        return [f'db: the results database {path} cannot be used: {err}',
                'db: to recover:\n' + '\n'.join(
                    recovery(path, err, reports_dir or DEFAULT_REPORTS))]

    return []
