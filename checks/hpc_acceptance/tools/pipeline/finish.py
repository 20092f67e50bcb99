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
``hpc-acceptance post-upgrade`` shows its runs with :func:`.run_end.show`,
then its own verdict, and checks storage with
:func:`.run_end.not_stored`. The settings (the results database, the
shift limit, the systems that may pass without references) are read once
here, and a bad one is refused (2) before the run is judged.
'''

import sys

from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.pipeline import run_end
from hpc_acceptance.tools.shifts import limit


#: One line for ``hpc-acceptance --help``.
description = 'the end of a run: store, summary, page, storage check, verdict'

#: Exit status where a setting cannot be read: the run cannot be judged.
NOT_VALIDATED = 2


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

    try:
        given = command_settings.read()
        limits = limit.of_settings(given)
    except (command_settings.BadSetting, limit.LimitError) as err:
        print(f'{args.prefix} NOT VALIDATED: {err}', file=sys.stderr)
        return NOT_VALIDATED

    pairs = list(zip(args.runs[::2], map(int, args.runs[1::2])))
    return run_end.end(run_end.read(pairs, args.nodes, limits, given.db),
                       given, args.prefix)
