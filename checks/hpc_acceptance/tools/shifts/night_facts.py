'''What a night's runs recorded about the node and the binary, and what of
it changed from one night to the next.

Each job's node-state probe records the node's software as
``node_software`` (``kernel=...; bios=...; microcode=...; mpi=...;
compiler=...``), and each check its binary: where it came from, the Spack
spec and hash it loaded, the ISA it was built for, the BLAS it linked. A
shift across nights is named beside what of these changed the night it
began: "the night the kernel went from X to Y the night of 2026-11-03". The night a shift began
is an estimate, a night or two off on a noisy figure: the nights around it
are searched (:func:`around`), nearest first.
'''

from collections import OrderedDict

from hpc_acceptance.tools.common.console import one_line

#: What a test case says about its binary: ``{field: name}``.
BINARY_FIELDS = OrderedDict([('dependency_source', 'binary'),
                             ('spack_spec', 'Spack spec'),
                             ('isa_built', 'ISA built for'),
                             ('blas_library', 'BLAS')])


def facts(case):
    '''``{name: value}`` of what ``case`` recorded of its node's software
    and its binary.'''
    found = OrderedDict()
    for part in (case.get('node_software') or '').split('; '):
        name, sep, value = part.partition('=')
        if sep and value.strip():
            found[name.strip()] = value.strip()

    for field, name in BINARY_FIELDS.items():
        if case.get(field):
            found[name] = str(case[field])

    return found


def changes(before, after):
    '''``[(name, old, new)]`` of what differs between the test cases
    ``before`` and ``after`` (of the same figure, on two nights); a fact
    only one of them recorded is left out (runs stored before the probe
    recorded it).'''
    old, new = facts(before), facts(after)
    return [(name, old[name], new[name]) for name in new
            if name in old and old[name] != new[name]]


def describe(changed):
    '''``the kernel went from X to Y and the BIOS from A to B`` of
    :func:`changes`; ``nothing the runs recorded changed`` without any.'''
    if not changed:
        return 'nothing the runs recorded changed'

    # what a node recorded of itself, on one line with its controls
    # spelled out: the line reaches a terminal and the summary
    changed = [tuple(map(one_line, change)) for change in changed]
    words = [f'the {name} went from {old} to {new}' if number == 0 else
             f'the {name} from {old} to {new}'
             for number, (name, old, new) in enumerate(changed)]
    return ' and '.join(words)


def around(cases, index, radius):
    '''``(night index, changes)`` of the night nearest ``index`` (within
    ``radius`` nights each side; the night itself first, then the night
    after, the night before, ...) on which what ``cases`` (one test case a
    night, oldest first) recorded changed from the night before; ``None``
    where nothing did.'''
    order = [index]
    for step in range(1, radius + 1):
        order += [index + step, index - step]

    for night in order:
        if 1 <= night < len(cases):
            changed = changes(cases[night - 1], cases[night])
            if changed:
                return night, changed

    return None
