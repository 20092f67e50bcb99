'''A run from its start to its end, once ``ci/acceptance.sh`` holds the
checkout's run lock and has set the machine up.

    hpc-acceptance run [--full-output] [--fleet[=STATE]]
        [--fleet-mode node-jobs|distribute] [--node-time-limit MIN]
        [--reservation NAME] [--max-jobs N] [REFRAME ARGS...]

1. The JSON report's name: ``RFM_REPORT_FILE`` (default
   ``var/reports/acceptance-<time>.json``), ``{sessionid}`` expanded as
   ReFrame would, an earlier run's files at that name kept
   (:mod:`..launch.report_file`); the run's other files are named after it.
2. The results database checked and backed up (:func:`database_ready`):
   one that cannot take the run's results stops it before any check runs.
3. Where the checks' binaries will come from, against the runs before
   (``dependency-drift``, for the system the arguments name).
4. ReFrame, its output in a log beside each report (``--full-output``: on
   the console too), Ctrl-C and SIGTERM passed to it: the nightly set; or,
   with ``--fleet``, the fleet run (:func:`fleet_runs`): by default one
   Slurm job per node running the node's whole set
   (:mod:`..node_jobs.coordinator`), with ``--fleet-mode distribute``
   ReFrame's ``--distribute`` (a job per node and check).
5. The end every run shares (:mod:`.finish`), whose exit status this is.

Options come first, in any order; the other arguments go to ReFrame.
``hpc-acceptance post-upgrade`` starts its runs with the same steps 2 and
4. Exit status: :mod:`.finish`'s; 2 wrong options, a report name that
cannot be used, or no node to run on; 5 a database that cannot take the
run; 128 + the signal when one stopped ReFrame.
'''

import os
import sys
import time
from typing import NamedTuple, Optional

from hpc_acceptance.tools.common import arguments
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.fleet import confirm as confirmation
from hpc_acceptance.tools.fleet import fleet_run
from hpc_acceptance.tools.fleet.model import FleetError
from hpc_acceptance.tools.fleet.node_map import (listing_of_run,
                                                 node_map_path,
                                                 read_node_map,
                                                 write_node_map)
from hpc_acceptance.tools.launch import reframe_call, report_file
from hpc_acceptance.tools.node_jobs.coordinator import (NightError,
                                                       NoSlurmPartition,
                                                       run_night)
from hpc_acceptance.tools.outcome import dependency_drift
from hpc_acceptance.tools.outcome.finished_run import written
from hpc_acceptance.tools.pipeline import finish
from hpc_acceptance.tools.results import database
from hpc_acceptance.tools.results.runs import CONFIG, ResultsError

#: One line for ``hpc-acceptance --help``.
description = ('a run from its start (ci/acceptance.sh runs it): the '
               'report, the database, ReFrame, the end')

#: The variable that bounds the jobs ReFrame submits at once per partition
#: (``config/settings.py``).
MAX_JOBS = 'HPC_ACCEPTANCE_MAX_JOBS'

#: Backups of the results database kept (``HPC_ACCEPTANCE_DB_BACKUPS``).
DEFAULT_BACKUPS = 7

#: Exit status of a run that could not start as asked.
NOT_RUN = 2

USAGE = ('usage: ci/acceptance.sh [--full-output] [--fleet[=STATE]] '
         '[--fleet-mode node-jobs|distribute] [--node-time-limit MIN] '
         '[--reservation NAME] [--max-jobs N] [REFRAME ARGS...]')

#: How a fleet run runs on its nodes: one Slurm job per node running the
#: node's whole set (the default), or ReFrame's ``--distribute`` (a job
#: per node and check).
FLEET_MODES = ('node-jobs', 'distribute')


class NoNodes(Exception):
    '''A fleet run found no node to run on.'''


def database_ready(reports_dir, prefix):
    '''Whether the results database can take a run's results (checked with
    the reports in ``reports_dir`` its recovery would import) and was
    backed up; what is wrong is said.'''
    keep = os.environ.get('HPC_ACCEPTANCE_DB_BACKUPS', str(DEFAULT_BACKUPS))
    if not keep.isdigit() or int(keep) < 1:
        print(f'{prefix}: HPC_ACCEPTANCE_DB_BACKUPS={keep}: the number of '
              f'backups to keep, 1 or more', file=sys.stderr)
        return False

    path = database.database_path()
    trouble = database.unusable(path, reports_dir)
    if not trouble:
        try:
            database.backup(path, int(keep))
        except database.DatabaseError as err:
            trouble = database.cannot_be_used(path, err)

    for line in trouble:
        print(line, file=sys.stderr)

    return not trouble


