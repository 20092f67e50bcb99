'''What a node's own ReFrame runs with, from the configuration of the run:
the system it names, each of its Slurm partitions as the node's job sees
it.

The coordinator of a fleet night reads the system as ReFrame would (the
same configuration files, the same ``--system``) and writes it for the
nodes' jobs (``<night>/node-system.json``, layered last by
``config/fleet_node.py``): the same name, partitions, environments,
launcher, processor, extras and references, so that every figure keeps
its ``system:partition`` and identity; each Slurm partition's scheduler
is the node itself (:mod:`hpc_acceptance.core.node_scheduler`), one job
script at a time, its ``access`` options moved to the node's Slurm job
(:func:`job_options`). Partitions of another scheduler are no Slurm
nodes: a night of node jobs leaves them out, saying so.
'''

import copy
import os
import shlex
from typing import NamedTuple

import reframe.core.config as config
from reframe.core.exceptions import ReframeError

from hpc_acceptance.core.node_scheduler import NAME as NODE_SCHEDULER
from hpc_acceptance.tools.results.runs import CONFIG

#: ReFrame's schedulers of Slurm partitions.
SLURM_SCHEDULERS = ('slurm', 'squeue')

#: The node's configuration, layered last (``config/fleet_node.py``).
NODE_CONFIG = CONFIG.parent / 'fleet_node.py'


class NodeSystemError(ValueError):
    '''The system cannot be run as node jobs; the message says why.'''


class NoSlurmPartition(NodeSystemError):
    '''The system has no Slurm partition: no node job can run it.'''


class Read(NamedTuple):
    """A system as ReFrame reads it, and what a night needs of the rest
    of the configuration."""
    #: the system (a copy of its entry)
    system: dict
    #: ``{mode: its options}``
    modes: dict
    #: where the perflogs go (the first ``filelog`` handler's
    #: ``basedir``, ``RFM_PERFLOG_DIR`` where set)
    perflogs: str


def read(config_files, system, dirs):
    """The system ``system`` (``NAME[:PARTITION]``, or ``None``: the one
    matching this host) of ``config_files`` as ReFrame reads it
    (:class:`Read`), ReFrame's variables ``dirs``
    (:class:`..common.command_settings.ReframeDirs`) as it would take
    them.

    :raises NodeSystemError: if ReFrame cannot read it.
    """
    try:
        site = config.load_config(
            *config.find_config_files(None, list(config_files)))
        site.validate()
        site.select_subconfig(system, ignore_resolve_errors=True)
        handlers = site.get('logging/0/handlers_perflog') or []
        basedir = next((h.get('basedir') for h in handlers
                        if h.get('type') == 'filelog'), None)
        return Read(copy.deepcopy(site['systems'][0]),
                    {m['name']: list(m.get('options', []))
                     for m in site['modes']},
                    os.path.abspath(os.path.expandvars(
                        dirs.perflogs or basedir or
                        'perflogs')))
    except (ReframeError, KeyError, IndexError) as err:
        raise NodeSystemError(f'cannot read the system '
                              f'{system or "of this host"}: {err}') from None


def is_slurm(partition):
    return partition.get('scheduler') in SLURM_SCHEDULERS


def on_the_node(system):
    '''``system`` (as :func:`read` gives it) as the nodes' jobs run it:
    its Slurm partitions only, each with the node as its scheduler, no
    ``access`` options, one job script at a time.

    :raises NodeSystemError: if it has no Slurm partition.
    '''
    partitions = []
    for partition in system.get('partitions', []):
        if is_slurm(partition):
            partitions.append(dict(partition, scheduler=NODE_SCHEDULER,
                                   access=[], max_jobs=1))

    if not partitions:
        raise NoSlurmPartition(f'{system.get("name")} has no Slurm partition '
                               f'(scheduler '
                               f'{" or ".join(SLURM_SCHEDULERS)}) for node '
                               f'jobs')

    return dict(system, partitions=partitions)


def job_options(partition):
    '''The ``sbatch`` arguments of a partition's ``access`` options (its
    Slurm partition, account, QOS, constraints): the node's job asks for
    them, as ReFrame's jobs did.'''
    return [word for option in partition.get('access', [])
            for word in shlex.split(option)]


def slurm_partition(partition):
    '''The Slurm partition a ReFrame partition's jobs go to (its
    ``--partition``/``-p`` access option), ``None`` for Slurm's
    default.'''
    words = job_options(partition)
    for index, word in enumerate(words):
        if word.startswith('--partition='):
            return word.split('=', 1)[1]
        if word in ('-p', '--partition') and index + 1 < len(words):
            return words[index + 1]
        if word.startswith('-p') and len(word) > 2:
            return word[2:]

    return None


def prefixes(system, dirs):
    '''``(stage, output)``: the folders ReFrame's stage and output
    directories go in for ``system``, as ReFrame works them out from its
    variables ``dirs`` (``RFM_STAGE_DIR``/``RFM_OUTPUT_DIR``,
    ``RFM_PREFIX``) and the system's ``prefix``.'''
    prefix = os.path.abspath(os.path.expandvars(
        dirs.prefix or system.get('prefix') or '.'))
    stage = dirs.stage or system.get('stagedir') or \
        os.path.join(prefix, 'stage')
    output = dirs.output or system.get('outputdir') or \
        os.path.join(prefix, 'output')
    return (os.path.abspath(os.path.expandvars(stage)),
            os.path.abspath(os.path.expandvars(output)))
