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
gives those the test cases lack (:mod:`.skips`). The
console output and the nodes a fleet run left out (``--nodes``) are kept
beside the page (``reframe-output.log``, ``nodes.json``) so a rebuild finds
them again.
'''

import datetime
import os
import shutil
import sys
from dataclasses import dataclass

from hpc_acceptance.tools.common import arguments
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.fleet.history import stored_run
from hpc_acceptance.tools.fleet.node_map import read_node_map
from hpc_acceptance.tools.launch import report_file
from hpc_acceptance.tools.outcome import finished_run, summary, verdict
from hpc_acceptance.tools.page import heat_map
from hpc_acceptance.tools.page import html
from hpc_acceptance.tools.page import trend_plot
from hpc_acceptance.tools.page import trends
from hpc_acceptance.tools.page.trends import MAX_TREND_PLOTS, by_check
from hpc_acceptance.tools.references import calibration
from hpc_acceptance.tools.results import skips
from hpc_acceptance.tools.results.runs import (ResultsError, Unreadable,
                                               stored_testcases)
from hpc_acceptance.tools.shifts import limit, nightly

#: One line for ``hpc-acceptance --help``.
description = ('write the HTML report page (trends, skips, provenance) of '
               'a session')

LOG_NAME = 'reframe-output.log'

#: The stored sessions the trends draw from, unless ``--history``: those
#: the shifts across nights are found against.
HISTORY = nightly.HISTORY


@dataclass
class ReportPage:
    session: str
    system: str
    when: str
    status: int
    message: str
    families: dict
    failures: list
    trends: list
    skips: dict
    left_out: list
    testcases: list
    #: the fleet comparison (:func:`..fleet.comparison.compare`) of a fleet
    #: run, else ``None``
    fleets: list = None
    #: the node list of a fleet run (:mod:`..fleet.node_map`)
    nodes: dict = None
    #: why the previous fleet run could not be read, or ``None``
    fleet_note: str = None
    #: the persistent shifts across nights (:mod:`..shifts.nightly`)
    shifts: list = ()
    #: which noise floors the bands are drawn with
    floors_note: str = ''


def _when(testcases):
    times = [c.get('job_completion_time_unix') or 0 for c in testcases]
    if not any(times):
        return 'time unknown'

    return datetime.datetime.fromtimestamp(
        max(times), datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')


def _shifts(testcases, history):
    '''``(shifts, why none could be judged)``.'''
    try:
        return nightly.find(testcases, history), None
    except nightly.UNREADABLE as err:
        return [], str(err)


def page_for(session, testcases, history, skipped, *, runs, fleets=None,
             fleet_note=None, found=None, judged=None):
    '''The :class:`ReportPage` of a session's ``testcases``; ``found``
    (its shifts and why there are none) and ``judged`` (its verdict: exit
    status and message) where the run's end made them already.'''
    shifts, shift_note = found or _shifts(testcases, history)
    floors, floors_note = calibration.floors_of(
        calibration.system_of(testcases) or '')
    status, message = judged or verdict.judge(
        {'runs': [{'testcases': testcases}]}, fleets or [], fleet_note,
        shifts)
    systems = sorted({c.get('system', '?') for c in testcases})
    return ReportPage(
        session=session, system=', '.join(systems) or '?',
        when=_when(testcases), status=status,
        message=message.splitlines()[-1], families=summary.tally(testcases),
        failures=summary.failures(testcases),
        trends=trends.build(testcases, history, runs, floors, shifts),
        skips=skips.by_reason(skipped),
        left_out=summary.left_out(testcases), testcases=testcases,
        fleets=fleets, fleet_note=fleet_note, shifts=shifts,
        floors_note='; '.join(filter(None, [floors_note, shift_note])),
    )


