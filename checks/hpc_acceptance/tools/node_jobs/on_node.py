'''The run inside one node's job of a fleet night: the node's whole
single-node set, by one ReFrame on the node.

    python -m hpc_acceptance.tools.node_jobs.on_node NIGHT_DIR

(``<night>/job.sh`` runs it; nothing else should.) The node is the one
Slurm started the job on (``SLURMD_NODENAME``, checked as a node name). It
runs ``reframe`` with the night's arguments (``night.json``) and the node's
own system (``node-system.json``, its partitions only, layered last by
``config/fleet_node.py``), writing its report, output and perflogs in
``<night>/<node>/``, its stage and output directories in folders of its
own (a build of one node is not another's), results storage and the export
off (the coordinator stores and sends the night as one run). Its record,
``<node>/status.json``, says when it started, Slurm's job, and when
ReFrame ended with what status, or the signal that stopped it: Slurm's
SIGTERM at the job's time limit reaches ReFrame too, which ends its checks
and writes what it ran; a node that died leaves a record without an end.

A node that shares its job with other nodes runs as one task of the job's
step (``nodes.sh``). Its ReFrame sees the job as a job of this node alone
(:func:`own_node`): the step's variables go, the job's node list is this
node, and ``srun`` is the night's ``bin/srun``, which keeps each of the
checks' steps on this node beside the node's own step.

Exit status: ReFrame's; 2 when the node is not in the night's plan, the
plan cannot be read, or the node shares its job and finds no ``srun``.
'''

import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time

from hpc_acceptance.core.node_scheduler import ON_NODE, node_name
from hpc_acceptance.tools.node_jobs.night import Night, read_json, write_json
from hpc_acceptance.tools.results.runs import REFRAME

#: The node's system file, named for ``config/fleet_node.py``.
SYSTEM_VARIABLE = 'HPC_ACCEPTANCE_NODE_SYSTEM'

#: ReFrame's own debug log, one per node (``config/settings.py``).
LOG_VARIABLE = 'HPC_ACCEPTANCE_REFRAME_LOG'

#: The real ``srun``, for the night's ``bin/srun``.
SRUN_VARIABLE = 'HPC_ACCEPTANCE_SRUN'

#: What the job's step tells its tasks, which a step of the node's checks
#: must not inherit: its geometry, placement, binding and MPI (``--mpi=none``
#: would reach the checks' steps), and the task's own place in it.
_STEP_PREFIXES = ('SLURM_STEP', 'SLURM_SRUN_COMM_', 'SLURM_CPU_BIND',
                  'SLURM_PMIX', 'SLURM_NTASKS')
_STEP_VARIABLES = frozenset({
    'SLURM_DISTRIBUTION', 'SLURM_GTIDS', 'SLURM_LAUNCH_NODE_IPADDR',
    'SLURM_LOCALID', 'SLURM_MPI_TYPE', 'SLURM_NODEID', 'SLURM_NPROCS',
    'SLURM_PROCID', 'SLURM_TASKS_PER_NODE', 'SLURM_TASK_PID',
    'SLURM_CPUS_PER_TASK', 'SLURM_NO_KILL', 'SLURM_KILL_BAD_EXIT'})


def shares_its_job(env):
    '''Whether the job of the node whose environment is ``env`` covers
    other nodes too.'''
    return (env.get('SLURM_JOB_NUM_NODES') or '1').strip() != '1'


def own_node(env, node, shim_dir):
    '''``env``, a task's of a job of several nodes, as a job of ``node``
    alone would have it, ``srun`` the one in ``shim_dir``.

    :raises ValueError: if no ``srun`` is on the path.
    '''
    real = shutil.which('srun', path=env.get('PATH'))
    if real is None:
        raise ValueError('no srun on PATH: the node shares its job with '
                         'other nodes, its checks\' steps need srun')

    kept = {name: value for name, value in env.items()
            if not name.startswith(_STEP_PREFIXES)
            and name not in _STEP_VARIABLES}
    cpus = env.get('SLURM_CPUS_ON_NODE', '1')
    return dict(kept, SLURM_JOB_NODELIST=node, SLURM_NODELIST=node,
                SLURM_JOB_NUM_NODES='1', SLURM_NNODES='1',
                SLURM_JOB_CPUS_PER_NODE=cpus, SLURM_TASKS_PER_NODE='1',
                PATH=os.pathsep.join([shim_dir, env.get('PATH', '')]),
                **{SRUN_VARIABLE: real})


