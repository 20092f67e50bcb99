'''Draining suspect nodes in Slurm the way a sysadmin would sign.

As NHC and ORNL's checknode do: a drain this tool makes carries its own
reason prefix (:data:`PREFIX`), so that it can tell its drains from an
administrator's and undrain only its own; it never replaces a reason
someone else set, leaves a node that is already drained, down or in
maintenance alone, and keeps at most :data:`MAX_SHARE` of a partition's
nodes drained by it at once (a fleet that looks bad on half of its nodes
is a problem to look at, not half a partition to take out of service),
the worst suspects first, naming those it did not drain and why.

The share counts every node of the partition that this tool drained and
that is not back in service, whenever it was drained: Slurm's own state
says which (the reason prefix), so three calls in a night, or a night
after another, drain no more than one call would. A partition's nodes are
those its fleet run ran on or left out, and every node of the Slurm
partitions they all belong to (a node drained last night did not run
tonight).
'''

import math
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import List

#: Every drain reason this tool sets starts so; it undrains only those.
PREFIX = 'hpc-acceptance:'

#: The largest share of a partition's nodes drained by one call (at least
#: one node).
MAX_SHARE = 0.1

#: Slurm node states in which a node is not to be drained again: someone
#: (or Slurm) already took it out of service. ``NOT_RESPONDING`` is not
#: one: a slurmd late to answer is drained like any other suspect (Slurm
#: marks it down itself if it stays silent).
OUT_OF_SERVICE = frozenset({'DRAIN', 'DRAINED', 'DRAINING', 'DOWN', 'FAIL',
                            'FAILING', 'MAINT', 'REBOOT_REQUESTED',
                            'REBOOT_ISSUED', 'POWERED_DOWN', 'POWERING_DOWN',
                            'FUTURE', 'INVALID_REG'})

_FIELD = re.compile(r'(\w+)=')


class SlurmError(RuntimeError):
    '''scontrol is missing or failed; the message says what it said.'''


#: Slurm's states of a drained node.
DRAINED = frozenset({'DRAIN', 'DRAINED', 'DRAINING'})


@dataclass(frozen=True)
class NodeState:
    node: str
    #: Slurm's state flags, e.g. ``{'IDLE', 'DRAIN'}``
    states: frozenset
    #: the drain or down reason, without Slurm's ``[user@time]``
    reason: str
    #: the Slurm partitions it belongs to
    partitions: frozenset = frozenset()

    @property
    def ours(self):
        '''Drained by this tool (its reason starts with :data:`PREFIX`).'''
        return self.reason.startswith(PREFIX)

    @property
    def drained_by_us(self):
        '''Drained by this tool and not resumed since.'''
        return self.ours and bool(self.states & DRAINED)

    @property
    def out_of_service(self):
        return bool(self.states & OUT_OF_SERVICE)


def _fields(line):
    '''``{key: value}`` of one line of ``scontrol -o show node``, values
    with spaces (``Reason=memory errors [root@...]``) kept whole.'''
    marks = [(m.start(), m.group(1)) for m in _FIELD.finditer(line)
             if m.start() == 0 or line[m.start() - 1] == ' ']
    fields = {}
    for (start, key), (end, _) in zip(marks, marks[1:] + [(len(line), '')]):
        fields[key] = line[start + len(key) + 1:end].strip()

    return fields


def parse_nodes(text):
    '''``{node: NodeState}`` of ``scontrol -o show node`` output.'''
    nodes = {}
    for line in text.splitlines():
        fields = _fields(line.strip())
        if 'NodeName' not in fields:
            continue

        reason = re.sub(r'\s*\[[^\]]*\]$', '', fields.get('Reason', ''))
        nodes[fields['NodeName']] = NodeState(
            fields['NodeName'],
            frozenset(s for s in fields.get('State', '').split('+') if s),
            '' if reason == '(null)' else reason,
            frozenset(p for p in fields.get('Partitions', '').split(',')
                      if p and p != '(null)'))

    return nodes


