'''The few lines an acceptance run ends with, instead of ReFrame's tables.

    hpc-acceptance summary REPORT.json [REPORT.json ...]
        [--log REFRAME_OUTPUT ...] [--nodes NODES.json] [--width N]

Per family (the directory of the check under ``checks/``): how many test
cases passed, failed and skipped; for a fleet run, the suspect nodes
(:mod:`..fleet.comparison`) with their worst figures; each failure with its
reason; each figure whose nightly series ended on a persistent shift
(:mod:`..shifts.nightly`), largest first, with its whole size from the
accepted level, first night, standard errors, change points and what
changed around that night, and each figure back at its level since; skip
reasons grouped, one line each with a count; the variants not generated
because no partition could hold them (stated once); what the node's shape
decided, once per partition (the share of the node the run may use where
less than all of it, the NUMA nodes of other kinds of memory not
measured, a hybrid CPU's kinds of core and which of them the cases ran
on; the cache levels not measured and why); the nodes a fleet run left
out; the noise floors the bands were drawn with. At most
:data:`.summary_text.MAX_LINES` lines. Long lines wrap rather than lose
their end, which is where a reason says what to do; what does not fit
is counted and left to the report page and the log. ReFrame's full
output, its performance table included, stays in the log file.
'''

from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.outcome import finished_run
from hpc_acceptance.tools.outcome import summary_text
from hpc_acceptance.tools.shifts import limit


#: One line for ``hpc-acceptance --help``.
description = 'the short console summary of an acceptance run'


def setup_parser(parser):
    parser.add_argument('reports', nargs='+', metavar='report',
                        help="ReFrame's JSON run reports (a fleet run: the "
                             "nodes' run, then the multi-node one)")
    arguments.add_logs(parser, ', for the reasons of skips that the '
                               'reports do not hold')
    arguments.add_nodes(parser)
    parser.add_argument('--width', type=int, default=100,
                        help='longest line (default: %(default)s)')


def command(args):
    try:
        given = command_settings.read()
        limits = limit.of_settings(given)
    except (command_settings.BadSetting, limit.LimitError) as err:
        raise UsageError(str(err)) from None

    summary = summary_text.summary_of(
        finished_run.of_reports(args.reports, args.log, args.nodes, limits,
                                db_path=given.db),
        args.width, db_path=given.db, site_dir=given.site_dir)
    summary_text.show(summary)
    return 1 if summary.error else 0
