'''The report page of a finished run, written beside its report with the
files a rebuild reads (ReFrame's output, the node map).
'''

import datetime
import os
import shutil
from dataclasses import dataclass

from hpc_acceptance.tools.fleet.node_map import read_node_map
from hpc_acceptance.tools.launch import report_file
from hpc_acceptance.tools.outcome import acceptance_verdict, summary_text
from hpc_acceptance.tools.page import heat_map
from hpc_acceptance.tools.page import html
from hpc_acceptance.tools.page import trend_plot
from hpc_acceptance.tools.page import trends
from hpc_acceptance.tools.page.trends import MAX_TREND_PLOTS, by_check
from hpc_acceptance.tools.results import skips
from hpc_acceptance.tools.results.runs import ResultsError, Unreadable
from hpc_acceptance.tools.shifts import nightly


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


def page_for(session, testcases, history, skipped, *, runs, found, judged,
             floors, fleets=None, fleet_note=None):
    '''The :class:`ReportPage` of a session's ``testcases``: ``found``
    its shifts and why there are none, ``judged`` its verdict (exit status
    and message), ``floors`` the noise floors its bands are drawn with and
    the line that says whose, as the run's end made them.'''
    shifts, shift_note = found
    floors, floors_note = floors
    status, message = judged
    systems = sorted({c.get('system', '?') for c in testcases})
    return ReportPage(
        session=session, system=', '.join(systems) or '?',
        when=_when(testcases), status=status,
        message=message.splitlines()[-1],
        families=summary_text.tally(testcases),
        failures=summary_text.failures(testcases),
        trends=trends.build(testcases, history, runs, floors, shifts),
        skips=skips.by_reason(skipped),
        left_out=summary_text.left_out(testcases), testcases=testcases,
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


def _session_of(testcases, path):
    for case in testcases:
        if case.get('session_uuid'):
            return case['session_uuid']

    raise ResultsError(f'{path}: no test case names its session')


def _keep(source, kept):
    '''Copy ``source`` to ``kept`` beside the page (unless it is it).'''
    if source and os.path.abspath(source) != os.path.abspath(kept):
        shutil.copyfile(source, kept)


def write_page(run, *, runs=trends.DEFAULT_RUNS, output=None,
               judged=None, unreferenced_ok=frozenset()):
    '''Write the page of the :class:`..outcome.finished_run.FinishedRun`
    ``run`` (not unreadable), its trends drawn from the stored test cases
    its shifts were found against (``run.shift_history``); its path.
    ``judged`` is the run's verdict, judged here where not given (with
    the site's ``unreferenced_ok``). Its console output and node list are
    kept beside it.

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
    page = page_for(session, run.testcases, run.shift_history, skipped,
                    runs=runs, fleets=run.fleets, fleet_note=run.fleet_error or
                    run.fleet_note, found=(run.shifts, run.shift_error),
                    floors=run.floors,
                    judged=judged or acceptance_verdict.verdict_of(
                        run, unreferenced_ok))
    try:
        page.nodes = read_node_map(kept_nodes)
    except ResultsError as err:
        page.fleet_note = str(err)

    return write(page, out_dir)
