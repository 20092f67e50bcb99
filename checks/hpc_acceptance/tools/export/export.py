'''Figures to the site's time-series store outside a run: the spool
replayed, stored sessions backfilled or read back, a finished run completed.

    hpc-acceptance export --replay [--db FILE] [--site-dir DIR]
    hpc-acceptance export --since DATE [--db FILE] [--site-dir DIR]
    hpc-acceptance export --verify [--since DATE] [--db FILE] [--site-dir DIR]
    hpc-acceptance export --run-report REPORT.json [...]

Every run sends its figures as ReFrame logs them
(:mod:`hpc_acceptance.core.export.handler`); what the store did not take
waits in the spool beside the results database:

- ``--replay`` sends what waits (the next run does too, before its first
  figure);
- ``--since DATE`` (``YYYY-MM-DD``, or with a time, ``THH:MM``) sends the
  sessions stored in the results database that started since then: a site
  that turns the export on later, or points it at a new store, gets its
  history;
- ``--verify`` reads back what the store holds of the sessions stored
  since DATE (default: the last 30 days) and sends what it lacks: values
  it took and lost or dropped since, and values it never took; what it
  still does not hold 30 s later it answered for and did not keep (older
  than its retention);
- ``--run-report`` (``ci/acceptance.sh`` after each run) sends what no
  log record carries: the outcome of test cases that failed before their
  job ran, a fleet run's suspects (:mod:`..fleet.comparison`), and its
  figures' shifts across nights (:mod:`..shifts.shift_samples`).

A sample the store took already (same series, same time, the same store's
URL) is not sent to it again, whichever way it went first; one sender at a
time per spool, the others wait. Exit status: 0 when nothing waits (and,
for ``--verify``, the store holds every value), 1 when something does (the
reason is printed), the store cannot be read back or keeps what it took,
or the results cannot be read, 2 when the export is off (``--run-report``:
0, nothing to do), the arguments are wrong or the results database they
name does not exist.
'''

import argparse
import datetime
import os
import sqlite3
import sys
import time

from hpc_acceptance.core.export import settings, spool, store
from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.export import run_export
from hpc_acceptance.tools.export import verify
from hpc_acceptance.tools.export.samples import (report_samples,
                                                 suspect_samples, with_reruns)
from hpc_acceptance.tools.export.sending import send, show
from hpc_acceptance.tools.results import database
from hpc_acceptance.tools.results.runs import ResultsError, read_report
from hpc_acceptance.tools.shifts import limit


#: One line for ``hpc-acceptance --help``.
description = ("send figures to the site's time-series store (--replay, "
               '--since), read it back (--verify)')


def _since(text):
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'{text!r}: a date, YYYY-MM-DD or YYYY-MM-DDTHH:MM') from None


def setup_parser(parser):
    parser.add_argument('--replay', action='store_true',
                        help='send what waits in the spool')
    parser.add_argument('--since', type=_since, metavar='DATE',
                        help='send the stored sessions started since DATE '
                             '(YYYY-MM-DD[THH:MM], local time); with '
                             '--verify, read those back')
    parser.add_argument('--run-report', nargs='+', metavar='REPORT.json',
                        help='after a run: its test-case outcomes and '
                             'suspects')
    parser.add_argument('--verify', action='store_true',
                        help='read back what the store holds of the '
                             'sessions stored since DATE (default: the '
                             f'last {verify.VERIFY_DAYS} days) and send what '
                             'it lacks')
    arguments.add_db(parser, command_settings.DEFAULT_DB)
    parser.add_argument('--site-dir', help='the site directory of the '
                                           'export setting (default: '
                                           '$HPC_ACCEPTANCE_SITE_DIR)')


def _what(args):
    '''The one thing the arguments ask for; exit 2 when none or two.'''
    asked = [name for name, given in (
        ('--replay', args.replay), ('--run-report', args.run_report),
        ('--verify', args.verify),
        ('--since', args.since is not None and not args.verify)) if given]
    if len(asked) != 1:
        raise UsageError('one of --replay, --since, --run-report, --verify is '
                         'needed' if not asked else
                         f'{" and ".join(asked)}: one at a time')

    return asked[0]


def _database(given, what):
    '''The results database's path (the settings ``given``); an error
    naming it when it is missing where it is read (``--since``,
    ``--verify``) or named by ``--db``.'''
    path = given.db
    if os.path.exists(path) or (what in ('--replay', '--run-report') and
                                given.db_from != '--db'):
        return path

    raise ResultsError(f'the results database {path} ({given.db_from}) does '
                       f'not exist: no run was stored there')


def _samples(args, waiting, path, limits):
    '''``(what, samples)`` the arguments ask to send: a fleet run's
    suspects and a run's shifts judged against the results database at
    ``path``, with the site's shift ``limits``.'''
    if args.replay:
        return 'waiting in the spool', waiting.waiting_samples()

    if args.run_report:
        # at the door, as every reader of a report: a crafted one is
        # refused, naming the file and the value, before a sample is made
        reports = [read_report(name) for name in args.run_report]

        return 'of this run', run_export.run_samples(reports, db_path=path,
                                                     limits=limits)

    sessions = database.session_reports(path, args.since, time.time())
    return (f'of {len(sessions)} session(s) stored since '
            f'{time.strftime("%Y-%m-%d %H:%M", time.localtime(args.since))}',
            [s for report in sessions for s in report_samples(report)] +
            [s for run in with_reruns(sessions)
             for s in suspect_samples(run, db_path=path)])


def command(args):
    what = _what(args)
    try:
        given = command_settings.read(db=args.db)
        export = settings.of_directory(args.site_dir or given.site_dir)
    except (command_settings.BadSetting,
            settings.ExportSettingsError) as err:
        print(f'export: {err}', file=sys.stderr)
        return 2

    if export is None:
        if args.run_report:
            return 0

        print(f'export: off: no {settings.FILE_NAME} in the site directory '
              f'(--site-dir, or HPC_ACCEPTANCE_SITE_DIR)', file=sys.stderr)
        return 2

    warning = export.credentials_warning()
    if warning:
        print(f'export: {warning}', file=sys.stderr)

    try:
        limits = limit.of_settings(given)
        path = _database(given, what)
    except (limit.LimitError, ResultsError) as err:
        print(f'export: {err}', file=sys.stderr)
        return 2

    waiting = spool.Spool(spool.path_beside(path), export.url)
    try:
        if what == '--verify':
            return verify.verify(export, waiting, args.since, path)

        sent = send(export, waiting, *_samples(args, waiting, path, limits))
    except (ResultsError, database.DatabaseError, store.StoreError,
            sqlite3.Error, OSError) as err:
        print(f'export: {err}', file=sys.stderr)
        return 1

    show(sent)
    return sent.status
