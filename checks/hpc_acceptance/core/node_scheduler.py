'''The node itself as a ReFrame scheduler: a fleet run's per-node job.

A fleet run (``ci/acceptance.sh --fleet``) submits one Slurm job per node;
in it, one ReFrame runs the node's whole single-node set on that node
(:mod:`hpc_acceptance.tools.node_jobs.on_node`). That ReFrame's partition
is the one the run names (same system, partition, environments, launcher
and references: its figures are the distributed run's), with this
scheduler, ``fleet-node``, in place of Slurm's:

- the job scripts run here, one at a time, as ReFrame's ``local``
  scheduler runs them (this class is that scheduler);
- the node is the one Slurm knows (``SLURMD_NODENAME``, else the host
  name without its domain), so that ReFrame's ``--distribute`` names each
  test case ``%.nid=<node>`` and its ``job_nodelist`` is that node, as a
  distributed run's are;
- the task geometry Slurm's ``sbatch`` options would carry (``--ntasks``,
  ``--ntasks-per-node``, ``--cpus-per-task``, ``--hint``, ``--cpu-freq``)
  becomes the environment ``srun`` reads them from, so that a step the
  launcher starts inside the node's job has the test's tasks, not the
  job's one; ``mpirun`` reads its slots from ``SLURM_TASKS_PER_NODE``.

Its name is not ``local`` on purpose: the checks size and place their
ranks as for a partition whose jobs Slurm places (they ask
``registered_name == 'local'``), which keeps every identity as the
distributed run's.
'''

import os
import re
import socket

import reframe.core.schedulers as sched
from reframe.core.backends import getscheduler, register_scheduler
from reframe.core.exceptions import ConfigError
from reframe.core.schedulers.local import LocalJobScheduler

#: The scheduler's name in a partition's configuration.
NAME = 'fleet-node'

#: Set in a per-node job's environment: this ReFrame runs on its node for a
#: fleet run's coordinator, which sends the figures to the site's store
#: and stores the run (:mod:`hpc_acceptance.core.export.handler`).
ON_NODE = 'HPC_ACCEPTANCE_ON_NODE'

#: A node name as Slurm's ``NodeName`` and host names allow.
NODE_NAME = re.compile(r'[A-Za-z0-9][A-Za-z0-9._-]{0,127}')

#: ``sbatch`` options a step reads from the environment instead.
_OPTION_VARIABLES = {'--cpu-freq': 'SLURM_CPU_FREQ_REQ',
                     '--hint': 'SLURM_HINT'}


def node_name():
    '''The node this runs on, as Slurm names it (``SLURMD_NODENAME``),
    else the host name without its domain.

    :raises ValueError: if the name is not a node name.
    '''
    name = os.environ.get('SLURMD_NODENAME') or \
        socket.gethostname().split('.')[0]
    if not NODE_NAME.fullmatch(name):
        raise ValueError(f'{name!r} is not a node name')

    return name


def step_environment(job):
    '''``[(variable, value)]`` that give a Slurm step started in the job
    script the task geometry of ``job``.'''
    found = []
    for variable, value in (
            ('SLURM_NTASKS', job.num_tasks),
            ('SLURM_NTASKS_PER_NODE', job.num_tasks_per_node),
            ('SLURM_TASKS_PER_NODE',
             job.num_tasks_per_node or job.num_tasks),
            ('SLURM_NTASKS_PER_CORE', job.num_tasks_per_core),
            ('SLURM_NTASKS_PER_SOCKET', job.num_tasks_per_socket),
            ('SLURM_CPUS_PER_TASK', job.num_cpus_per_task)):
        if isinstance(value, int) and value > 0:
            found.append((variable, str(value)))

    if job.use_smt is not None:
        found.append(('SLURM_HINT',
                      'multithread' if job.use_smt else 'nomultithread'))

    for option in [*job.options, *job.cli_options]:
        name, _, value = option.partition('=')
        if name in _OPTION_VARIABLES and re.fullmatch(r'[\w.:,-]+', value):
            found.append((_OPTION_VARIABLES[name], value))

    return found


class FleetNodeScheduler(LocalJobScheduler):
    '''ReFrame's ``local`` scheduler on a node of a fleet run's job, the
    node named as Slurm names it.'''

    def emit_preamble(self, job):
        return [f'export {variable}={value}'
                for variable, value in step_environment(job)]

    def allnodes(self):
        return [sched.AlwaysIdleNode(node_name())]

    def filternodes(self, job, nodes):
        return self.allnodes()

    def submit(self, job):
        super().submit(job)
        job._nodelist = [node_name()]


# Registered once a process: ReFrame also loads this file as a test file
# (it is under the checks' search path), as another module.
try:
    getscheduler(NAME)
except ConfigError:
    register_scheduler(NAME, local=True)(FleetNodeScheduler)
