'''The few lines an acceptance run ends with, instead of ReFrame's tables.

    hpc-acceptance summary REPORT.json [--log REFRAME_OUTPUT] [--width N]

Per family (the directory of the check under ``checks/``): how many test
cases passed, failed and skipped; each failure on one line with its reason;
skip reasons grouped, one line each with a count; the variants not
generated because no partition could hold them (stated once). At most
:data:`MAX_LINES` lines: what does not fit is counted and left to the
report page and the log. ReFrame's full output, its performance table
included, stays in the log file.
'''

import argparse
import os
import sys
from collections import Counter, OrderedDict

from hpc_acceptance.tools import skips
from hpc_acceptance.tools.results import (FAILED_RESULTS, ResultsError,
                                          report_testcases)

MAX_LINES = 40
_COLUMNS = ('pass', 'fail', 'skip')
_HEADERS = ('passed', 'failed', 'skipped')


def family_of(case):
    '''``npb`` for ``checks/npb/cg.py``: the directory of the check file.'''
    return os.path.basename(os.path.dirname(case.get('filename') or '')) \
        or 'other'


def _clip(text, width):
    '''``text`` on one line of at most ``width`` characters, its
    indentation kept.'''
    indent = text[:len(text) - len(text.lstrip())]
    text = indent + ' '.join(str(text).split())
    return text if len(text) <= width else text[:width - 3] + '...'


def tally(testcases):
    '''``{family: Counter(pass=, fail=, skip=)}`` of the non-fixture
    test cases, families sorted.'''
    families = {}
    for case in testcases:
        if case.get('fixture'):
            continue

        result = 'fail' if case['result'] in FAILED_RESULTS else case['result']
        families.setdefault(family_of(case), Counter())[result] += 1

    return OrderedDict(sorted(families.items()))


def failures(testcases):
    '''``[(test case, reason)]`` of every failed test case, fixtures
    included (a failed build is why its checks did not run).'''
    return [(f'{case["display_name"]} @{case["system"]}:'
             f'{case["partition"]}+{case["environ"]}',
             f'{case.get("fail_phase") or case["result"]}: '
             f'{case.get("fail_reason") or case["result"]}')
            for case in testcases if case['result'] in FAILED_RESULTS]


def left_out(testcases):
    '''The distinct notes on variants not generated, in first-seen order.'''
    notes = OrderedDict()
    for case in testcases:
        note = case.get('variants_left_out')
        if note:
            notes[note] = None

    return list(notes)


def render(testcases, skipped, width=100):
    '''The summary's lines.'''
    families = tally(testcases)
    lines = ['== acceptance summary ' + '=' * max(0, width - 22),
             f'{"family":<12}' + ''.join(f'{c:>8}' for c in _HEADERS)]
    for family, counts in families.items():
        lines.append(f'{family:<12}' +
                     ''.join(f'{counts[c]:>8}' for c in _COLUMNS))

    budget = MAX_LINES - len(lines) - 4
    failed = failures(testcases)
    notes = left_out(testcases)
    groups = list(skips.by_reason(skipped).items())
    fail_room = min(len(failed), max(3, budget // 2))
    skip_room = max(0, budget - fail_room - len(notes[:5]) - 2)
    if failed:
        lines.append(f'failed ({len(failed)}):')
        lines += [_clip(f'  {case}: {reason}', width)
                  for case, reason in failed[:fail_room]]
        if len(failed) > fail_room:
            lines.append(f'  ... {len(failed) - fail_room} more: see the '
                         f'report page')

    if groups:
        lines.append(f'skipped, by reason ({len(skipped)}):')
        for reason, checks in groups[:skip_room]:
            count = sum(checks.values())
            lines.append(_clip(f'  {count:>3} x {reason} '
                               f'({", ".join(checks)})', width))

        if len(groups) > skip_room:
            lines.append(f'  ... {len(groups) - skip_room} more reasons: '
                         f'see the report page')

    if notes:
        lines.append('not generated (no partition can hold them):')
        lines += [_clip(f'  {note}', width) for note in notes[:5]]

    return lines[:MAX_LINES]


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='hpc-acceptance summary',
        description=__doc__.split('\n\n')[0],
    )
    parser.add_argument('report', help="ReFrame's JSON run report")
    parser.add_argument('--log', help="ReFrame's console output of the "
                                      "run, for the reasons of skips that "
                                      "the report does not hold")
    parser.add_argument('--width', type=int, default=100,
                        help='longest line (default: %(default)s)')
    args = parser.parse_args(argv)
    try:
        testcases = report_testcases(args.report)
    except ResultsError as err:
        print(f'summary: {err}', file=sys.stderr)
        return 1

    console = skips.read(args.log) if args.log else None
    print('\n'.join(render(testcases, skips.reasons(testcases, console),
                           args.width)))
    return 0
