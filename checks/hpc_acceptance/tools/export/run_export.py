'''A run's figures sent to the site's time-series store: after a run, the
samples of its reports (and the nodes' and shifts' of it), what waits in
the spool, the status lines a summary shows.
'''

import sqlite3
import time

from hpc_acceptance.core.export import settings, spool, store
from hpc_acceptance.tools.export.samples import report_samples, suspect_samples
from hpc_acceptance.tools.export.sending import SendResult, send
from hpc_acceptance.tools.results import database
from hpc_acceptance.tools.results.runs import ResultsError
from hpc_acceptance.tools.shifts.shift_samples import shift_samples


def status_lines(reports, db_path, site_dir):
    '''The lines a run's summary ends with: what the store took of this
    run's values (``reports``: its parsed JSON reports, as the finished
    run read them at the door), and what waits for it
    (in the spool beside the results database ``db_path``) since when and
    why; none when the export is off (in the site directory ``site_dir``,
    or there is none) and nothing waits.'''
    try:
        export = settings.of_directory(site_dir)
        waiting = spool.Spool(
            spool.path_beside(db_path),
            export.url if export else None)
        left = waiting.waiting()
        ours = [s for report in reports for s in report_samples(report)]
        taken = waiting.taken(ours) if export else 0
        ours_waiting = waiting.waiting_count(ours)
    except (settings.ExportSettingsError, sqlite3.Error, OSError) as err:
        return [f'export: {err}']

    lines = []
    warning = export.credentials_warning() if export else None
    if warning:
        lines.append(f'export: {warning}')

    if export and ours:
        line = (f'export: this run\'s {len(ours)} value(s): {taken} taken '
                f'by the store {export.url}')
        if ours_waiting:
            line += f', {ours_waiting} waiting'
        missing = len(ours) - taken - ours_waiting
        if missing:
            line += (f', {missing} not sent (the export was not on for '
                     f'them: "hpc-acceptance export --since" sends them)')
        lines.append(line)

    if left.samples:
        since = time.strftime('%Y-%m-%d %H:%M', time.localtime(left.since))
        again = ('' if export else
                 f' once {settings.FILE_NAME} names the store again')
        lines.append(f'export: {left.figures} figure(s) ({left.samples} '
                     f'values) wait for the store since {since} '
                     f'({left.reason}); "hpc-acceptance export --replay" '
                     f'sends them{again}')

    return lines


def run_samples(reports, compared=None, found=None, *, db_path,
                limits=None):
    '''What no log record of a run carried: its test-case outcomes, a
    fleet run's suspects and its figures' shifts; ``reports`` its parsed
    reports in order, ``compared`` and ``found`` its fleet comparison and
    shifts where the run's end made them, else made against the results
    database ``db_path`` with the site's shift ``limits``
    (:mod:`.samples`).'''
    return ([s for report in reports for s in report_samples(report)] +
            suspect_samples(reports, compared, db_path=db_path) +
            shift_samples(reports, found, db_path, limits))


def after_run(reports, compared, found, unreadable, db_path, site_dir):
    '''Send a run's :func:`run_samples` where the export is on (in the
    site directory ``site_dir``); what was sent
    (:class:`.sending.SendResult`), ``None`` where the export is off; its
    spool beside the results database ``db_path``.
    ``unreadable``: why the run's reports cannot be read (nothing sent).
    A store in trouble never fails a run: what it did not take waits in
    the spool.'''
    try:
        export = settings.of_directory(site_dir)
    except settings.ExportSettingsError as err:
        return SendResult(2, '', f'export: {err}')

    if export is None:
        return None

    if unreadable:
        return SendResult(1, '', f'export: {unreadable}')

    waiting = spool.Spool(spool.path_beside(db_path), export.url)
    try:
        return send(export, waiting, 'of this run',
                    run_samples(reports, compared, found,
                                db_path=db_path))
    except (ResultsError, database.DatabaseError, store.StoreError,
            sqlite3.Error, OSError) as err:
        return SendResult(1, '', f'export: {err}')
