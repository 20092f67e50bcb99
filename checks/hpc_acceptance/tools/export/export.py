'''Figures to the site's time-series store outside a run: the spool
replayed, stored sessions backfilled, a finished run completed.

    hpc-acceptance export --replay [--db FILE] [--site-dir DIR]
    hpc-acceptance export --since DATE [--db FILE] [--site-dir DIR]
    hpc-acceptance export --run-report REPORT.json [...]

Every run sends its figures as ReFrame logs them
(:mod:`hpc_acceptance.core.export.handler`); what the store did not take
waits in the spool beside the results database:

- ``--replay`` sends what waits (the next run does too, before its first
  figure);
- ``--since DATE`` (``YYYY-MM-DD``, or with a time, ``THH:MM``) sends the
  sessions stored in the results database that started since then: a site
  that turns the export on later gets its history;
- ``--run-report`` (``ci/acceptance.sh`` after each run) sends what no
  log record carries: the outcome of test cases that failed before their
  job ran, a fleet run's suspects (:mod:`..fleet.compare`), and its
  figures' shifts across nights (:mod:`..shifts.samples`).

A sample the store took already (same series, same time) is not sent
again, whichever way it went first. Exit status: 0 when nothing waits, 1
when something does (the reason is printed) or the results cannot be
read, 2 when the export is off (``--run-report``: 0, nothing to do) or the
arguments are wrong.
'''

import argparse
import datetime
import sqlite3
import sys
import time

from hpc_acceptance.core.export import series, settings, spool, store
from hpc_acceptance.tools.fleet import compare as fleet
from hpc_acceptance.tools.fleet import confirm as fleet_confirm
from hpc_acceptance.tools.fleet import history as fleet_history
from hpc_acceptance.tools.results import db as database
from hpc_acceptance.tools.results.runs import ResultsError, final_testcases
from hpc_acceptance.tools.shifts import samples as shift_samples


def suspect_samples(reports):
    ''':data:`~hpc_acceptance.core.export.series.SUSPECT` of every node
    of a fleet run that was compared with its siblings (none for another
    run, or a partition of too few nodes): the run read as its verdict
    reads it (:func:`..fleet.history.of_run`), ``reports`` its reports or
    stored sessions in order (the nodes' run, its confirmation rerun, the
    multi-node run).'''
    info = reports[0]['session_info']
    if info.get('fleet') not in (None, 'yes'):
        # a confirmation rerun or a resume: part of another run
        return []

    cases = final_testcases({'runs': [run for report in reports
                                      for run in report.get('runs') or []]})
    try:
        fleets, _ = fleet_history.of_run(cases, info)
    except fleet.FleetError as err:
        print(f'export: session {info.get("uuid")}: no suspects sent: {err}',
              file=sys.stderr)
        return []

    samples = []
    for partition in fleets or []:
        if partition.not_compared:
            continue

        suspects = {s.node for s in partition.suspects}
        samples += [series.suspect_line(partition.name, node,
                                        node in suspects, info,
                                        info['time_end_unix'])
                    for node in partition.nodes]

    return samples


def report_samples(report):
    '''Every figure sample of a session (a JSON report, or as the
    database keeps it): each attempt's figures and outcome, as the run
    sent them.'''
    info = report['session_info']
    samples = [sample for run in report.get('runs') or []
               for case in run['testcases']
               for sample in series.case_lines(case, info,
                                               info.get('time_end_unix'))]
    # an attempt of no time of its own is at the run's end: the last one
    # of the same test case stands
    return list({series.key(s): s for s in samples}.values())


def _with_reruns(sessions):
    '''``[[fleet run, its confirmation reruns...]]`` of the stored fleet
    runs among ``sessions``.'''
    reruns = {}
    for session in sessions:
        confirms = session['session_info'].get(fleet_confirm.CONFIRMS)
        if confirms:
            reruns.setdefault(confirms, []).append(session)

    return [[session] + reruns.get(session['session_info']['uuid'], [])
            for session in sessions
            if session['session_info'].get('fleet') == 'yes']


