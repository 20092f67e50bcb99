'''A run from its start to its end, once ``ci/acceptance.sh`` holds the
checkout's run lock and has set the machine up.

    hpc-acceptance run [--full-output] [--fleet[=STATE]]
        [--fleet-mode node-jobs|distribute] [--node-time-limit MIN]
        [--nodes-per-job N] [--reservation NAME] [--max-jobs N]
        [REFRAME ARGS...]

1. The JSON report's name: ``RFM_REPORT_FILE`` (default
   ``var/reports/acceptance-<time>.json``), ``{sessionid}`` expanded as
   ReFrame would, an earlier run's files at that name kept
   (:mod:`..launch.report_file`); the run's other files are named after it.
2. The results database checked and backed up
   (:func:`.acceptance_run.database_ready`): one that cannot take the
   run's results stops it before any check runs.
3. Where the checks' binaries will come from, against the runs before
   (``dependency-drift``, for the system the arguments name).
4. ReFrame, its output in a log beside each report (``--full-output``: on
   the console too), Ctrl-C and SIGTERM passed to it: the nightly set; or,
   with ``--fleet``, the fleet run (:func:`.acceptance_run.fleet_runs`): by
   default one Slurm job per node running the node's whole set
   (:mod:`..node_jobs.coordinator`), with ``--fleet-mode distribute``
   ReFrame's ``--distribute`` (a job per node and check).
5. The end every run shares (:mod:`.finish`), whose exit status this is.

Options come first, in any order (argparse's, each checked by one
function of :mod:`..common.arguments`); from the first argument that is
none of them, everything goes to ReFrame. ``hpc-acceptance post-upgrade``
starts its runs with the same steps 2 and 4. Exit status: :mod:`.finish`'s;
2 wrong options, a report name that cannot be used, or no node to run on;
5 a database that cannot take the run; 128 + the signal when one stopped
ReFrame.
'''

import os
import sys
import time

from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.fleet.node_map import node_map_path
from hpc_acceptance.tools.launch import reframe_call, report_file
from hpc_acceptance.tools.node_jobs import slurm_jobs
from hpc_acceptance.tools.node_jobs.coordinator import NightError
from hpc_acceptance.tools.outcome import binary_sources
from hpc_acceptance.tools.pipeline import acceptance_run
from hpc_acceptance.tools.pipeline import run_end
from hpc_acceptance.tools.shifts import limit


#: One line for ``hpc-acceptance --help``.
description = ('a run from its start (ci/acceptance.sh runs it): the '
               'report, the database, ReFrame, the end')

#: Exit status of a run that could not start as asked.
NOT_RUN = 2


def setup_parser(parser):
    # its errors name the script a site runs, which runs this
    parser.prog = 'ci/acceptance.sh'
    parser.add_argument('--full-output', action='store_true',
                        help="ReFrame's output on the console too, not "
                             "only in the log beside the report")
    arguments.add_run_options(parser)
    parser.add_argument('--fleet-mode', choices=acceptance_run.FLEET_MODES,
                        default=acceptance_run.FLEET_MODES[0],
                        help='one Slurm job per node running its whole '
                             "set, or ReFrame's --distribute, a job per "
                             'node and check (default: %(default)s)')
    parser.add_argument('--node-time-limit', type=arguments.minutes,
                        metavar='MIN',
                        help="a node job's time limit (default: the "
                             "partition's, else 120)")
    parser.add_argument('--nodes-per-job', type=arguments.count,
                        metavar='N',
                        help='node jobs of up to N nodes each, one step a '
                             'node (default: one a node up to '
                             f'{slurm_jobs.MOST_JOBS} nodes, at most '
                             f'{slurm_jobs.MOST_JOBS} jobs beyond)')
    arguments.pass_on(parser, own_first=True)
    parser.usage = ('%(prog)s [--full-output] [--fleet[=STATE]] '
                    '[--fleet-mode node-jobs|distribute] '
                    '[--node-time-limit MIN] [--nodes-per-job N] '
                    '[--reservation NAME] [--max-jobs N] [REFRAME ARGS...]')


def command(args):
    prefix = 'acceptance'
    reframe_args = args.passed_on
    # every setting read and checked before anything runs: a bad one
    # stops the night here, not after it (where it would hide a failure)
    try:
        given = command_settings.read(max_jobs=args.max_jobs)
        limits = limit.of_settings(given)
    except (command_settings.BadSetting, limit.LimitError) as err:
        print(f'{prefix} NOT RUN: {err}', file=sys.stderr)
        return NOT_RUN

    if args.nodes_per_job and (args.fleet is None or
                               args.fleet_mode == 'distribute'):
        print(f'{prefix} NOT RUN: --nodes-per-job is for a fleet run\'s '
              f'node jobs (--fleet, --fleet-mode node-jobs)',
              file=sys.stderr)
        return NOT_RUN

    try:
        report = report_file.new_report(
            given.report_file or
            f'{report_file.REPORTS_DIR}/acceptance-'
            f'{time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())}.json')
    except (report_file.ReportFileError, OSError) as err:
        print(f'report file: {err}', file=sys.stderr)
        return NOT_RUN

    if not acceptance_run.database_ready(os.path.dirname(report), given.db,
                                         given.db_backups):
        print(f"{prefix} NOT RUN: the results database cannot take this "
              f"run's results (see above); no check was run",
              file=sys.stderr)
        return run_end.NOT_STORED

    binary_sources.show(binary_sources.before(
        acceptance_run.system_named(reframe_args, given.system), given.db))
    launcher = reframe_call.Launcher(prefix, args.reservation,
                                     env=given.run_env(),
                                     echo=args.full_output,
                                     system=given.reframe_system)
    nodes = None
    try:
        if args.fleet is None:
            runs = [launcher.reframe(report, launcher.arguments(
                ['--mode', 'nightly', '-r'], reframe_args))]
        else:
            state = acceptance_run.fleet_state(args.fleet, args.reservation)
            runs = acceptance_run.fleet_runs(
                report, state, launcher, reframe_args,
                nodes_run=['--mode', 'fleet', '-r'],
                multinode_run=['--mode', 'nightly', '--tag=multinode', '-r'],
                node_jobs=None if args.fleet_mode == 'distribute' else
                acceptance_run.NodeJobs(args.node_time_limit, args.max_jobs,
                                        args.reservation, given.db,
                                        args.nodes_per_job,
                                        given.reframe_dirs),
                db_path=given.db)
            nodes = node_map_path(report)
    except acceptance_run.NoNodes:
        print(f'{prefix} NOT VALIDATED: no node to run on (see above)',
              file=sys.stderr)
        return NOT_RUN
    except NightError as err:
        print(f'{prefix} NOT VALIDATED: the node jobs cannot run: {err}',
              file=sys.stderr)
        return NOT_RUN
    except reframe_call.Interrupted as stop:
        print(f'{prefix} INTERRUPTED: no verdict; ReFrame stored what it '
              f'ran', file=sys.stderr)
        return 128 + stop.args[0]

    return run_end.end(run_end.read(runs, nodes, limits, given.db),
                       given)
