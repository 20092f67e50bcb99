'''The end every run shares: its reports read as one finished run, the
results database's check that the run was stored, the verdict, summary,
report page and export, and the exit status that follows.
'''

import contextlib
import os
import sys

from hpc_acceptance.tools.export import run_export
from hpc_acceptance.tools.launch import reframe_call
from hpc_acceptance.tools.outcome import (acceptance_verdict, binary_sources,
                                          finished_run, summary_text)
from hpc_acceptance.tools.outcome.finished_run import written
from hpc_acceptance.tools.page import report_page
from hpc_acceptance.tools.results import database
from hpc_acceptance.tools.results.runs import ResultsError, final_testcases


#: Exit status of a run whose results the results database does not hold.
NOT_STORED = 5


def read(pairs, nodes, limits, db_path):
    '''The :class:`..outcome.finished_run.FinishedRun` of the runs ``pairs``
    (``[(report, ReFrame's exit status)]``), with the logs beside them and
    the node list ``nodes`` of a fleet run (``None``: none); its shifts
    found with the site's ``limits`` against the results database
    ``db_path``.'''
    logs = [reframe_call.log_of(path) for path, _ in pairs
            if written(path) and os.path.exists(reframe_call.log_of(path))]
    return finished_run.read(pairs, logs,
                             nodes if nodes and os.path.exists(nodes)
                             else None, limits=limits, db_path=db_path)


def show(run, given, prefix='acceptance', judged=None):
    '''Steps 1 to 4 for the finished run ``run`` where ReFrame wrote a
    report, with the settings ``given``: the store, the summary, the
    binaries' sources, the page (with the run's verdict ``judged``, judged
    here where not given).'''
    if not run.reports:
        return

    sent = run_export.after_run(run.parsed, (run.fleets, run.fleet_error),
                                (run.shifts, run.shift_error), run.unreadable,
                                given.db, given.site_dir)
    if sent and sent.trouble:
        print(sent.trouble, file=sys.stderr)

    summary_text.show(summary_text.summary_of(run, db_path=given.db,
                                              site_dir=given.site_dir))
    for drift in binary_sources.of_reports(
            [final_testcases(report) for report in run.parsed], given.db):
        binary_sources.show(drift)

    try:
        if run.unreadable:
            raise ResultsError(run.unreadable)
        path = report_page.write_page(
            run, judged=judged or acceptance_verdict.verdict_of(
                run, given.unreferenced_ok))
    except Exception as err:
        print(f'{prefix}: the report page could not be written '
              f'({type(err).__name__}: {err})', file=sys.stderr)
    else:
        print(f'{prefix}: report page {path}')


def not_stored(reports, db_path):
    '''The reports whose session the results database at ``db_path`` does
    not hold, each said (``hpc-acceptance db check --run``); a run that
    wrote no report may still have stored its session, which its log
    names.'''
    missing = []
    for path in reports:
        if os.path.exists(reframe_call.log_of(path)):
            is_stored, lines = database.run_check(
                str(db_path), path, reframe_call.log_of(path))
            for line in lines:
                print(line, file=sys.stderr)
            if not is_stored:
                missing.append(path)

    return missing


def end(run, given, prefix='acceptance'):
    '''Steps 1 to 6 for the finished run ``run``, with the settings
    ``given``: its exit status.'''
    judged = acceptance_verdict.verdict_of(run, given.unreferenced_ok)
    show(run, given, prefix, judged)
    reports = [path for path, _ in run.pairs]
    if not run.reports:
        with contextlib.suppress(OSError):
            with open(reframe_call.log_of(reports[0])) as fp:
                sys.stderr.write(''.join(fp.readlines()[-20:]))

    missing = not_stored(reports, given.db)
    status, message = judged
    print(message, file=sys.stderr if status else sys.stdout)
    if status == 0 and missing:
        print(f'{prefix} NOT STORED: the checks passed, but the '
              f'results are not in the results database (see above)',
              file=sys.stderr)
        return NOT_STORED

    return status