def system_named(reframe_args):
    '''The system the ReFrame arguments name (``--system NAME[:PART]``),
    else ``HPC_ACCEPTANCE_SYSTEM``, else ``local``.'''
    system = os.environ.get('HPC_ACCEPTANCE_SYSTEM') or 'local'
    for arg, following in zip(reframe_args, reframe_args[1:] + ['']):
        if arg == '--system':
            system = following
        elif arg.startswith('--system='):
            system = arg[len('--system='):]

    return system.split(':')[0]


def fleet_state(state, reservation):
    '''ReFrame's ``--distribute`` state of a fleet run: the one asked for,
    else ``avail`` in a reservation (its nodes are reserved for the run,
    busy or not), else ``idle``.'''
    return state or ('avail' if reservation else 'idle')


def list_nodes(report, state, launcher, reframe_args):
    '''The node map of a fleet run, written beside ``report`` and shown;
    its path. Unless ``--max-jobs`` said otherwise, one job a node covered
    is queued at once.

    :raises NoNodes: if no node is in ``state``.
    '''
    nodes = node_map_path(report)
    print(f'{launcher.prefix}: the nodes this fleet run covers ({state}):')
    listed = listing_of_run(state, ['-C', str(CONFIG), *launcher.job,
                                    *reframe_args])
    if listed.nodes is not None:
        write_node_map(nodes, listed.nodes)
    if listed.problem:
        print(listed.problem, file=sys.stderr)
    for line in listed.lines:
        print(f'  {line}')

    if listed.problem:
        raise NoNodes(state)

    os.environ.setdefault(MAX_JOBS, str(max(1, listed.covered)))
    return nodes


class NodeJobs(NamedTuple):
    '''A fleet run as one Slurm job per node
    (:mod:`..node_jobs.coordinator`).'''
    #: each node job's time limit asked for (minutes), else ``None``
    minutes: Optional[int] = None
    #: at most this many node jobs queued at once (``--max-jobs``)
    max_jobs: Optional[str] = None
    reservation: Optional[str] = None


def fleet_runs(report, state, launcher, reframe_args, nodes_run,
               multinode_run, confirm=True, node_jobs=None):
    '''The ReFrame runs of a fleet run, ``[(report, exit status)]``: the
    node map (:func:`list_nodes`); ``nodes_run`` (ReFrame's options that
    run the single-node checks), on each node in ``state``: with
    ``node_jobs`` (:class:`NodeJobs`) one Slurm job per node, else
    through ReFrame's ``--distribute``; with ``confirm``, the suspects'
    checks once more on their nodes, the same way
    (:func:`..fleet.suspects.rerun_of`: the rerun's test cases are later
    attempts of the same test cases); then ``multinode_run`` (those of the
    checks that need several nodes), once.

    :raises NoNodes: if no node is in ``state``.
    :raises NightError: if the node jobs cannot run (said why).
    :raises reframe_call.Interrupted: if a signal stopped a run.
    '''
    nodes = list_nodes(report, state, launcher, reframe_args)
    runs = []
    if node_jobs is not None:
        try:
            runs = [_night(report, read_node_map(nodes), launcher,
                           reframe_args, nodes_run, node_jobs)]
        except NoSlurmPartition as err:
            # the embedded default, a login node's partition: one node
            print(f"{launcher.prefix}: {err}: ReFrame's --distribute "
                  f"instead")
            node_jobs = None

    if node_jobs is None:
        runs = [launcher.reframe(report, launcher.arguments(
            nodes_run + [f'--distribute={state}'], reframe_args))]

    rerun = None
    if confirm and written(report):
        try:
            rerun = fleet_run.rerun_of(report, nodes)
        except (ResultsError, FleetError) as err:
            print(f'{launcher.prefix}: no rerun of the suspects: {err}',
                  file=sys.stderr)

    if rerun:
        print(f"{launcher.prefix}: the suspects' checks once more, on their "
              f"nodes")
        again = report_file.stem(report) + '-confirm.json'
        if node_jobs is None:
            runs.append(launcher.reframe(again, confirmation.reframe_args(
                rerun.variants, rerun.nodes, rerun.others, rerun.session,
                state, [*launcher.job, *reframe_args])))
        else:
            runs.append(_night(
                again, _only(read_node_map(nodes), rerun.nodes), launcher,
                confirmation.selection_args(rerun.variants, rerun.session,
                                            reframe_args),
                ['--mode', 'fleet', '-r'], node_jobs))

    runs.append(launcher.reframe(
        report_file.stem(report) + '-multinode.json',
        launcher.arguments(multinode_run, reframe_args)))
    return runs