def write(page, out_dir):
    '''Write ``page`` and its plots into ``out_dir``; the page's path.'''
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        if name.startswith(('trend-', 'fleet-')) and name.endswith('.png'):
            os.remove(os.path.join(out_dir, name))

    images = {}
    drawn = [trend for _, group in by_check(page.trends)
             for trend in group][:MAX_TREND_PLOTS]
    for number, trend in enumerate(drawn, 1):
        name = f'trend-{number:04d}.png'
        trend_plot.draw(trend, os.path.join(out_dir, name))
        images[id(trend)] = name

    for number, partition in enumerate(page.fleets or [], 1):
        if partition.spreads:
            name = f'fleet-{number:02d}.png'
            heat_map.draw(partition, os.path.join(out_dir, name))
            images[id(partition)] = name

    path = os.path.join(out_dir, 'index.html')
    with open(path, 'w') as fp:
        fp.write(html.render(page, images))

    return path


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
    parser.add_argument('--history', default=HISTORY,
                        help='stored sessions the trends draw from, as '
                             "ReFrame's --describe-stored-testcases takes "
                             "(default: %(default)s)")
    parser.add_argument('--output', help='directory of the page (default: '
                                         'var/reports/<session>)')


def _session_of(testcases, path):
    for case in testcases:
        if case.get('session_uuid'):
            return case['session_uuid']

    raise ResultsError(f'{path}: no test case names its session')


def _keep(source, kept):
    '''Copy ``source`` to ``kept`` beside the page (unless it is it).'''
    if source and os.path.abspath(source) != os.path.abspath(kept):
        shutil.copyfile(source, kept)


def of_run(run, history, *, runs=trends.DEFAULT_RUNS, output=None,
           judged=None):
    '''Write the page of the :class:`..outcome.finished_run.FinishedRun`
    ``run`` (not unreadable), its trends drawn from the stored test cases
    ``history``; its path. ``judged`` is the run's verdict, judged here
    where not given. Its console output and node list are kept beside it.

    :raises ResultsError: if no test case names its session.
    '''
    first_report = run.reports[0] if run.reports else None
    session = (run.session_info['uuid'] if first_report is None else
               _session_of(run.testcases, first_report))
    try:
        out_dir = output or report_file.page_dir(session, first_report)
    except ValueError as err:
        raise Unreadable(f'the page of session {session}: {err}') from None

    kept_log = os.path.join(out_dir, LOG_NAME)
    kept_nodes = os.path.join(out_dir, report_file.NODES_NAME)
    os.makedirs(out_dir, exist_ok=True)
    if len(run.logs) > 1:
        with open(kept_log, 'w') as kept:
            for log in run.logs:
                with open(log, errors='replace') as fp:
                    kept.write(fp.read())
    else:
        _keep(run.logs[0] if run.logs else None, kept_log)

    _keep(run.nodes_path, kept_nodes)
    skipped = skips.reasons(run.testcases, skips.read(kept_log))
    page = page_for(session, run.testcases, history, skipped, runs=runs,
                    fleets=run.fleets, fleet_note=run.fleet_error or
                    run.fleet_note, found=(run.shifts, run.shift_error),
                    judged=judged or verdict.of_run(run))
    try:
        page.nodes = read_node_map(kept_nodes)
    except ResultsError as err:
        page.fleet_note = str(err)

    return write(page, out_dir)


def command(args):
    if args.runs < 1:
        raise UsageError(f'--runs {args.runs}: must be 1 or more')

    try:
        history = None
        if args.session:
            testcases = stored_run(args.session)
            if not testcases:
                raise ResultsError(f'no stored session {args.session!r}')

            history = stored_testcases(args.history)
            run = finished_run.read(
                [], args.log, args.nodes, testcases=testcases,
                session_info={'uuid': args.session}, shift_history=history)
        else:
            history = stored_testcases(args.history)
            run = finished_run.read([(path, None) for path in args.run_report],
                                    args.log, args.nodes,
                                    shift_history=history)
            if run.unreadable:
                raise ResultsError(run.unreadable)

        print(of_run(run, history, runs=args.runs, output=args.output))
    except ResultsError as err:
        print(f'report: {err}', file=sys.stderr)
        return 1

    return 0
