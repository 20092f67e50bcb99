'''The end of a run, the same for every kind: what a sysadmin reads and what
is kept.

    hpc-acceptance finish REPORT.json STATUS [REPORT.json STATUS ...]
        [--nodes NODES.json] [--prefix WORD]

For the reports of one run, in order (a fleet run: the nodes' run, the
confirmation rerun, the multi-node run), each with ReFrame's exit status:

1. to the site's time-series store, where it is on, what no log record
   carried (:mod:`..export.export`); a store in trouble never fails a run;
2. the console summary (:mod:`..run.summary`);
3. where each check's binary came from, against the runs before
   (:mod:`..run.dependency_drift`);
4. the report page (:mod:`..page.page`), its path printed; a page that
   cannot be written never hides the verdict;
5. that the results database holds every run (``hpc-acceptance db check
   --run``);
6. the verdict (:mod:`..run.verdict`), its last line printed last.

Exit status: the verdict's (0, 1, 2, 3), or 5 when the checks passed but
the database does not hold the run. ``ci/acceptance.sh`` ends with it;
``hpc-acceptance post-upgrade`` shows its runs with :func:`show`, then its
own verdict, and checks storage with :func:`not_stored`.
'''

import argparse
import contextlib
import io
import os
import sys

from hpc_acceptance.tools.export import export
from hpc_acceptance.tools.launch import reframe_call
from hpc_acceptance.tools.page import page
from hpc_acceptance.tools.results import db
from hpc_acceptance.tools.run import dependency_drift, summary, verdict

#: One line for ``hpc-acceptance --help``.
description = 'the end of a run: store, summary, page, storage check, verdict'

#: Exit status of a run whose results the results database does not hold.
NOT_STORED = 5


def written(report):
    '''Whether ReFrame wrote the run report ``report`` (a run stopped
    early leaves none, or an empty one).'''
    return os.path.exists(report) and os.path.getsize(report) > 0


def _logs(reports):
    return [arg for path in reports
            if os.path.exists(reframe_call.log_of(path))
            for arg in ('--log', reframe_call.log_of(path))]


def show(reports, nodes=None, prefix='acceptance'):
    '''Steps 1 to 4 for the run reports ``reports`` that were written:
    the store, the summary, the binaries' sources, the page.'''
    reports = [path for path in reports if written(path)]
    if not reports:
        return

    node_args = ['--nodes', nodes] if nodes and os.path.exists(nodes) else []
    with contextlib.redirect_stdout(io.StringIO()):
        export.main(['--run-report', *reports])

    summary.main([*reports, *_logs(reports), *node_args])
    for path in reports:
        dependency_drift.main([path])

    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            status = page.main([arg for path in reports
                                for arg in ('--run-report', path)] +
                               _logs(reports) + node_args)
    except Exception as err:
        status = f'{type(err).__name__}: {err}'

    if status == 0:
        print(f'{prefix}: report page {out.getvalue().strip()}')
    else:
        print(f'{prefix}: the report page could not be written ({status})',
              file=sys.stderr)


def not_stored(reports):
    '''The reports whose session the results database does not hold, each
    said (``hpc-acceptance db check --run``); a run that wrote no report
    may still have stored its session, which its log names.'''
    return [path for path in reports
            if os.path.exists(reframe_call.log_of(path)) and
            db.main(['check', '--run', path,
                     '--log', reframe_call.log_of(path)]) != 0]


def main(argv=None):
    parser = argparse.ArgumentParser(prog='hpc-acceptance finish',
                                     description=__doc__.split('\n\n')[0])
    parser.add_argument('runs', nargs='+', metavar='REPORT STATUS',
                        help="each run's JSON report and ReFrame's exit "
                             'status')
    parser.add_argument('--nodes', help='the node list of a fleet run')
    parser.add_argument('--prefix', default='acceptance',
                        help='the word the lines start with')
    args = parser.parse_args(argv)
    if len(args.runs) % 2 or not all(s.isdigit() for s in args.runs[1::2]):
        parser.error('REPORT STATUS pairs: a report, then ReFrame\'s exit '
                     'status')

    reports = args.runs[::2]
    show(reports, args.nodes, args.prefix)
    if not any(written(path) for path in reports):
        with contextlib.suppress(OSError):
            with open(reframe_call.log_of(reports[0])) as fp:
                sys.stderr.write(''.join(fp.readlines()[-20:]))

    missing = not_stored(reports)
    status = verdict.main(args.runs)
    if status == 0 and missing:
        print(f'{args.prefix} NOT STORED: the checks passed, but the '
              f'results are not in the results database (see above)',
              file=sys.stderr)
        return NOT_STORED

    return status