def status_line(db=None):
    '''The line a run's summary ends with: how many figures wait for the
    store, or that every figure reached it; ``None`` when the export is off
    and nothing waits.'''
    try:
        export = settings.of_site()
        left = spool.Spool(spool.path_beside(
            database.database_path(db))).waiting()
    except (settings.ExportSettingsError, sqlite3.Error, OSError) as err:
        return f'export: {err}'

    if left.samples:
        since = time.strftime('%Y-%m-%d %H:%M', time.localtime(left.since))
        return (f'export: {left.figures} figure(s) ({left.samples} values) '
                f'wait for the store since {since} ({left.reason}); '
                f'"hpc-acceptance export --replay" sends them')

    return f'export: every figure sent to {export.url}' if export else None


def _since(text):
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'{text!r}: a date, YYYY-MM-DD or YYYY-MM-DDTHH:MM') from None


def _parser():
    parser = argparse.ArgumentParser(prog='hpc-acceptance export',
                                     description=__doc__.split('\n\n')[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument('--replay', action='store_true',
                      help='send what waits in the spool')
    what.add_argument('--since', type=_since, metavar='DATE',
                      help='send the stored sessions started since DATE '
                           '(YYYY-MM-DD[THH:MM], local time)')
    what.add_argument('--run-report', nargs='+', metavar='REPORT.json',
                      help='after a run: its test-case outcomes and '
                           'suspects')
    parser.add_argument('--db', help='the results database (default: '
                                     '$RFM_SQLITE_DB_FILE, else '
                                     f'{database.DEFAULT_DB})')
    parser.add_argument('--site-dir', help='the site directory of the '
                                           'export setting (default: '
                                           '$HPC_ACCEPTANCE_SITE_DIR)')
    return parser


def _samples(args, waiting):
    '''``(what, samples)`` the arguments ask to send.'''
    if args.replay:
        return 'waiting in the spool', waiting.waiting_samples()

    if args.run_report:
        reports = [database.run_report(path) for path in args.run_report]
        for path, report in zip(args.run_report, reports):
            if report is None:
                raise ResultsError(f'{path}: not a ReFrame run report')

        return ('of this run', [s for report in reports
                                for s in report_samples(report)] +
                suspect_samples(reports) + shift_samples.of_reports(reports))

    sessions = database.stored_sessions(database.database_path(args.db),
                                        args.since, time.time())
    return (f'of {len(sessions)} session(s) stored since '
            f'{time.strftime("%Y-%m-%d %H:%M", time.localtime(args.since))}',
            [s for report in sessions for s in report_samples(report)] +
            [s for run in _with_reruns(sessions)
             for s in suspect_samples(run)])


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        export = settings.of_site(args.site_dir)
    except settings.ExportSettingsError as err:
        print(f'export: {err}', file=sys.stderr)
        return 2

    if export is None:
        if args.run_report:
            return 0

        print(f'export: off: no {settings.FILE_NAME} in the site directory '
              f'(--site-dir, or HPC_ACCEPTANCE_SITE_DIR)', file=sys.stderr)
        return 2

    waiting = spool.Spool(spool.path_beside(
        database.database_path(args.db)))
    try:
        what, samples = _samples(args, waiting)
        done = store.deliver(export, waiting, samples)
    except (ResultsError, database.DatabaseError, sqlite3.Error,
            OSError) as err:
        print(f'export: {err}', file=sys.stderr)
        return 1

    print(f'export: {len(samples)} value(s) {what}: {done.sent} sent to '
          f'{export.url}, {done.already} sent before'
          + (f', {done.held} waiting in {waiting.path}' if done.held else ''))
    if done.held:
        print(f'export: the store did not take them: {done.reason}',
              file=sys.stderr)

    return 1 if waiting.waiting().samples else 0