def _only(node_map, nodes):
    '''``node_map`` covering ``nodes`` alone.'''
    return {partition: dict(about, covered=[n for n in about['covered']
                                            if n in nodes], left_out=[])
            for partition, about in node_map.items()}


def _night(report, node_map, launcher, reframe_args, head, node_jobs):
    return run_night(report, node_map, launcher, reframe_args, head,
                     node_jobs.minutes, node_jobs.max_jobs,
                     node_jobs.reservation)


def _options(argv):
    '''``(options, ReFrame's arguments)``: the run's own options, first.'''
    options = {'full_output': False, 'fleet': None, 'reservation': None,
               'max_jobs': None, 'fleet_mode': FLEET_MODES[0],
               'node_time_limit': None}
    argv = list(argv)
    while argv:
        arg = argv[0]
        name, given, value = arg.partition('=')
        if arg == '--full-output':
            options['full_output'] = True
        elif name == '--fleet':
            if given and not value:
                raise UsageError('--fleet=: a node state after the "="')
            options['fleet'] = value
        elif name in ('--reservation', '--max-jobs', '--fleet-mode',
                      '--node-time-limit'):
            if not given:
                if len(argv) < 2:
                    raise UsageError(f'{name}: a value after it')
                value = argv.pop(1)
            options[name[2:].replace('-', '_')] = value
        else:
            break

        argv.pop(0)

    max_jobs = options['max_jobs']
    if max_jobs is not None and not arguments.is_max_jobs(max_jobs):
        raise UsageError(f'--max-jobs {max_jobs}: a whole number, 1 or more')

    if options['fleet_mode'] not in FLEET_MODES:
        raise UsageError(f'--fleet-mode {options["fleet_mode"]}: one of '
                         f'{", ".join(FLEET_MODES)}')

    limit = options['node_time_limit']
    if limit is not None:
        if not arguments.is_max_jobs(limit):
            raise UsageError(f'--node-time-limit {limit}: minutes, a whole '
                             f'number, 1 or more')
        options['node_time_limit'] = int(limit)

    return options, argv


def setup_parser(parser):
    parser.usage = USAGE[len('usage: '):]
    arguments.pass_on(parser)


def command(args):
    prefix = 'acceptance'
    try:
        options, reframe_args = _options(args.passed_on)
    except UsageError as err:
        print(f'{prefix}: {err}\n{USAGE}', file=sys.stderr)
        return NOT_RUN

    try:
        report = report_file.new_report(
            os.environ.get('RFM_REPORT_FILE') or
            f'{report_file.REPORTS_DIR}/acceptance-'
            f'{time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())}.json')
    except (report_file.ReportFileError, OSError) as err:
        print(f'report file: {err}', file=sys.stderr)
        return NOT_RUN

    if not database_ready(os.path.dirname(report), prefix):
        print(f"{prefix} NOT RUN: the results database cannot take this "
              f"run's results (see above); no check was run",
              file=sys.stderr)
        return finish.NOT_STORED

    dependency_drift.show(dependency_drift.before(system_named(reframe_args)))
    if options['max_jobs']:
        os.environ[MAX_JOBS] = options['max_jobs']

    launcher = reframe_call.Launcher(prefix, options['reservation'],
                                     echo=options['full_output'])
    nodes = None
    try:
        if options['fleet'] is None:
            runs = [launcher.reframe(report, launcher.arguments(
                ['--mode', 'nightly', '-r'], reframe_args))]
        else:
            state = fleet_state(options['fleet'], options['reservation'])
            runs = fleet_runs(
                report, state, launcher, reframe_args,
                nodes_run=['--mode', 'fleet', '-r'],
                multinode_run=['--mode', 'nightly', '--tag=multinode', '-r'],
                node_jobs=None if options['fleet_mode'] == 'distribute' else
                NodeJobs(options['node_time_limit'], options['max_jobs'],
                         options['reservation']))
            nodes = node_map_path(report)
    except NoNodes:
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

    return finish.end(finish.read(runs, nodes))
