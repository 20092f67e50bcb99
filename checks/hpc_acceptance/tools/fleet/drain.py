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

from hpc_acceptance.tools.common import console, identifiers

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

#: Where Slurm's reason field starts in ``scontrol -o show node``.
_REASON = re.compile(r'(?:^| )Reason=')

#: What Slurm writes after the first line of a reason: who set it, when.
_SET_BY = re.compile(r' \[[^\]\s@]*@[^\]\s]*\]')

#: The fields newer Slurm versions print after the reason.
_AFTER_REASON = re.compile(r' (?:Comment|Extra|InstanceId|InstanceType|'
                           r'ReservationName)=')


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

    #: Slurm's line names a reason more than once (text inside a reason
    #: that reads as a field): whose it is cannot be told
    ambiguous: bool = False

    @property
    def ours(self):
        '''Drained by this tool: its reason, the one Slurm's line holds,
        starts with :data:`PREFIX`.'''
        return not self.ambiguous and self.reason.startswith(PREFIX)

    @property
    def drained_by_us(self):
        '''Drained by this tool and not resumed since.'''
        return self.ours and bool(self.states & DRAINED)

    @property
    def out_of_service(self):
        return bool(self.states & OUT_OF_SERVICE)


def _fields(line):
    '''``{key: value}`` of the fields of one line of ``scontrol -o show
    node`` before its reason, values with spaces (``OS=Linux 6.1.0 #1
    SMP``) kept whole; a key's first occurrence wins.'''
    marks = [(m.start(), m.group(1)) for m in _FIELD.finditer(line)
             if m.start() == 0 or line[m.start() - 1] == ' ']
    fields = {}
    for (start, key), (end, _) in zip(marks, marks[1:] + [(len(line), '')]):
        fields.setdefault(key, line[start + len(key) + 1:end].strip())

    return fields


def _reason(text):
    '''The reason Slurm's line holds from the text after its
    ``Reason=``: up to Slurm's ``[user@time]`` (or the fields newer Slurm
    versions print after it), continuation lines joined.'''
    end = _SET_BY.search(text) or _AFTER_REASON.search(text)
    reason = text[:end.start()] if end else text
    return ' '.join(reason.split())


def parse_nodes(text):
    '''``{node: NodeState}`` of ``scontrol -o show node`` output.

    Slurm prints a node's reason after its other fields (newer versions
    a comment and such after it) and the reason is anyone's text: an NHC
    message can hold ``Reason=hpc-acceptance: ...`` or ``State=IDLE``. So
    the fields are read before the first ``Reason=`` only, and the reason
    is what follows it: text in a reason never reads as a field, and a
    line whose reason holds another ``Reason=`` is :attr:`NodeState.
    ambiguous` (never this tool's). Lines of no node name Slurm's form
    are left out.'''
    nodes = {}
    for line in text.splitlines():
        line = line.strip()
        starts = list(_REASON.finditer(line))
        head = line[:starts[0].start()] if starts else line
        fields = _fields(head)
        if not identifiers.is_node(fields.get('NodeName')):
            continue

        reason = _reason(line[starts[0].end():]) if starts else ''
        nodes[fields['NodeName']] = NodeState(
            fields['NodeName'],
            frozenset(s for s in fields.get('State', '').split('+') if s),
            '' if reason == '(null)' else reason,
            frozenset(p for p in fields.get('Partitions', '').split(',')
                      if p and p != '(null)'),
            ambiguous=len(starts) > 1)

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


def reason_text(reason):
    '''``reason`` as this tool sets it: :data:`PREFIX` first, on one line,
    its control characters spelled out, no double quote (Slurm's own
    parser of ``Reason=`` takes one as the end of the value).'''
    text = reason if reason.startswith(PREFIX) else f'{PREFIX} {reason}'
    return console.one_line(text).replace('"', "'")


def drain_command(node, reason):
    '''The ``scontrol`` arguments that drain ``node`` with ``reason``
    (:func:`reason_text`).

    :raises identifiers.BadIdentifier: if ``node`` is no node name.
    '''
    return ['scontrol', 'update', f'NodeName={identifiers.node(node)}',
            'State=DRAIN', f'Reason={reason_text(reason)}']


def resume_command(node):
    '''The ``scontrol`` arguments that return ``node`` to service.

    :raises identifiers.BadIdentifier: if ``node`` is no node name.
    '''
    return ['scontrol', 'update', f'NodeName={identifiers.node(node)}',
            'State=RESUME']


def drain(node, reason):
    '''Drain ``node`` with ``reason`` (:func:`drain_command`).

    :raises SlurmError: if scontrol refused.
    '''
    scontrol(*drain_command(node, reason)[1:])


def resume(node):
    '''Return ``node`` to service.

    :raises SlurmError: if scontrol refused.
    '''
    scontrol(*resume_command(node)[1:])
