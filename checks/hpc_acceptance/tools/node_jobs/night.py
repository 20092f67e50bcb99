'''The folder of a fleet night run as node jobs, beside its report
``<stem>.json``, and the records in it::

    <stem>-node-runs/
        night.json        what every node's job runs, written before the
                          first job is submitted
        node-system.json  the node's own ReFrame system (:mod:`.node_system`)
        job.sh            the job script, the same for every node
        nodes.sh          the script of a job of several nodes: job.sh
                          on each, one step
        bin/srun          srun as a node of such a job calls it: its
                          steps stay on the node (:mod:`.on_node`)
        jobs.json         each node's job as the coordinator saw it
        slurm-<job>.out   the job's own output, as Slurm writes it
        <node>/status.json  what the job recorded (:mod:`.on_node`)
        <node>/report.json  the node's ReFrame report
        <node>/reframe.log  the node's ReFrame output
        <node>/perflogs/    its perflogs, added to the run's at the end

What is read here was written by jobs on the nodes: a node's name is
checked before it names a folder, a record that cannot be read is no
record (a job that died while writing it).
'''

import json
import math
import os

from hpc_acceptance.core.node_scheduler import NODE_NAME
from hpc_acceptance.tools.common.regular_file import open_regular
from hpc_acceptance.tools.launch import report_file
from hpc_acceptance.tools.results import bounded_json
from hpc_acceptance.tools.results.atomic_file import write_atomically

#: The folder's name after the report's stem.
SUFFIX = '-node-runs'

#: A node's record is a few hundred bytes (:mod:`.on_node`).
STATUS_MAX_BYTES = 64 * 1024

#: The fields of a node's record that are read, and their types.
_STATUS_TYPES = {'started': (int, float), 'ended': (int, float),
                 'reframe_status': int, 'signal': int,
                 'cpu': (int, float)}


def folder_of(report):
    '''The night's folder of the run whose report is ``report``.'''
    return report_file.stem(os.path.abspath(report)) + SUFFIX


def checked_node(name):
    '''``name`` if it is a node name (Slurm's ``NodeName``).

    :raises ValueError: if it is not.
    '''
    if not isinstance(name, str) or not NODE_NAME.fullmatch(name):
        raise ValueError(f'{name!r} is not a node name')

    return name


def read_json(path, default=None):
    '''The JSON at ``path``; ``default`` if it is missing or cannot be
    read (a job killed while writing it).'''
    try:
        # the night's folder is the nodes' jobs' too: what is there is
        # read only where it is a file
        with open_regular(path) as fp:
            return json.load(fp)
    except (OSError, ValueError):
        return default


def write_json(path, value):
    # compact: Python's C encoder; the jobs of 10,000 nodes are rewritten
    # as they change
    write_atomically(path, json.dumps(value))


class Night:
    '''The paths of one night's folder.'''

    def __init__(self, folder):
        self.folder = os.path.abspath(folder)

    @classmethod
    def of_report(cls, report):
        return cls(folder_of(report))

    @property
    def plan(self):
        '''``night.json``: what every node's job runs.'''
        return os.path.join(self.folder, 'night.json')

    @property
    def system(self):
        return os.path.join(self.folder, 'node-system.json')

    @property
    def script(self):
        return os.path.join(self.folder, 'job.sh')

    @property
    def group_script(self):
        return os.path.join(self.folder, 'nodes.sh')

    @property
    def shim_dir(self):
        '''``bin/``: ``srun`` for the nodes of a job of several.'''
        return os.path.join(self.folder, 'bin')

    @property
    def jobs(self):
        '''``jobs.json``: ``{node: {job, nodes, submitted, state, reason,
        ended, gave_up}}`` (:class:`.slurm_jobs.Watch`).'''
        return os.path.join(self.folder, 'jobs.json')

    def node_dir(self, node):
        return os.path.join(self.folder, checked_node(node))

    def status(self, node):
        return os.path.join(self.node_dir(node), 'status.json')

    def report(self, node):
        return os.path.join(self.node_dir(node), 'report.json')

    def log(self, node):
        return os.path.join(self.node_dir(node), 'reframe.log')

    def perflogs(self, node):
        return os.path.join(self.node_dir(node), 'perflogs')

    def read_plan(self):
        '''night.json, read.

        :raises ValueError: naming the file, where it cannot be read.
        '''
        plan = read_json(self.plan)
        if not isinstance(plan, dict) or not isinstance(
                plan.get('nodes'), dict):
            raise ValueError(f'{self.plan}: not the plan of a fleet night '
                             f'(missing, or no "nodes")')

        return plan

    def read_jobs(self):
        jobs = read_json(self.jobs, {})
        return jobs if isinstance(jobs, dict) else {}

    def read_status(self, node):
        '''The record ``node``'s job wrote (:mod:`.on_node`): its fields
        this tool reads, each of the type that job writes; a field of
        another type is left out (a record without ``ended`` is a run that
        did not end), a record that cannot be read, or is larger than
        :data:`STATUS_MAX_BYTES`, is none. The job ran on the node, as
        whatever ran there: its numbers become a verdict's words.'''
        try:
            status = bounded_json.load(self.status(node), STATUS_MAX_BYTES)
        except (OSError, ValueError):
            return {}

        if not isinstance(status, dict):
            return {}

        return {name: value for name, value in status.items()
                if name in _STATUS_TYPES and not isinstance(value, bool) and
                isinstance(value, _STATUS_TYPES[name]) and
                (not isinstance(value, float) or math.isfinite(value))}
