'''Judge an acceptance run from ReFrame's JSON report.

ReFrame exits 0 when no check matched and when every check skipped;
sysadmins read green as "validated", so the acceptance run is judged here:

- exit 0: at least one check passed and none failed ("passed — not judged
  against references" where no reference file bounded them, and no fleet
  run compared them across the nodes of their partition);
- exit 1: a check failed, aborted or could not run for a failed dependency,
  or a node of a fleet run is a suspect (slower than its siblings, or alone
  in failing a check: :mod:`.fleet`);
- exit 2: nothing was validated (no check selected, or all skipped, or a
  site system without a reference file: :mod:`.unreferenced`);
- exit 3: ReFrame failed before it ran anything, or the report is
  unreadable.

ReFrame writes no report when no test case ran; its own exit status tells
that case (0) from a crash (non-zero). A fleet run is two ReFrame runs (the
single-node checks on every node, then the multi-node checks once): both
are judged as one. The verdict is the last line printed.

Usage: ``hpc-acceptance verdict REPORT.json REFRAME_EXIT_STATUS
[REPORT.json REFRAME_EXIT_STATUS ...]``
'''

import json
import os
import sys
from collections import Counter

from hpc_acceptance.tools import fleet, unreferenced
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


def suspect_nodes(report):
    '''``(fleets, suspects, problem)``: the fleet comparison of a run
    (:func:`.fleet.compare`), its suspect nodes as ``node (partition)``,
    and why the nodes could not be compared, or ``None``.'''
    try:
        fleets = fleet.compare(final_testcases(report))
    except fleet.FleetError as err:
        return [], [], str(err)

    return fleets, [f'{s.node} ({s.partition})' for f in fleets
                    for s in f.suspects], None


def judge(report):
    '''Return ``(exit status, message)`` for a parsed report; the
    message's last line is the verdict.'''
    results, failures = tally(report)
    fleets, suspects, problem = suspect_nodes(report)
    if problem:
        failures.append(f'fleet comparison: {problem}')

    summary = ', '.join(f'{n} {result}' for result, n in
                        sorted(results.items())) or 'no checks'
    if failures or suspects:
        found = ([f'{len(failures)} failure(s)'] if failures else []) + (
            [f'{len(suspects)} suspect node(s): {", ".join(suspects)}; see '
             f'hpc-acceptance suspects'] if suspects else [])
        return 1, '\n'.join([f'  {failure}' for failure in failures] +
                            [f'acceptance FAILED ({summary}): ' +
                             '; '.join(found)])

    if results['pass'] == 0:
        reason = ('no check was selected' if not results
                  else 'every check was skipped')
        return 2, (f'acceptance NOT VALIDATED: {reason} ({summary}); '
                   f'see the skip reasons above')

    cases = final_testcases(report)
    compared = {id(case) for case in fleet.judged_by_siblings(fleets, cases)}
    unjudged = unreferenced.unjudged_systems(
        [case for case in cases if id(case) not in compared])
    refused = unreferenced.refused(unjudged)
    if refused:
        return 2, unreferenced.not_validated(refused, summary)

    note = f' — {unreferenced.NOT_JUDGED}' if unjudged else ''
    flaky = passed_on_retry(report)
    retried = (f'; passed only when retried: {", ".join(flaky)}'
               if flaky else '')
    return 0, f'acceptance passed{note} ({summary}){retried}'


class Unreadable(Exception):
    '''A run cannot be judged: ReFrame stopped before writing its report,
    or the report cannot be read.'''


def read_runs(pairs):
    '''The reports of ``[(path, ReFrame exit status)]`` as one report. A
    run that wrote no report and exited 0 ran no test case: it adds
    nothing. Each report's test cases are its own, so its runs (the first
    and the retries) simply follow the previous report's.

    :raises Unreadable: naming the report and why.
    '''
    runs = []
    for path, reframe_status in pairs:
        if not os.path.exists(path):
            if reframe_status == 0:
                continue

            raise Unreadable(f'ReFrame stopped with status {reframe_status} '
                             f'before writing {path}; see its output above')

        try:
            with open(path) as fp:
                runs += json.load(fp)['runs']
        except (OSError, json.JSONDecodeError, KeyError) as err:
            raise Unreadable(f'cannot read the run report {path}: '
                             f'{err}') from None

    return {'runs': runs}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or len(argv) % 2 or not all(s.isdigit()
                                            for s in argv[1::2]):
        print(' '.join(__doc__.strip().splitlines()[-2:]), file=sys.stderr)
        return 3

    try:
        report = read_runs(list(zip(argv[::2], map(int, argv[1::2]))))
    except Unreadable as err:
        print(f'acceptance NOT VALIDATED: {err}', file=sys.stderr)
        return 3

    if not any(run['testcases'] for run in report['runs']):
        status, message = 2, ('acceptance NOT VALIDATED: no check was '
                              'selected (ReFrame ran no test case and wrote '
                              'no report)')
    else:
        status, message = judge(report)

    print(message, file=sys.stderr if status else sys.stdout)
    return status
