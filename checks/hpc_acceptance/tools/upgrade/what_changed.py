'''What changed between a post-upgrade run and its baseline.

An upgrade changes software, and a regression is read against what it
changed: the nodes' kernel, BIOS, MPI and compiler (each job's probe
records them as ``node_software``), and each check's binary (where it came
from, the Spack spec and hash it loaded, the ISA it was built for, the
BLAS it linked). :func:`differences` lists every one that is not the same
in the baseline's runs and this run's, with both values.
'''

from collections import OrderedDict, defaultdict

from hpc_acceptance.tools.results.runs import short_name

#: What a check's test case says about its binary: ``{field: label}``.
BINARY_FIELDS = OrderedDict([('dependency_source', 'binary'),
                             ('spack_spec', 'Spack spec'),
                             ('isa_built', 'built for'),
                             ('blas_library', 'BLAS')])


def software(case):
    '''``{name: version}`` of a test case's ``node_software``.'''
    facts = {}
    for part in (case.get('node_software') or '').split('; '):
        name, sep, version = part.partition('=')
        if sep:
            facts[name] = version

    return facts


def _check_name(case):
    return short_name(' '.join(word for word in
                               case['display_name'].split()
                               if not word.startswith('%.')))


def _values(cases):
    '''``({software: {versions}}, {check: {binary field: {values}}})``.'''
    nodes = defaultdict(set)
    binaries = defaultdict(lambda: defaultdict(set))
    for case in cases:
        if case.get('fixture') or case.get('result') == 'skip':
            continue

        for name, version in software(case).items():
            nodes[name].add(version)

        for field in BINARY_FIELDS:
            if case.get(field):
                binaries[_check_name(case)][field].add(str(case[field]))

    return nodes, binaries


def _both(before, after):
    return (f'{" | ".join(sorted(before)) or "(none)"} -> '
            f'{" | ".join(sorted(after)) or "(none)"}')


def differences(baseline_cases, new_cases):
    '''Lines, one per software item or check binary that differs.'''
    old_nodes, old_binaries = _values(baseline_cases)
    new_nodes, new_binaries = _values(new_cases)
    lines = [f'{name}: {_both(old_nodes[name], new_nodes[name])}'
             for name in sorted(set(old_nodes) | set(new_nodes))
             if old_nodes[name] != new_nodes[name] and
             old_nodes[name] and new_nodes[name]]
    for check in sorted(set(old_binaries) & set(new_binaries)):
        before, after = old_binaries[check], new_binaries[check]
        changed = [f'{label} {_both(before[field], after[field])}'
                   for field, label in BINARY_FIELDS.items()
                   if before[field] != after[field]]
        if changed:
            lines.append(f'{check}: ' + '; '.join(changed))

    return lines
