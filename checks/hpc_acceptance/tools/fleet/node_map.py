'''The node map of a fleet run: the nodes it covers in each partition, and
those it leaves out with the state and reason the scheduler gives, asked
of ReFrame's own scheduler backends with the run's configuration, system
and job options; kept beside the run's report as JSON
(:func:`write_node_map`, :func:`read_node_map`).
'''

import argparse
import json
import re
import shlex
from typing import NamedTuple, Optional

import reframe.core.config as config
import reframe.core.runtime as runtime
from reframe.core.exceptions import ReframeError
from reframe.frontend.testgenerators import getallnodes

from hpc_acceptance.tools.common import identifiers
from hpc_acceptance.tools.results import bounded_json
from hpc_acceptance.tools.results.atomic_file import write_atomically
from hpc_acceptance.tools.results.runs import CONFIG, Unreadable, one_line


# scontrol's one-line node description: Reason=<words> [<who>@<when>]
_REASON = re.compile(r'\bReason=(.*?)(?: \[[^\]]*\])?(?= \w+=|$)')


def _job_options(options):
    '''ReFrame's ``-J`` spellings as its CLI turns them into scheduler
    options (``reservation=R`` -> ``--reservation=R``).'''
    parsed = []
    for option in options:
        name, _, value = option.partition('=')
        if option.startswith(('-', '#')):
            parsed.append(option)
        elif len(name) == 1:
            parsed.append(f'-{name} {value}')
        else:
            parsed.append(f'--{name}={value}')

    return parsed


def sbatch_options(options):
    '''ReFrame's ``-J`` spellings as ``sbatch`` arguments
    (``reservation=R`` -> ``['--reservation=R']``, ``p=x`` -> ``['-p',
    'x']``), for the jobs a fleet run submits itself.'''
    return [word for option in _job_options(options)
            for word in shlex.split(option)]


def _reason(node):
    match = _REASON.search(getattr(node, 'descr', '') or '')
    return match[1].strip() if match else ''


def node_map(state, config_files, system, job_options):
    '''``{partition: {'state', 'covered', 'left_out'}}`` as ReFrame's
    ``--distribute=state`` would see the partitions' nodes now.'''
    site_config = config.load_config(
        *config.find_config_files(None, config_files))
    site_config.validate()
    site_config.select_subconfig(system, ignore_resolve_errors=True)
    runtime.init_runtime(site_config)
    options = _job_options(job_options)
    every = getallnodes('all', options)
    covered = getallnodes(state, options)
    partitions = {p.fullname: p for p in runtime.runtime().system.partitions}
    described = {}
    for name, nodes in every.items():
        states = {n.name: n for n in
                  partitions[name].scheduler.allnodes()}
        described[name] = {
            'state': state,
            'covered': sorted(covered.get(name, [])),
            'left_out': [
                {'node': node,
                 'state': '+'.join(sorted(getattr(states.get(node),
                                                  'states', ()) or ())),
                 'reason': _reason(states.get(node))}
                for node in sorted(set(nodes) - set(covered.get(name, [])))
            ],
        }

    return described


def left_out_line(node):
    '''``n2 (drain+idle: memory errors)``: a node the run left out, as
    :func:`node_map` describes it.'''
    reason = f': {node["reason"]}' if node['reason'] else ''
    return (f'{node["node"]} ({node["state"].lower() or "state unknown"}'
            f'{reason})')


def describe(nodes):
    '''Lines for people: per partition, the nodes covered and each node
    left out with its state and reason.'''
    lines = []
    for partition, about in nodes.items():
        covered, left = about['covered'], about['left_out']
        lines.append(f'{partition}: {len(covered)} of '
                     f'{len(covered) + len(left)} node(s) in state '
                     f'{about["state"]}{", left out:" if left else ""}')
        lines += [f'  {left_out_line(n)}' for n in left]

    return lines


