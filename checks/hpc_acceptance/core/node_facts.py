'''What a check can know of its node beyond ReFrame's processor description
before a job runs: its CPUs' clocks (cpufreq), its NUMA distances (the
SLIT) and its CPU flags.

ReFrame's description (:mod:`hpc_acceptance.core.node_shape`) has none of
them. On a partition with the local scheduler the node is the one ReFrame
runs on, and its probe (``node_state.sh``, run once per process) reads
them; elsewhere they are unknown until a job's probe runs on the node, and
the checks decide from the description alone, saying so where it matters.
``hpc-acceptance topology`` gives a snapshot's probe in place of this
host's.
'''

import functools
from dataclasses import dataclass
from typing import Optional

from hpc_acceptance.core import core_kinds, node_shape, node_state


@dataclass(frozen=True)
class NodeFacts:
    #: ``{cpu: (max kHz, base kHz or None)}``, or ``None``
    frequencies: Optional[dict] = None
    #: ``{node: {node: distance}}``, or ``None``
    distances: Optional[dict] = None
    #: the CPU's flags, or ``None``
    flags: Optional[frozenset] = None
    #: where they were read, or why they are unknown
    source: str = ''


@functools.lru_cache(maxsize=8)
def of_probe(text, source):
    '''The facts of a node whose probe printed ``text`` (read once: every
    hook of every test case asks).'''
    return NodeFacts(node_state.frequencies(text),
                     node_state.numa_distances(text),
                     node_state.cpu_flags(text), source)


def of_partition(partition):
    '''The facts of ``partition``'s node: its probe's, where the partition
    uses the local scheduler; none elsewhere.'''
    if partition.scheduler.registered_name != 'local':
        return NodeFacts(source=f'{partition.fullname} runs its jobs on '
                                f'other nodes, which its setup cannot read')

    return of_probe(node_state.probe_text_here(), 'the node\'s probe')


#: The kinds last told, by the description's ``id`` and the facts' clocks:
#: every hook of every test case asks of the partition's one description.
_TOLD = {}


def kinds_of(partition):
    '''The kinds of core of ``partition``'s node
    (:func:`hpc_acceptance.core.core_kinds.kinds`): by its CPUs' clocks
    where its probe reads them, else by its description's caches.'''
    info = partition.processor.info
    node = node_shape.shape(info)
    node.require('cores')
    frequencies = of_partition(partition).frequencies
    key = (id(info), tuple(sorted((frequencies or {}).items())))
    told = _TOLD.get(key)
    if told is None or told[0] is not info:
        if len(_TOLD) > 16:
            _TOLD.clear()
        told = _TOLD[key] = (info, core_kinds.kinds(node, frequencies))

    return told[1]


def core_choice(kinds, cores):
    '''Which cores of a hybrid CPU ``cores`` are, as one phrase: ``all 14
    cores (6 performance, 8 efficiency)``, ``the 6 performance cores``,
    ``4 performance and 2 efficiency cores``; ``''`` on a node of one kind
    of core.'''
    if not kinds.hybrid:
        return ''

    by_kind = kinds.of(cores)
    counts = [len(by_kind.get(i, [])) for i in range(len(kinds.kinds))]
    names = ['performance'] + ['efficiency'] * (len(counts) - 1)
    if len(cores) == sum(len(k.cores) for k in kinds.kinds):
        return (f'all {len(cores)} cores (' + ', '.join(
            f'{n} {name}' for n, name in zip(counts, names)) + ')')

    used = [(n, name) for n, name in zip(counts, names) if n]
    if len(used) == 1 and used[0][0] == len(kinds.kinds[0].cores) and \
            used[0][1] == 'performance':
        return f'the {used[0][0]} performance cores'

    plural = 's' if sum(n for n, _ in used) > 1 else ''
    return ' and '.join(f'{n} {name}' for n, name in used) + f' core{plural}'
