'''Why checks skipped, read from ReFrame's console output.

ReFrame's JSON report and results database record that a test case
skipped but not why; only its console line says so::

    [      SKIP ] ( 3/12) NpbCgCheck %num_procs=4 ... @local:default+gnu [why]

``ci/acceptance.sh`` keeps that output in a log file beside the report.
'''

import re
from collections import OrderedDict

from hpc_acceptance.npb import classes

_SKIP_LINE = re.compile(
    r'^\[\s*SKIP\s*\]\s*\(\s*\d+/\d+\)\s+(?P<name>\S+)(?P<params>.*?)'
    r'\s+/[0-9a-f]+\s+@(?P<where>\S+)\s+\[(?P<reason>.*)\]\s*$'
)
# An NPB binary (cg.W.x), Spack variant (names=cg) or make target in a
# skip reason.
_BENCH = f'(?:{"|".join(classes.BENCHMARKS)})'
_CLASS = f'[{"".join(classes.CLASSES)}]'
_NPB_NAME = re.compile(rf'\b{_BENCH}(?=\.{_CLASS}\.x\b)|'
                       rf'(?<=names=){_BENCH}\b|(?<=make ){_BENCH}\b')
# ReFrame colours its status words even when writing to a file.
_COLOUR = re.compile(r'\x1b\[[0-9;]*m')


def parse(text):
    '''``[(test case, reason)]`` of every SKIP line in ``text``; the test
    case as ``check %param=value ... @system:partition+environ``.'''
    skipped = []
    for line in _COLOUR.sub('', text).splitlines():
        match = _SKIP_LINE.match(line)
        if match:
            case = ' '.join([match['name']] + match['params'].split() +
                            [f'@{match["where"]}'])
            skipped.append((case, match['reason']))

    return skipped


def read(path):
    ''':func:`parse` of the file at ``path``; ``[]`` if there is none.'''
    try:
        with open(path, errors='replace') as fp:
            return parse(fp.read())
    except FileNotFoundError:
        return []


def _shared(reason):
    '''``reason`` without the NPB benchmark it names, so that the eight
    benchmarks' "bt.W.x not found ..." make one reason.'''
    return _NPB_NAME.sub('<benchmark>', reason)


def by_reason(skipped):
    '''``{reason: {check class: test cases}}``, most frequent reason first.

    Reasons that differ only in the NPB benchmark they name are one
    reason, shown with ``<benchmark>`` in its place.
    '''
    grouped = OrderedDict()
    for case, reason in skipped:
        checks = grouped.setdefault(_shared(reason), {})
        name = case.split()[0]
        checks[name] = checks.get(name, 0) + 1

    return OrderedDict(sorted(grouped.items(),
                              key=lambda item: -sum(item[1].values())))
