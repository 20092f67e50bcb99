'''Judge an acceptance run from ReFrame's JSON report.

ReFrame exits 0 when no check matched and when every check skipped;
sysadmins read green as "validated", so the acceptance run is judged here:

- exit 0: at least one check passed and none failed ("passed — not judged
  against references" where no reference file bounded them);
- exit 1: a check failed, aborted or could not run for a failed dependency;
- exit 2: nothing was validated (no check selected, or all skipped, or a
  site system without a reference file: :mod:`.unreferenced`);
- exit 3: ReFrame failed before it ran anything, or the report is
  unreadable.

ReFrame writes no report when no test case ran; its own exit status tells
that case (0) from a crash (non-zero).

Usage: ``hpc-acceptance verdict REPORT.json REFRAME_EXIT_STATUS``
'''

import json
import os
import sys
from collections import Counter

from hpc_acceptance.tools import unreferenced
from hpc_acceptance.tools.results import (FAILED_RESULTS, final_testcases,
                                          passed_on_retry)


def tally(report):
    '''Count the outcomes of the checks (fixtures left out), each by its
    last attempt (a check retried after a failure counts as its retry).

    :returns: (Counter of results, list of "name: reason" failures)
    '''
    results = Counter()
    failures = []
    for case in final_testcases(report):
        if case.get('fixture'):
            if case['result'] in FAILED_RESULTS:
                failures.append(f'{case["display_name"]} (fixture): '
                                f'{case.get("fail_reason")}')

            continue

        results[case['result']] += 1
        if case['result'] in FAILED_RESULTS:
            failures.append(f'{case["display_name"]}: '
                            f'{case.get("fail_reason") or case["result"]}')

    return results, failures


def judge(report):
    '''Return ``(exit status, message)`` for a parsed report.'''
    results, failures = tally(report)
    summary = ', '.join(f'{n} {result}' for result, n in
                        sorted(results.items())) or 'no checks'
    if failures:
        return 1, (f'acceptance FAILED ({summary}):\n  ' +
                   '\n  '.join(failures))

    if results['pass'] == 0:
        reason = ('no check was selected' if not results
                  else 'every check was skipped')
        return 2, (f'acceptance NOT VALIDATED: {reason} ({summary}); '
                   f'see the skip reasons above')

    unjudged = unreferenced.unjudged_systems(final_testcases(report))
    refused = unreferenced.refused(unjudged)
    if refused:
        return 2, unreferenced.not_validated(refused, summary)

    note = f' — {unreferenced.NOT_JUDGED}' if unjudged else ''
    flaky = passed_on_retry(report)
    retried = (f'; passed only when retried: {", ".join(flaky)}'
               if flaky else '')
    return 0, f'acceptance passed{note} ({summary}){retried}'


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or not argv[1].isdigit():
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 3

    path, reframe_status = argv[0], int(argv[1])
    if not os.path.exists(path):
        if reframe_status == 0:
            print('acceptance NOT VALIDATED: no check was selected (ReFrame '
                  'ran no test case and wrote no report)', file=sys.stderr)
            return 2

        print(f'acceptance NOT VALIDATED: ReFrame stopped with status '
              f'{reframe_status} before writing {path}; see its output '
              f'above', file=sys.stderr)
        return 3

    try:
        with open(path) as fp:
            report = json.load(fp)
    except (OSError, json.JSONDecodeError) as err:
        print(f'acceptance NOT VALIDATED: cannot read the run report '
              f'{path}: {err}', file=sys.stderr)
        return 3

    status, message = judge(report)
    print(message, file=sys.stderr if status else sys.stdout)
    return status