def scontrol(*args):
    '''Run ``scontrol ARGS``; its output.

    :raises SlurmError: if scontrol is missing or failed.
    '''
    if not shutil.which('scontrol'):
        raise SlurmError('scontrol is not on PATH')

    done = subprocess.run(['scontrol', *args], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise SlurmError(f'scontrol {" ".join(args)}: '
                         f'{done.stderr.strip() or done.stdout.strip()}')

    return done.stdout


def node_states():
    '''``{node: NodeState}`` of every node Slurm knows, now.

    :raises SlurmError: if scontrol cannot be asked.
    '''
    return parse_nodes(scontrol('-o', 'show', 'node'))


@dataclass
class DrainPlan:
    #: ``[(node, reason)]`` to drain
    drain: List[tuple]
    #: ``[(node, why it is left alone)]``
    left_alone: List[tuple]


def cap(max_share, size):
    '''The most nodes of a partition of ``size`` nodes this tool keeps
    drained at once: ``max_share`` of them, at least one.'''
    return max(1, math.floor(max_share * size))


def _left_alone(state):
    '''Why a suspect of Slurm state ``state`` is not drained, or
    ``None``.'''
    if state is None:
        return 'Slurm does not know it'

    if state.out_of_service:
        flags = '+'.join(sorted(state.states)).lower()
        who = ('by hpc-acceptance' if state.ours else
               f'with the reason {state.reason!r}' if state.reason
               else 'without a reason')
        return f'already {flags} {who}'

    if state.reason and not state.ours:
        return f'it has a reason an administrator set: {state.reason}'

    return None


def _by_node(suspects):
    '''``[(node, [partitions], reason)]`` of ``suspects`` (``[(partition,
    node, reason)]``, worst first): a node named in several partitions
    once, where it is first named, with every reason (the prefix and the
    day said once).'''
    nodes = {}
    for partition, node, reason in suspects:
        partitions, reasons = nodes.setdefault(node, ([], []))
        partitions.append(partition)
        if reasons:
            # "hpc-acceptance: <day> " once, at the start
            first = reasons[0][len(PREFIX):].lstrip().split(' ', 1)[0] + ' '
            reason = reason[len(PREFIX):].lstrip() \
                if reason.startswith(PREFIX) else reason
            reason = reason[len(first):] if reason.startswith(first) \
                else reason
        reasons.append(reason)

    return [(node, partitions, '; '.join(reasons))
            for node, (partitions, reasons) in nodes.items()]


def plan(suspects, states, partition_nodes, max_share=MAX_SHARE):
    '''What to drain of ``suspects`` (``[(partition, node, reason)]``,
    worst first), given the nodes' Slurm ``states`` (``None``: Slurm
    could not be asked, and every node counts as in service) and
    ``{partition: the nodes it has}``: of each partition, no more than
    :func:`cap` nodes drained by this tool at once, those it drained
    before and has not resumed among them. A node named in two partitions
    is drained once, with both reasons, if both have room for it (it
    leaves both), and counts in each.'''
    known, states = states is not None, states or {}
    before = {partition: sum(1 for n in nodes if n in states and
                             states[n].drained_by_us)
              for partition, nodes in partition_nodes.items()}
    taken = dict(before)
    drains, alone = [], []
    for node, partitions, reason in _by_node(suspects):
        why = _left_alone(states.get(node)) if known else None
        for partition in partitions:
            size = len(partition_nodes.get(partition) or {node})
            most = cap(max_share, size)
            if why is None and taken.get(partition, 0) >= most:
                why = (f'{partition}: at most {most} of its {size} node(s) '
                       f'are kept drained by hpc-acceptance at once '
                       f'(--max-drain-share {max_share:g}; '
                       f'{before.get(partition, 0)} drained before and not '
                       f'resumed)')

        if why is None:
            for partition in partitions:
                taken[partition] = taken.get(partition, 0) + 1
            drains.append((node, reason))
        else:
            alone.append((node, why))

    return DrainPlan(drains, alone)


def drain(node, reason):
    '''Drain ``node`` with ``reason`` (prefixed with :data:`PREFIX`).

    :raises SlurmError: if scontrol refused.
    '''
    text = reason if reason.startswith(PREFIX) else f'{PREFIX} {reason}'
    scontrol('update', f'NodeName={node}', 'State=DRAIN',
             f'Reason={text.replace(chr(34), chr(39))}')


def resume(node):
    '''Return ``node`` to service.

    :raises SlurmError: if scontrol refused.
    '''
    scontrol('update', f'NodeName={node}', 'State=RESUME')
