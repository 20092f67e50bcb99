'''A night of node jobs from its coordinator: prepared, submitted within
the site's limits, watched, collected and stored.

``hpc-acceptance run --fleet`` (:mod:`..pipeline.run`) calls
:func:`run_night` with the node list it made (``hpc-acceptance nodes``) for
the fleet run, and again, on the suspects alone, for their confirmation
rerun: one Slurm job per node covered, each running the node's whole
single-node set on it (:mod:`.on_node`), collected into one report
(:mod:`.collect`). The night's lines go to the log beside the report (as a
ReFrame run's output does), the main ones to the console too.
'''

import argparse
import os
import resource
import shlex
import sys
import time

from hpc_acceptance.core.export.handler import session_extras
from hpc_acceptance.tools.fleet.model import natural_order
from hpc_acceptance.tools.fleet.node_map import sbatch_options
from hpc_acceptance.tools.launch import reframe_call
from hpc_acceptance.tools.node_jobs import gather, node_system, \
    site_limits, slurm_jobs
from hpc_acceptance.tools.node_jobs.night import Night, write_json
from hpc_acceptance.tools.results.atomic_file import write_atomically
from hpc_acceptance.tools.results.runs import CONFIG

#: What the node's ReFrame adds to a night's arguments: one job script at a
#: time (a node is one node; a build beside a benchmark skews it).
ON_THE_NODE = ['--exec-policy=serial']


class NightError(RuntimeError):
    '''The night cannot run; the message says why.'''


class NoSlurmPartition(NightError):
    '''The system has no Slurm partition: its nodes run no node jobs.'''


def _split(reframe_args):
    '''``(configuration files, system, job options, the others)`` of a
    run's ReFrame arguments.'''
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument('-C', '--config-file', action='append', default=[])
    parser.add_argument('--system')
    parser.add_argument('-J', '--job-option', action='append', default=[])
    known, others = parser.parse_known_args(reframe_args)
    return known.config_file, known.system, known.job_option, others


def job_script(folder):
    '''The job script of every node of the night in ``folder``.'''
    return ('#!/bin/sh\n'
            '# A node\'s job of a fleet night (hpc-acceptance run --fleet): '
            'the node\'s\n# single-node set, by one ReFrame on it '
            '(hpc_acceptance/tools/node_jobs/on_node.py).\n'
            f'exec {shlex.quote(sys.executable)} -m '
            f'hpc_acceptance.tools.node_jobs.on_node '
            f'{shlex.quote(folder)}\n')


def group_script(night):
    '''The job script of a job of several nodes: one step, a task a
    node, each the node's ``job.sh``; no MPI of its own (the checks'
    steps have theirs), the node whole, undivided (the node's steps
    overlap it). A node that fails, or whose run fails, ends its task
    alone; the job ends 0, each node's record says how its run ended.'''
    return ('#!/bin/sh\n'
            '# A job of several nodes of a fleet night (hpc-acceptance run '
            '--fleet): one\n# step, a task a node, each running the node\'s '
            'job.sh (hpc_acceptance/tools/node_jobs/coordinator.py).\n'
            'srun --whole --ntasks-per-node=1 --mpi=none --cpu-bind=none '
            '--no-kill --kill-on-bad-exit=0 '
            f'{shlex.quote(night.script)}\n'
            'exit 0\n')


def srun_shim():
    '''``srun`` as the node's checks call it in a job of several nodes:
    the real one (``HPC_ACCEPTANCE_SRUN``, :mod:`.on_node`) on this node
    alone, sharing it with the node's own step.'''
    return ('#!/bin/sh\n'
            '# srun of a node that shares its Slurm job with other nodes '
            '(a fleet night):\n# each step on this node, beside the '
            'node\'s own (hpc_acceptance/tools/node_jobs/on_node.py).\n'
            'exec "$HPC_ACCEPTANCE_SRUN" --nodelist="$SLURMD_NODENAME" '
            '--overlap "$@"\n')


def _write_script(path, text):
    write_atomically(path, text)
    os.chmod(path, 0o755)


def covered(node_map, partitions):
    '''``{node: [its partitions]}`` of the nodes the node list covers in
    ``partitions`` (``{system:partition: name}``).'''
    found = {}
    for full, about in node_map.items():
        if full in partitions:
            for node in about.get('covered', []):
                found.setdefault(node, []).append(partitions[full])

    return dict(sorted(found.items(), key=lambda i: natural_order(i[0])))


