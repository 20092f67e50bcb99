'''An acceptance run's steps before its end: the results database made
ready, the system the arguments name, and a fleet run's ReFrame runs (the
node map, the node jobs or ReFrame's --distribute, the suspects' rerun,
the multi-node checks).
'''

import sys
from typing import NamedTuple, Optional

from hpc_acceptance.tools.common import command_settings
from hpc_acceptance.tools.fleet import confirm as confirmation
from hpc_acceptance.tools.fleet import fleet_run
from hpc_acceptance.tools.fleet.model import FleetError
from hpc_acceptance.tools.fleet.node_map import (listing_of_run, node_map_path,
                                                 read_node_map, write_node_map)
from hpc_acceptance.tools.launch import report_file
from hpc_acceptance.tools.node_jobs.coordinator import (NoSlurmPartition,
                                                        run_night)
from hpc_acceptance.tools.outcome.finished_run import written
from hpc_acceptance.tools.results import database
from hpc_acceptance.tools.results.runs import CONFIG, ResultsError


#: How a fleet run runs on its nodes: one Slurm job per node running the
#: node's whole set (the default), or ReFrame's ``--distribute`` (a job
#: per node and check).
FLEET_MODES = ('node-jobs', 'distribute')


class NoNodes(Exception):
    '''A fleet run found no node to run on.'''


def database_ready(reports_dir, path, keep):
    '''Whether the results database at ``path`` can take a run's results
    (checked with the reports in ``reports_dir`` its recovery would
    import) and was backed up, the newest ``keep`` backups kept; what is
    wrong is said.'''
    trouble = database.unusable(path, reports_dir)
    if not trouble:
        try:
            database.backup(path, keep)
        except database.DatabaseError as err:
            trouble = database.cannot_be_used(path, err)

    for line in trouble:
        print(line, file=sys.stderr)

    return not trouble


def system_named(reframe_args, default=None):
    '''The system the ReFrame arguments name (``--system NAME[:PART]``),
    else ``default`` (the settings' ``HPC_ACCEPTANCE_SYSTEM``), else
    ``local``.'''
    system = default or 'local'
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
    its path. Unless ``--max-jobs`` (or the environment) said otherwise,
    one job a node covered is queued at once (the ``launcher``'s runs
    get it in their environment).

    :raises NoNodes: if no node is in ``state``.
    '''
    nodes = node_map_path(report)
    print(f'{launcher.prefix}: the nodes this fleet run covers ({state}):')
    listed = listing_of_run(state, ['-C', str(CONFIG), *launcher.job,
                                    *reframe_args], launcher.system)
    if listed.nodes is not None:
        write_node_map(nodes, listed.nodes)
    if listed.problem:
        print(listed.problem, file=sys.stderr)
    for line in listed.lines:
        print(f'  {line}')

    if listed.problem:
        raise NoNodes(state)

    launcher.env.setdefault(command_settings.MAX_JOBS,
                            str(max(1, listed.covered)))
    return nodes


class NodeJobs(NamedTuple):
    '''A fleet run as one Slurm job per node
    (:mod:`..node_jobs.coordinator`).'''
    #: each node job's time limit asked for (minutes), else ``None``
    minutes: Optional[int]
    #: at most this many node jobs queued at once (``--max-jobs``)
    max_jobs: Optional[str]
    reservation: Optional[str]
    #: the results database the nights are stored in (the run's settings)
    db: str
    #: the nodes a job covers at most (``--nodes-per-job``), else ``None``
    nodes_per_job: Optional[int] = None
    #: where ReFrame's variables put the run's files (the run's settings)
    reframe_dirs: command_settings.ReframeDirs = \
        command_settings.ReframeDirs()


def fleet_runs(report, state, launcher, reframe_args, nodes_run,
               multinode_run, confirm=True, node_jobs=None, *, db_path):
    '''The ReFrame runs of a fleet run, ``[(report, exit status)]``: the
    node map (:func:`list_nodes`); ``nodes_run`` (ReFrame's options that
    run the single-node checks), on each node in ``state``: with
    ``node_jobs`` (:class:`NodeJobs`) one Slurm job per node, else
    through ReFrame's ``--distribute``; with ``confirm``, the suspects'
    checks once more on their nodes, the same way
    (:func:`..fleet.fleet_run.rerun_of`, against the earlier fleet runs in
    the results database ``db_path``: the rerun's test cases are later
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
            rerun = fleet_run.rerun_of(report, nodes, db_path)
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
                     node_jobs.reservation, node_jobs.db,
                     node_jobs.nodes_per_job, node_jobs.reframe_dirs)
