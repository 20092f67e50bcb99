'''Why test cases skipped, grouped by reason.

A check records why it skipped in its loggable ``skip_reason``
(:mod:`hpc_acceptance.core.skip_reason`), which ReFrame's JSON report and
results database keep with the test case. Two kinds of skipped case have
none, and for those ReFrame's console output is read, where given:

- skips ReFrame makes itself, through no check's code (a test whose
  dependency skipped, too few nodes for a flexible job): only their
  console line says why::

    [      SKIP ] ( 3/12) NpbCgCheck %num_procs=4 ... @local:default+gnu [why]

- runs stored before checks recorded their reasons, whose report pages
  keep that output beside them (``ci/acceptance.sh`` writes it to a log
  file beside the report).
'''

import re
from collections import OrderedDict

from hpc_acceptance.npb import classes

#: The reason of a skipped test case that neither the report nor a console
#: output says.
NOT_RECORDED = ("reason not recorded: see ReFrame's output of the run (a "
                "skip of ReFrame's own, or a run older than recorded reasons)")

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


def case_name(case):
    '''A report's test case as its console line names it:
    ``check %param=value ... @system:partition+environ``.'''
    return (f'{case["display_name"]} @{case.get("system")}:'
            f'{case.get("partition")}+{case.get("environ")}')


def reasons(testcases, console=None):
    '''``[(test case, reason)]`` of every skipped test case of a report or
    the results database (see :func:`case_name`); the reason the case
    recorded, else its SKIP line's in ``console`` (ReFrame's output of the
    run), else :data:`NOT_RECORDED`.'''
    from_console = dict(parse(console or ''))
    found = []
    for case in testcases:
        if case['result'] == 'skip':
            name = case_name(case)
            found.append((name, case.get('skip_reason') or
                          from_console.get(name, NOT_RECORDED)))

    return found


def parse(text):
    '''``[(test case, reason)]`` of every SKIP line in ``text``.'''
    found = []
    for line in _COLOUR.sub('', text).splitlines():
        match = _SKIP_LINE.match(line)
        if match:
            case = ' '.join([match['name']] + match['params'].split() +
                            [f'@{match["where"]}'])
            found.append((case, match['reason']))

    return found


def read(path):
    '''The text of ReFrame's console output at ``path``; ``None`` if there
    is none.'''
    try:
        with open(path, errors='replace') as fp:
            return fp.read()
    except FileNotFoundError:
        return None


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
