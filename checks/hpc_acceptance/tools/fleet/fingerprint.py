'''What a node of a fleet run is: its hardware and software fingerprint.

Each job's node-state probe records the node's CPU model, CPUs, cores and
memory (``node_hardware``) and its kernel and BIOS (``node_software``).
A fleet run compares a node only with the nodes of its partition that have
the same fingerprint: two hardware generations in one partition are two
fleets, and a kernel rolled out to half of the nodes makes two groups that
are each judged on their own. A fingerprint only a few nodes have is a
finding of its own (:func:`differences` says what differs): a node that
lost a DIMM reports less memory, one whose BIOS update failed the old
version.

Memory is compared to within :data:`MEMORY_TOLERANCE`: identical nodes
report MemTotal tens of MB apart (firmware and kernel reservations), a
lost DIMM is a sixteenth of the memory or more. The partition's memory
sizes are clustered all together (sorted, a new size where the next is
more than the tolerance above the one before), so that neither the order
in which a run lists its nodes nor a rounding boundary between two
identical nodes (187.49 and 187.51 GiB) splits them; each cluster is named
by its median, in GiB.
'''

from collections import Counter
from typing import Dict, List, NamedTuple, Tuple

#: The fields of a fingerprint, in the order they are shown.
FIELDS = ('cpu', 'cpus', 'cores', 'memory', 'bios', 'kernel')

#: The fields that are the node's hardware: what a node's earlier figures
#: stay comparable across (a kernel or BIOS upgrade is what a fleet run
#: after an upgrade is asked to judge).
HARDWARE = ('cpu', 'cpus', 'cores', 'memory')

#: Relative difference of memory sizes that counts as the same memory.
MEMORY_TOLERANCE = 0.02

#: Fingerprint of no recorded field: runs stored before the probe read it.
UNKNOWN = ('',) * len(FIELDS)


def _pairs(text):
    for part in (text or '').split('; '):
        name, _, value = part.partition('=')
        if value:
            yield name.strip(), value.strip()


def of_case(case):
    '''``{field: value}`` of the :data:`FIELDS` a test case recorded;
    memory in kB.'''
    fields = dict(_pairs(case.get('node_hardware')))
    software = dict(_pairs(case.get('node_software')))
    found = {'cpu': fields.get('cpu', ''), 'cpus': fields.get('cpus', ''),
             'cores': fields.get('cores', ''),
             'memory': fields.get('memory_kb', ''),
             'bios': software.get('bios', ''),
             'kernel': software.get('kernel', '')}
    return found


def _fingerprint(case):
    found = of_case(case)
    return tuple(found[field] for field in FIELDS)


def _gib(kilobytes):
    '''A memory size as people read it: ``187 GiB``, ``62.5 GiB``.'''
    gib = kilobytes / 2 ** 20
    return f'{gib:.0f} GiB' if gib >= 100 else f'{gib:.3g} GiB'


def memory_sizes(sizes):
    '''``{size in kB: name of its cluster}`` of the memory sizes of a
    partition's nodes: sorted, a size more than :data:`MEMORY_TOLERANCE`
    above the one before starts a new cluster, named by its median in GiB
    (:func:`_gib`; clusters further apart than the tolerance never share a
    name).'''
    clusters = []
    for size in sorted(set(sizes)):
        if clusters and size - clusters[-1][-1] <= MEMORY_TOLERANCE * size:
            clusters[-1].append(size)
        else:
            clusters.append([size])

    names = {}
    for cluster in clusters:
        within = set(cluster)
        members = sorted(s for s in sizes if s in within)
        name = _gib(members[(len(members) - 1) // 2])
        names.update((size, name) for size in cluster)

    return names


def _most_common(fingerprints):
    '''The fingerprint most of a node's test cases recorded; on a tie the
    first in sorted order, whatever the order of the cases.'''
    counts = Counter(fingerprints)
    counts.pop(UNKNOWN, None)
    if not counts:
        return UNKNOWN

    return min(counts, key=lambda found: (-counts[found], found))


def of_nodes(cases_by_node):
    '''``{node: fingerprint}`` (a tuple in :data:`FIELDS` order) of the
    nodes of one partition, from ``{node: [test cases]}``: each node's
    most common one (a job that ended before its probe ran recorded
    nothing), memory as its cluster's size (:func:`memory_sizes`).'''
    prints = {node: _most_common(_fingerprint(case) for case in cases)
              for node, cases in cases_by_node.items()}
    column = FIELDS.index('memory')
    names = memory_sizes([int(p[column]) for p in prints.values()
                          if p[column].isdigit()])
    for node, fingerprint in prints.items():
        memory = fingerprint[column]
        if memory.isdigit():
            prints[node] = (fingerprint[:column] +
                            (names[int(memory)],) +
                            fingerprint[column + 1:])

    return prints


class Group(NamedTuple):
    '''Nodes of one fingerprint.'''
    fingerprint: Tuple[str, ...]
    nodes: List[str]


def groups(prints: Dict[str, tuple]):
    ''':class:`Group` of each fingerprint of ``prints``
    (:func:`of_nodes`), the largest first.'''
    members = {}
    for node, fingerprint in sorted(prints.items()):
        members.setdefault(fingerprint, []).append(node)

    return [Group(fingerprint, nodes) for fingerprint, nodes in
            sorted(members.items(), key=lambda item: (-len(item[1]),
                                                      item[1][0]))]


def hardware(fingerprint):
    '''The :data:`HARDWARE` fields of a fingerprint.'''
    return tuple(fingerprint[FIELDS.index(f)] for f in HARDWARE)


def differences(fingerprint, other):
    '''``['memory 251 GiB (others: 503 GiB)', ...]``: the fields in which
    ``fingerprint`` differs from ``other``'s.'''
    return [f'{name} {mine or "not recorded"} (others: '
            f'{theirs or "not recorded"})'
            for name, mine, theirs in zip(FIELDS, fingerprint, other)
            if mine != theirs]


def nearest(fingerprint, candidates):
    '''The one of ``candidates`` (:class:`Group`) that differs from
    ``fingerprint`` in the fewest fields, the largest on a tie.'''
    return min(candidates, key=lambda g: (
        sum(a != b for a, b in zip(fingerprint, g.fingerprint)),
        -len(g.nodes)))


def describe(fingerprint):
    '''``cpu ...; memory ...; kernel ...``: the recorded fields.'''
    return '; '.join(f'{name} {value}' for name, value in
                     zip(FIELDS, fingerprint) if value) or \
        'no fingerprint recorded'
