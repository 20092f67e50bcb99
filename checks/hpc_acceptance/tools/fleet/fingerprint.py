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
report a few MB more or less (firmware and kernel reservations), a lost
DIMM is a sixteenth of the memory or more.
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


def _gib(kilobytes):
    return f'{int(kilobytes) / 2 ** 20:.0f} GiB'


def _same_memory(kilobytes, other):
    return abs(int(kilobytes) - int(other)) <= \
        MEMORY_TOLERANCE * max(int(kilobytes), int(other))


def of_nodes(cases_by_node):
    '''``{node: fingerprint}`` (a tuple in :data:`FIELDS` order) of the
    nodes of one partition, from ``{node: [test cases]}``: each node's
    most common one, memory as the partition's most common size where
    within :data:`MEMORY_TOLERANCE` of it, in GiB.'''
    prints = {}
    for node, cases in cases_by_node.items():
        # a job that ended before its probe ran recorded nothing
        counts = Counter(tuple(of_case(case)[f] for f in FIELDS)
                         for case in cases)
        counts.pop(UNKNOWN, None)
        prints[node] = (counts.most_common(1)[0][0] if counts
                        else UNKNOWN)

    column = FIELDS.index('memory')
    sizes = Counter(p[column] for p in prints.values()
                    if p[column].isdigit())
    usual = sizes.most_common(1)[0][0] if sizes else None
    for node, fingerprint in prints.items():
        memory = fingerprint[column]
        if memory.isdigit():
            if usual and _same_memory(memory, usual):
                memory = usual
            prints[node] = (fingerprint[:column] + (_gib(memory),) +
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