def prepare(report, node_map, launcher, reframe_args, head, dirs):
    '''Write the night's folder for ``node_map`` (``{partition: {covered,
    left_out}}``), ReFrame's variables ``dirs``
    (:class:`..common.command_settings.ReframeDirs`) as the run's: the
    node's system, the job script, the plan; ``(night,
    plan, {node: its partition's sbatch options}, the Slurm partitions of
    the system's partitions)``.

    :raises NightError: if the system has no Slurm partition or no node.
    '''
    configs, system_name, job_options, others = _split(reframe_args)
    try:
        read = node_system.read([str(CONFIG), *configs], system_name, dirs)
        on_node = node_system.on_the_node(read.system)
    except node_system.NoSlurmPartition as err:
        raise NoSlurmPartition(str(err)) from None
    except node_system.NodeSystemError as err:
        raise NightError(str(err)) from None

    name = read.system['name']
    # as the run's configuration has them: their access options are the
    # node jobs'
    partitions = {f'{name}:{p["name"]}': p for p in read.system['partitions']
                  if node_system.is_slurm(p)}
    nodes = covered(node_map, {k: p['name'] for k, p in partitions.items()})
    if not nodes:
        raise NightError(f'no node of a Slurm partition of {name} to run '
                         f'on')

    night = Night.of_report(report)
    os.makedirs(night.folder, exist_ok=True)
    write_json(night.system, on_node)
    _write_script(night.script, job_script(night.folder))
    _write_script(night.group_script, group_script(night))
    os.makedirs(night.shim_dir, exist_ok=True)
    _write_script(os.path.join(night.shim_dir, 'srun'), srun_shim())
    stage, output = node_system.prefixes(read.system, dirs)
    arguments = ['-C', str(CONFIG),
                 *[word for config in configs
                   for word in ('-C', os.path.abspath(config))],
                 '--system', name,
                 *launcher.arguments(head + ON_THE_NODE, others),
                 '-C', str(node_system.NODE_CONFIG)]
    plan = {
        'system': name, 'reframe': arguments, 'nodes': nodes,
        'stage': os.path.join(stage, 'fleet-nodes'),
        'output': os.path.join(output, 'fleet-nodes'),
        'perflogs': read.perflogs, 'started': time.time(),
        'job_name': slurm_jobs.job_name(os.path.basename(night.folder)),
        'extras': session_extras(arguments, read.modes.get),
    }
    by_partition = {p['name']: node_system.job_options(p)
                    for p in partitions.values()}
    options = {node: by_partition[parts[0]] for node, parts in nodes.items()}
    plan['job_options'] = sbatch_options(launcher.job[1::2] + job_options)
    return night, plan, options, [node_system.slurm_partition(p)
                                  for p in partitions.values()]


def _say(log, prefix, echo):
    def say(line, shown=True):
        log.write(line + '\n')
        log.flush()
        if shown or echo:
            print(f'{prefix}: {line}', flush=True)
    return say


def run_night(report, node_map, launcher, reframe_args, head,
              minutes, max_jobs, reservation, db_path, nodes_per_job,
              dirs):
    '''The night of ``node_map``'s nodes (jobs of ``nodes_per_job`` nodes
    at most, of the time limit ``minutes``, at most ``max_jobs`` queued at
    once, in ``reservation``; each ``None`` where not asked: a job a node
    up to :data:`.slurm_jobs.MOST_JOBS` nodes; ReFrame's variables
    ``dirs`` as the run's), collected into ``report`` and stored
    in the results database ``db_path``: ``(report, status)`` as a
    ReFrame run's pair (:func:`.gather.collect`'s status).

    :raises NightError: if it cannot run (said why).
    :raises reframe_call.Interrupted: on Ctrl-C or SIGTERM, after saying
        how to finish the night (``hpc-acceptance collect``).
    '''
    night, plan, options, slurm_partitions = prepare(
        report, node_map, launcher, reframe_args, head, dirs)
    per_job = slurm_jobs.nodes_per_job(len(plan['nodes']), nodes_per_job)
    jobs = len(slurm_jobs.groups(list(plan['nodes']), options, per_job))
    limits = site_limits.read(jobs, slurm_partitions[0], reservation,
                              minutes, int(max_jobs) if max_jobs else None)
    if limits.problem:
        raise NightError(limits.problem)

    plan.update(bounds=limits.bounds, notes=limits.notes,
                minutes=limits.minutes, nodes_per_job=per_job)
    write_json(night.plan, plan)
    common = ['--exclusive', '--no-requeue',
              f'--output={night.folder}/slurm-%j.out',
              f'--chdir={os.getcwd()}', *plan['job_options'],
              *([f'--time={limits.minutes}'] if limits.minutes else [])]
    log_path = reframe_call.log_of(report)
    with open(log_path, 'w') as log:
        say = _say(log, launcher.prefix, launcher.echo)
        how = ('one a node' if per_job == 1 else
               f'of at most {per_job} nodes each')
        say(f'{len(plan["nodes"])} node(s) in {jobs} Slurm job(s), {how}, '
            f'each node running its set by one ReFrame on it; their output '
            f'goes to {night.folder}/<node>/reframe.log')
        for line in limits.bounds:
            say(f'bound by {line}')
        for line in limits.notes:
            say(line, shown=False)

        started = _cpu()
        watch = slurm_jobs.Watch(
            slurm_jobs.Plan(night.script, common, plan['job_name'],
                            limits.queued, options, per_job,
                            night.group_script),
            list(plan['nodes']), night.jobs, say,
            lambda node: night.read_status(node).get('ended') is not None)
        try:
            watch.run()
        except reframe_call.Interrupted:
            say(f'INTERRUPTED: no more node jobs submitted; those queued '
                f'go on. Once they end (squeue --name={plan["job_name"]}): '
                f'hpc-acceptance collect {report}, then the '
                f'hpc-acceptance finish line it prints; or '
                f'"hpc-acceptance collect --cancel {report}" at once')
            raise

        watched = _cpu()
        merged, status = gather.collect(report, limits.minutes)
        for line in gather.lines(merged.head)[1:]:
            say(line.strip())
        collected = _cpu()
        gather.store(report, merged, log, db_path)
        # what the night cost its coordinator (ci/bench/fleet_cost.py)
        write_json(os.path.join(night.folder, 'cost.json'), {
            'cpu_before': started, 'cpu_watched': watched,
            'cpu_collected': collected, 'cpu_stored': _cpu(),
            'sbatch': watch.submissions,
            'polls': watch.polls})

    return report, status


def _cpu():
    '''CPU seconds this process and the commands it ran (sbatch, squeue)
    have used.'''
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return round(own.ru_utime + own.ru_stime + children.ru_utime +
                 children.ru_stime, 3)

