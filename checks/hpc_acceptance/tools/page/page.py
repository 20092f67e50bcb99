'''Write the static report page of an acceptance session.

    hpc-acceptance page (--session UUID | --run-report REPORT.json ...)
        [--log REFRAME_OUTPUT ...] [--nodes NODES.json] [--runs 30]
        [--history 'now-365d:now'] [--output DIR]

Writes ``DIR/index.html`` (default ``<session>/`` in ``var/reports/``, or
in the directory of ``--run-report``) with one PNG per figure beside it,
and for a fleet run one heat map per partition (:mod:`.heat_map`), and
prints its path. The session's test cases come from ReFrame's results
database (``--session``) or its JSON run reports (``--run-report``: a
fleet run has two, the nodes' run and the multi-node one; the page is the
first one's); earlier runs of the same figures from the database. Skip
reasons come with the test cases; ReFrame's console output (``--log``)
gives those the test cases lack (:mod:`..results.skips`). The
console output and the nodes a fleet run left out (``--nodes``) are kept
beside the page (``reframe-output.log``, ``nodes.json``) so a rebuild finds
them again.
'''

import sys

from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.fleet.history import stored_run
from hpc_acceptance.tools.outcome import finished_run
from hpc_acceptance.tools.page import report_page
from hpc_acceptance.tools.page import trends
from hpc_acceptance.tools.results.runs import ResultsError, stored_testcases
from hpc_acceptance.tools.shifts import limit


#: One line for ``hpc-acceptance --help``.
description = ('write the HTML report page (trends, skips, provenance) of '
               'a session')


def setup_parser(parser):
    source = parser.add_mutually_exclusive_group(required=True)
    arguments.add_session(source)
    arguments.add_run_report(source, "ReFrame's JSON run report (twice for "
                                     "a fleet run: the nodes' run, then the "
                                     "multi-node one)")
    arguments.add_logs(parser, ' (default: the one kept beside the page)')
    arguments.add_nodes(parser, 'the one kept beside the page')
    parser.add_argument('--runs', type=int,
                        default=trends.DEFAULT_RUNS,
                        help='runs per trend (default: %(default)s)')
    parser.add_argument('--history', default=report_page.HISTORY,
                        help='stored sessions the trends draw from, as '
                             "ReFrame's --describe-stored-testcases takes "
                             "(default: %(default)s)")
    parser.add_argument('--output', help='directory of the page (default: '
                                         'var/reports/<session>)')


def command(args):
    if args.runs < 1:
        raise UsageError(f'--runs {args.runs}: must be 1 or more')

    try:
        given = command_settings.read()
        limits = limit.of_settings(given)
    except (command_settings.BadSetting, limit.LimitError) as err:
        raise UsageError(str(err)) from None

    try:
        history = None
        if args.session:
            testcases = stored_run(args.session, db_path=given.db)
            if not testcases:
                raise ResultsError(f'no stored session {args.session!r}')

            history = stored_testcases(args.history, db_path=given.db)
            run = finished_run.read(
                [], args.log, args.nodes, testcases=testcases,
                session_info={'uuid': args.session}, shift_history=history,
                limits=limits, db_path=given.db)
        else:
            history = stored_testcases(args.history, db_path=given.db)
            run = finished_run.read([(path, None) for path in args.run_report],
                                    args.log, args.nodes,
                                    shift_history=history, limits=limits,
                                    db_path=given.db)
            if run.unreadable:
                raise ResultsError(run.unreadable)

        print(report_page.write_page(run, runs=args.runs,
                                     output=args.output,
                                     unreferenced_ok=given.unreferenced_ok))
    except ResultsError as err:
        print(f'report: {err}', file=sys.stderr)
        return 1

    return 0
