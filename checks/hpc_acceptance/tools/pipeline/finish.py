'''The end of a run, the same for every kind: what a sysadmin reads and what
is kept.

    hpc-acceptance finish REPORT.json STATUS [REPORT.json STATUS ...]
        [--nodes NODES.json] [--prefix WORD]

For the reports of one run, in order (a fleet run: the nodes' run, the
confirmation rerun, the multi-node run), each with ReFrame's exit status:

1. to the site's time-series store, where it is on, what no log record
   carried (:mod:`..export.export`); a store in trouble never fails a run;
2. the console summary (:mod:`..outcome.summary`);
3. where each check's binary came from, against the runs before
   (:mod:`..outcome.dependency_drift`);
4. the report page (:mod:`..page.page`), its path printed; a page that
   cannot be written never hides the verdict;
5. that the results database holds every run (``hpc-acceptance db check
   --run``);
6. the verdict (:mod:`..outcome.verdict`), its last line printed last.

Exit status: the verdict's (0, 1, 2, 3), or 5 when the checks passed but
the database does not hold the run. ``ci/acceptance.sh`` ends with it;
``hpc-acceptance post-upgrade`` shows its runs with :func:`show`, then its
own verdict, and checks storage with :func:`not_stored`.
'''

import contextlib
import os
import sys

from hpc_acceptance.tools.common import arguments
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.export import export
from hpc_acceptance.tools.launch import reframe_call
from hpc_acceptance.tools.outcome import (dependency_drift, finished_run,
                                          summary, verdict)
from hpc_acceptance.tools.outcome.finished_run import written
from hpc_acceptance.tools.page import page
from hpc_acceptance.tools.results import database
from hpc_acceptance.tools.results.runs import ResultsError, final_testcases
from hpc_acceptance.tools.shifts import nightly

#: One line for ``hpc-acceptance --help``.
description = 'the end of a run: store, summary, page, storage check, verdict'

#: Exit status of a run whose results the results database does not hold.
NOT_STORED = 5


def read(pairs, nodes=None):
    '''The :class:`..outcome.finished_run.FinishedRun` of the runs ``pairs``
    (``[(report, ReFrame's exit status)]``), with the logs beside them and
    the node list ``nodes`` of a fleet run.'''
    logs = [reframe_call.log_of(path) for path, _ in pairs
            if written(path) and os.path.exists(reframe_call.log_of(path))]
    return finished_run.read(pairs, logs,
                             nodes if nodes and os.path.exists(nodes)
                             else None)


def show(run, prefix='acceptance', judged=None):
    '''Steps 1 to 4 for the finished run ``run`` where ReFrame wrote a
    report: the store, the summary, the binaries' sources, the page (with
    the run's verdict ``judged``, judged here where not given).'''
    if not run.reports:
        return

    sent = export.after_run(run.parsed, (run.fleets, run.fleet_error),
                            (run.shifts, run.shift_error), run.unreadable)
    if sent and sent.trouble:
        print(sent.trouble, file=sys.stderr)

    summary.show(summary.of_run(run))
    for drift in dependency_drift.of_reports(
            [final_testcases(report) for report in run.parsed]):
        dependency_drift.show(drift)

    try:
        if run.unreadable:
            raise ResultsError(run.unreadable)
        # the year of stored runs the run's shifts were found against
        path = page.of_run(run, nightly.history(),
                           judged=judged or verdict.of_run(run))
    except Exception as err:
        print(f'{prefix}: the report page could not be written '
              f'({type(err).__name__}: {err})', file=sys.stderr)
    else:
        print(f'{prefix}: report page {path}')


def not_stored(reports):
    '''The reports whose session the results database does not hold, each
    said (``hpc-acceptance db check --run``); a run that wrote no report
    may still have stored its session, which its log names.'''
    missing = []
    for path in reports:
        if os.path.exists(reframe_call.log_of(path)):
            is_stored, lines = database.run_check(
                database.database_path(), path, reframe_call.log_of(path))
            for line in lines:
                print(line, file=sys.stderr)
            if not is_stored:
                missing.append(path)

    return missing


def end(run, prefix='acceptance'):
    '''Steps 1 to 6 for the finished run ``run``: its exit status.'''
    judged = verdict.of_run(run)
    show(run, prefix, judged)
    reports = [path for path, _ in run.pairs]
    if not run.reports:
        with contextlib.suppress(OSError):
            with open(reframe_call.log_of(reports[0])) as fp:
                sys.stderr.write(''.join(fp.readlines()[-20:]))

    missing = not_stored(reports)
    status, message = judged
    print(message, file=sys.stderr if status else sys.stdout)
    if status == 0 and missing:
        print(f'{prefix} NOT STORED: the checks passed, but the '
              f'results are not in the results database (see above)',
              file=sys.stderr)
        return NOT_STORED

    return status


def setup_parser(parser):
    parser.add_argument('runs', nargs='+', metavar='REPORT STATUS',
                        help="each run's JSON report and ReFrame's exit "
                             'status')
    arguments.add_nodes(parser)
    parser.add_argument('--prefix', default='acceptance',
                        help='the word the lines start with')


def command(args):
    if len(args.runs) % 2 or not all(s.isdigit() for s in args.runs[1::2]):
        raise UsageError('REPORT STATUS pairs: a report, then ReFrame\'s '
                         'exit status')

    pairs = list(zip(args.runs[::2], map(int, args.runs[1::2])))
    return end(read(pairs, args.nodes), args.prefix)
