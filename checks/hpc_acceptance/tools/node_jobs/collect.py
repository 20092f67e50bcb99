'''A fleet night's node reports, collected into the run's one report.

    hpc-acceptance collect REPORT.json [--cancel]

Each node's job wrote its ReFrame report in the night's folder
(:mod:`.night`). The run's report, ``REPORT.json``, is all of them as one
ReFrame session (its own UUID, the nodes' runs side by side: every node's
first run, then every node's retries), so that the verdict, the summary,
``suspects``, the drains, the confirmation rerun, the page, the export and
the results database read a night of node jobs as they read a distributed
run: each test case keeps its name (``%.nid=<node>``), node, job node list,
figures and identity; a node's builds are named after their node too
(each node built its own); each test case records the node's own session
(``node_session_uuid``, ``node_session_start_unix``).

A node whose job did not do its work is named, as one whose checks failed:

- its job was refused by ``sbatch``, or pended for a reason Slurm does not
  resolve (its node down or drained: :data:`.slurm_jobs.STUCK`) and was
  cancelled: *did not start*;
- its job was stopped (its time limit, a cancel): the test cases it was
  running are *stopped at* there, with Slurm's word for why;
- its job died (the node failed, the run was killed), or ReFrame left no
  report or a truncated one: the check its output last started is where it
  *stopped*, and its results are lost.

Every test case the node's partition ran on the other nodes and the node
did not report becomes a failed test case of that node, the reason its
own, so that the usual rules name it (a check that passed on more than
half of the nodes and failed on this one) and ``suspects --drain`` drains
it; every other node's results are kept and judged. A node whose job was
never submitted (the night was interrupted first) or that ``--cancel``
stopped is no fault of its own: it is listed as left out in the node list
(``<stem>-nodes.json``), not named.

The report's top-level ``fleet_night`` says how the night ran: node jobs,
the limits that bound it (:mod:`.site_limits`), each node named and each
left out, with why. The nodes' perflogs are added to the run's
(:mod:`.perflogs`).

``hpc-acceptance collect`` finishes a night whose coordinator was
interrupted: it collects what the nodes wrote (refusing while jobs of the
night are still queued, unless ``--cancel`` cancels them), stores the run
in the results database and prints the ``hpc-acceptance finish`` line
that judges it. Exit status: 0 collected; 1 jobs still queued; 3 the
night's folder cannot be read.
'''

import sys

from hpc_acceptance.tools.common import command_settings
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.fleet.model import natural_order
from hpc_acceptance.tools.fleet.node_map import node_map_path
from hpc_acceptance.tools.launch import reframe_call
from hpc_acceptance.tools.node_jobs import gather
from hpc_acceptance.tools.node_jobs import slurm_jobs
from hpc_acceptance.tools.node_jobs.night import Night, write_json


#: One line for ``hpc-acceptance --help``.
description = ("a fleet night's node reports collected into its run "
               "report (a night whose coordinator was interrupted)")


def setup_parser(parser):
    parser.add_argument('report', metavar='REPORT.json',
                        help="the night's run report (its node jobs' "
                             'folder is <stem>-node-runs/ beside it)')
    parser.add_argument('--cancel', action='store_true',
                        help="cancel the night's jobs still queued or "
                             'running (their nodes are left out)')


def _finish_line(report_path, head, status, stored):
    print('\n'.join(gather.lines(head)))
    print(f'collect: {report_path} holds the night '
          f'({"stored in" if stored else "NOT stored in"} the results '
          f'database); judge it with:\n  hpc-acceptance finish '
          f'{report_path} {status} --nodes {node_map_path(report_path)}')


def command(args):
    try:
        given = command_settings.read()
    except command_settings.BadSetting as err:
        raise UsageError(str(err)) from None

    done = gather.collected(args.report)
    if done is not None:
        print(f'collect: {args.report} was collected already')
        _finish_line(args.report, done, done[gather.KEY].get('status', 1),
                     True)
        return 0

    night = Night.of_report(args.report)
    try:
        queued = gather.still_queued(night)
    except ValueError as err:
        print(f'collect: {err}', file=sys.stderr)
        return 3

    if queued and not args.cancel:
        print(f'collect: {len(queued)} job(s) of the night are still queued '
              f'or running ({", ".join(sorted(queued, key=natural_order))}'
              f'): wait for them, or pass --cancel', file=sys.stderr)
        return 1

    if queued:
        jobs = night.read_jobs()
        # a job of several nodes is cancelled once
        for job in sorted(set(queued.values())):
            slurm_jobs.cancel(job)
        for node in queued:
            jobs[node]['cancelled_by_collect'] = True
        write_json(night.jobs, jobs)

    try:
        merged, status = gather.collect(args.report)
    except ValueError as err:
        print(f'collect: {err}', file=sys.stderr)
        return 3

    with open(reframe_call.log_of(args.report), 'a') as log:
        stored = gather.store(args.report, merged, log, given.db)
    _finish_line(args.report, merged.head, status, stored)
    return 0