def _check(nodes):
    '''Raise ``ValueError`` where ``nodes`` is not a node map
    (:func:`node_map`'s).'''
    if not isinstance(nodes, dict):
        raise ValueError('not {partition: {"covered": [...], '
                         '"left_out": [...]}}')

    for partition, about in nodes.items():
        system, _, name = partition.partition(':')
        identifiers.name(system, 'the system of partition')
        identifiers.name(name, 'partition')
        if not isinstance(about, dict):
            raise ValueError(f'{partition}: not {{"covered": [...], '
                             f'"left_out": [...]}}')

        covered = about.get('covered', [])
        if not isinstance(covered, list) or not all(isinstance(n, str)
                                                    for n in covered):
            raise ValueError(f'{partition}: "covered" is not a list of '
                             f'nodes')

        for node in covered:
            identifiers.node(node, f'{partition}: a node of "covered"')

        left_out = about.get('left_out', [])
        if not isinstance(left_out, list):
            raise ValueError(f'{partition}: "left_out" is not a list')

        for node in left_out:
            if not (isinstance(node, dict) and all(
                    isinstance(node.get(k), str)
                    for k in ('node', 'state', 'reason'))):
                raise ValueError(f'{partition}: "left_out" holds {node!r}, '
                                 f'not {{"node", "state", "reason"}}')

            identifiers.node(node['node'], f'{partition}: a node of '
                                           f'"left_out"')


def read_node_map(path):
    '''The node map kept beside a run's report; ``{}`` if there is none.

    :raises Unreadable: naming the file and what is wrong, in one line.
    '''
    try:
        nodes = bounded_json.load(path)
        _check(nodes)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, TypeError) as err:
        raise Unreadable(f'cannot read the node list {path}: '
                         f'{one_line(err)}') from None

    return nodes


def node_map_path(report):
    '''Where ``ci/acceptance.sh`` keeps the node map of ``report``.'''
    return report[:-len('.json')] + '-nodes.json'


class Listing(NamedTuple):
    '''What ``hpc-acceptance nodes`` finds (:func:`listing`).'''
    #: ``{partition: {'state', 'covered', 'left_out'}}`` (:func:`node_map`);
    #: ``None`` where the scheduler could not be asked
    nodes: Optional[dict]
    #: why a fleet run would run nothing (the scheduler could not be
    #: asked, or no node is in the state), else ``None``
    problem: Optional[str] = None

    @property
    def lines(self):
        ''':func:`describe` of the node map.'''
        return describe(self.nodes or {})

    @property
    def covered(self):
        '''How many nodes the run covers.'''
        return sum(len(about['covered'])
                   for about in (self.nodes or {}).values())


def listing(state, config_files, system=None, job_options=()):
    '''The :class:`Listing` of the nodes ReFrame's ``--distribute=state``
    covers with ``config_files``, ``system`` and ``job_options`` (``-J``'s
    spellings) now.'''
    try:
        nodes = node_map(state.lower(), list(config_files), system,
                         list(job_options))
    except ReframeError as err:
        return Listing(None, f'nodes: cannot list the nodes: {err}')

    if not any(about['covered'] for about in nodes.values()):
        return Listing(nodes, f'nodes: no node is {state}: a fleet run '
                              f'would run nothing')

    return Listing(nodes)


def add_reframe_options(parser, system=None):
    '''The options of reframe's that choose the nodes: ``-C``,
    ``--system`` (default: ``system``, the settings' ``RFM_SYSTEM``),
    ``-J``.'''
    parser.add_argument('-C', '--config-file', action='append',
                        help='ReFrame configuration files, as for reframe '
                             f'(default: {CONFIG})')
    parser.add_argument('--system', default=system,
                        help='system[:partition] (default: RFM_SYSTEM, or '
                             'the one matching this host)')
    parser.add_argument('-J', '--job-option', action='append', default=[],
                        help="a scheduler option, as reframe's -J takes it")


def listing_of_run(state, reframe_args, system=None):
    ''':func:`listing` for a run of ``reframe_args``: their ``-C``
    (:data:`..results.runs.CONFIG` without one), ``--system`` (else
    ``system``: the settings' ``RFM_SYSTEM``) and ``-J``; the others are
    no matter.'''
    parser = argparse.ArgumentParser(add_help=False)
    add_reframe_options(parser, system)
    args, _ = parser.parse_known_args(reframe_args)
    return listing(state, args.config_file or [str(CONFIG)], args.system,
                   args.job_option)


def write_node_map(path, nodes):
    '''Keep the node map ``nodes`` at ``path`` (as :func:`read_node_map`
    reads it).'''
    write_atomically(path, json.dumps(nodes, indent=1))
