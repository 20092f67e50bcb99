'''Write the static report page of an acceptance session.

    hpc-acceptance report (--session UUID | --run-report REPORT.json)
        [--log REFRAME_OUTPUT] [--runs 30] [--history 'now-365d:now']
        [--output DIR]

Writes ``DIR/index.html`` (default ``<session>/`` in ``var/reports/``, or
in the directory of ``--run-report``) with one PNG
per figure beside it, and prints its path. The session's test cases come
from ReFrame's results database (``--session``) or its JSON run report
(``--run-report``); earlier runs of the same figures from the database.
Skip reasons come with the test cases; ReFrame's console output (``--log``)
gives those the test cases lack (:mod:`hpc_acceptance.tools.skips`) and is
kept beside the page as ``reframe-output.log`` so a rebuild finds it again.
'''

import argparse
import datetime
import os
import shutil
import sys
from dataclasses import dataclass

from hpc_acceptance.core.paths import PROJECT_DIR
from hpc_acceptance.tools import report_page, skips, summary, trend_plot
from hpc_acceptance.tools import trends as trends_mod
from hpc_acceptance.tools.results import (ResultsError, report_testcases,
                                          stored_testcases)
from hpc_acceptance.tools.verdict import judge

REPORTS_DIR = PROJECT_DIR / 'var' / 'reports'
LOG_NAME = 'reframe-output.log'


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


def _when(testcases):
    times = [c.get('job_completion_time_unix') or 0 for c in testcases]
    if not any(times):
        return 'time unknown'

    return datetime.datetime.fromtimestamp(
        max(times), datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')


def page_for(session, testcases, history, skipped, *, runs):
    status, message = judge({'runs': [{'testcases': testcases}]})
    systems = sorted({c.get('system', '?') for c in testcases})
    return ReportPage(
        session=session, system=', '.join(systems) or '?',
        when=_when(testcases), status=status,
        message=message.splitlines()[0], families=summary.tally(testcases),
        failures=summary.failures(testcases),
        trends=trends_mod.build(testcases, history, runs),
        skips=skips.by_reason(skipped),
        left_out=summary.left_out(testcases), testcases=testcases,
    )


def write(page, out_dir):
    '''Write ``page`` and its plots into ``out_dir``; the page's path.'''
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        if name.startswith('trend-') and name.endswith('.png'):
            os.remove(os.path.join(out_dir, name))

    images = {}
    for number, trend in enumerate(page.trends, 1):
        name = f'trend-{number:04d}.png'
        trend_plot.draw(trend, os.path.join(out_dir, name))
        images[id(trend)] = name

    path = os.path.join(out_dir, 'index.html')
    with open(path, 'w') as fp:
        fp.write(report_page.render(page, images))

    return path


def _parser():
    parser = argparse.ArgumentParser(
        prog='hpc-acceptance report',
        description=__doc__.split('\n\n')[0],
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument('--session', help='UUID of a stored session')
    source.add_argument('--run-report', help="ReFrame's JSON run report")
    parser.add_argument('--log', help="ReFrame's console output of the "
                                      "run (default: the one kept beside "
                                      "the page)")
    parser.add_argument('--runs', type=int,
                        default=trends_mod.DEFAULT_RUNS,
                        help='runs per trend (default: %(default)s)')
    parser.add_argument('--history', default='now-365d:now',
                        help='stored sessions the trends draw from, as '
                             "ReFrame's --describe-stored-testcases takes "
                             "(default: %(default)s)")
    parser.add_argument('--output', help='directory of the page (default: '
                                         'var/reports/<session>)')
    return parser


def _session_of(testcases, path):
    for case in testcases:
        if case.get('session_uuid'):
            return case['session_uuid']

    raise ResultsError(f'{path}: no test case names its session')


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f'--runs {args.runs}: must be 1 or more')

    try:
        if args.session:
            testcases = stored_testcases(args.session)
            if not testcases:
                raise ResultsError(f'no stored session {args.session!r}')

            session = args.session
        else:
            testcases = report_testcases(args.run_report)
            session = _session_of(testcases, args.run_report)

        history = stored_testcases(args.history)
    except ResultsError as err:
        print(f'report: {err}', file=sys.stderr)
        return 1

    # Beside the run report it was made from: var/reports/ by default.
    reports_dir = (os.path.dirname(os.path.abspath(args.run_report))
                   if args.run_report else str(REPORTS_DIR))
    out_dir = args.output or os.path.join(reports_dir, session)
    kept_log = os.path.join(out_dir, LOG_NAME)
    os.makedirs(out_dir, exist_ok=True)
    if args.log and os.path.abspath(args.log) != os.path.abspath(kept_log):
        shutil.copyfile(args.log, kept_log)

    skipped = skips.reasons(testcases, skips.read(kept_log))
    page = page_for(session, testcases, history, skipped, runs=args.runs)
    print(write(page, out_dir))
    return 0
