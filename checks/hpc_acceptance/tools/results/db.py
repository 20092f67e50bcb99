'''The results database: checked before a run, backed up, runs imported.

    hpc-acceptance db check [--db FILE] [--reports DIR]
    hpc-acceptance db check --run REPORT.json [--log LOG] [--db FILE]
    hpc-acceptance db backup [--db FILE] [--keep N]
    hpc-acceptance db import [--db FILE] REPORT.json...

The database (``var/results.db``, or ``RFM_SQLITE_DB_FILE``) holds the runs
that trends, references and post-upgrade verdicts are built from. ReFrame
only warns when it cannot store a run there, so:

- ``check`` (before a run): SQLite's integrity check, ReFrame's tables and
  schema version, and a write transaction; a database that fails prints
  what is wrong and the commands that recover it (the damaged file is moved
  aside, never deleted; the newest backup restored; the runs since then
  imported from their JSON reports) and exits 1;
- ``check --run`` (after a run): the run's session is in the database, or
  it says that its results are only in the JSON report and how to import
  them, and exits 1; full file systems among the run's directories are
  named either way;
- ``backup``: a copy made with SQLite's online backup API into
  ``backups/`` beside the database, keeping the newest ``--keep``;
- ``import``: stores each report's session with ReFrame's own storage
  code, the one that stores a finished run; a session already there is
  left as it is. Every report is read and validated first (the tools'
  check, :mod:`.report_shape`, then ReFrame's own): one that cannot be
  read is named in one line with what is wrong, nothing is stored, and it
  exits 3, the database as it was.
'''

import argparse
import sys

from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.results import database


#: One line for ``hpc-acceptance --help``.
description = 'check, back up or import into the results database'


def setup_parser(parser):
    commands = parser.add_subparsers(dest='command', required=True)
    check_cmd = commands.add_parser(
        'check', help='integrity, ReFrame\'s schema, writable')
    arguments.add_db(check_cmd, command_settings.DEFAULT_DB)
    check_cmd.add_argument('--reports', default=str(database.DEFAULT_REPORTS),
                           help='where the JSON run reports are, for the '
                                'recovery steps (default: %(default)s)')
    check_cmd.add_argument('--run', metavar='REPORT.json',
                           help='after a run: check that its session was '
                                'stored')
    check_cmd.add_argument('--log', help="ReFrame's output of that run "
                                         "(its storage warnings)")
    backup_cmd = commands.add_parser('backup', help='a backup copy, the '
                                                    'oldest ones removed')
    arguments.add_db(backup_cmd, command_settings.DEFAULT_DB)
    backup_cmd.add_argument('--keep', type=_keep,
                            default=database.DEFAULT_KEEP,
                            help='backups to keep (default: %(default)s)')
    import_cmd = commands.add_parser('import', help='store runs from their '
                                                    'JSON reports')
    arguments.add_db(import_cmd, command_settings.DEFAULT_DB)
    import_cmd.add_argument('reports', nargs='+', metavar='REPORT.json')


def _keep(text):
    '''A ``--keep`` value: a whole number, 1 or more.'''
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f'{text}: keep at least one')

    return int(text)


def _say(lines):
    for line in lines:
        print(line, file=sys.stderr)


def command(args):
    try:
        path = command_settings.read(db=args.db).db
    except command_settings.BadSetting as err:
        print(f'db: {err}', file=sys.stderr)
        return 2

    if args.command == 'check' and args.run:
        is_stored, lines = database.run_check(path, args.run, args.log)
        _say(lines)
        return 0 if is_stored else 1

    if args.command == 'check':
        trouble = database.unusable(path, args.reports)
        _say(trouble)
        if not trouble:
            print(f'db: {path}: ok')
        return 1 if trouble else 0

    try:
        database.check(path)
        if args.command == 'backup':
            made = database.backup(path, args.keep)
            print(f'db: backed up {path} to {made}' if made else
                  f'db: no database at {path} yet: nothing to back up')
    except database.DatabaseError as err:
        _say(database.cannot_be_used(path, err))
        return 1

    if args.command == 'import':
        done, present, errors = database.import_reports(path, args.reports)
        for report_path in done:
            print(f'db: stored {report_path}')
        for report_path in present:
            print(f'db: already stored: {report_path}')
        _say(f'db: not stored: {error}' for error in errors)
        if errors and not (done or present):
            return database.UNREADABLE

        return 1 if errors else 0

    return 0