def node_system(system, partitions):
    '''The night's node system with only the partitions ``partitions``
    (the node's).'''
    return dict(system, partitions=[p for p in system['partitions']
                                    if p['name'] in partitions])


def environment(night, node, plan):
    '''The environment of the node's ReFrame.'''
    here = night.node_dir(node)
    given = (own_node(os.environ, node, night.shim_dir)
             if shares_its_job(os.environ) else os.environ)
    env = dict(given, **{
        ON_NODE: '1',
        SYSTEM_VARIABLE: os.path.join(here, 'system.json'),
        LOG_VARIABLE: os.path.join(here, 'reframe-debug.log'),
        'RFM_ENABLE_RESULTS_STORAGE': 'false',
        'RFM_REPORT_FILE': night.report(node),
        'RFM_REPORT_JUNIT': os.path.join(here, 'junit.xml'),
        'RFM_PERFLOG_DIR': night.perflogs(node),
        'RFM_STAGE_DIR': os.path.join(plan['stage'], node),
        'RFM_OUTPUT_DIR': os.path.join(plan['output'], node),
        'RFM_COLORIZE': 'n',
    })
    # the coordinator's bound on its own queue; one job script at a time here
    env.pop('HPC_ACCEPTANCE_MAX_JOBS', None)
    return env


class Stopped:
    '''The signals that reached this process: they reach ReFrame too
    (Slurm signals every process of the job; a hand's Ctrl-C is passed
    on), which ends its checks and writes its report.'''

    def __init__(self):
        self.signals = []
        self.child = None
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, self.note)

    def note(self, signum, _frame):
        self.signals.append(signum)
        if self.child is not None:
            try:
                self.child.send_signal(signum)
            except ProcessLookupError:
                pass


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print('usage: python -m hpc_acceptance.tools.node_jobs.on_node '
              'NIGHT_DIR', file=sys.stderr)
        return 2

    night = Night(argv[0])
    try:
        node = node_name()
        plan = night.read_plan()
        partitions = plan['nodes'].get(node)
        if not partitions:
            raise ValueError(f'{node} is not a node of the night\'s plan '
                             f'{night.plan}')
        env = environment(night, node, plan)
    except ValueError as err:
        print(f'on_node: {err}', file=sys.stderr)
        return 2

    here = night.node_dir(node)
    os.makedirs(here, exist_ok=True)
    # Slurm's facts of the job, as it tells the job
    status = {'node': node, 'host': socket.gethostname(),
              'started': time.time(), 'job': os.environ.get('SLURM_JOB_ID'),
              'partition': os.environ.get('SLURM_JOB_PARTITION'),
              'reservation': os.environ.get('SLURM_JOB_RESERVATION')}
    write_json(night.status(node), status)
    write_json(os.path.join(here, 'system.json'),
               node_system(read_json(night.system), partitions))

    stopped = Stopped()
    with open(night.log(node), 'w') as log:
        stopped.child = subprocess.Popen(
            [REFRAME, *plan['reframe']], stdout=log,
            stderr=subprocess.STDOUT, env=env)
        status_code = stopped.child.wait()

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    status.update(ended=time.time(), reframe_status=status_code,
                  signal=stopped.signals[0] if stopped.signals else None,
                  # ReFrame's and its jobs' (the benchmarks') on the node
                  cpu=round(used.ru_utime + used.ru_stime, 3))
    write_json(night.status(node), status)
    return status_code if status_code >= 0 else 128 - status_code


if __name__ == '__main__':
    sys.exit(main())
