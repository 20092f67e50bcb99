'''Judge an acceptance run from ReFrame's JSON report.

ReFrame exits 0 when no check matched and when every check skipped;
sysadmins read green as "validated", so the acceptance run is judged here:

- exit 0: at least one check passed and none failed ("passed — not judged
  against references" where no reference file bounded them, and no fleet
  run compared them across the nodes of their partition);
- exit 1: a check failed, aborted or could not run for a failed dependency,
  a passed check has no measurement of a figure (NaN, +-inf, null, a
  negative or non-numeric value, or no figure at all from a check of this
  project: :mod:`..results.measurement`), or a fleet run found something
  (:mod:`..fleet.comparison`): a suspect node (slower than its siblings, alone
  in failing a check, with no measurement of a figure its siblings
  measured, or of another hardware or software than its partition's other
  nodes), a fleet that lost as a whole against its references or its
  earlier fleet runs, or a figure whose nodes split in two clusters (not
  uniform), or a figure's nightly series ended on a persistent shift
  beyond its reference tolerance or the site's shift limit
  (:mod:`..shifts.nightly`);
- exit 2: nothing was validated (no check selected, or all skipped, or a
  site system without a reference file: :mod:`..references.unreferenced`);
- exit 3: ReFrame failed before it ran anything, or a report is
  unreadable (not JSON, not a run report, another ReFrame's format: one
  line names the file and what is wrong, :mod:`..results.report_shape`).

ReFrame writes no report when no test case ran; its own exit status tells
that case (0) from a crash (non-zero). A fleet run is two or three ReFrame
runs (the single-node checks on every node, the confirmation rerun of its
suspects' checks on their nodes, the multi-node checks once): they are
judged as one run, a rerun's test case replacing the first attempt, as a
retry does. Every test case counts by its final attempt; one that passed
only when retried or rerun is named. A fleet run whose figures had nothing
to be compared with but each other (no reference file, no earlier fleet
run) says so. The verdict is the last line printed.

Usage: ``hpc-acceptance verdict REPORT.json REFRAME_EXIT_STATUS
[REPORT.json REFRAME_EXIT_STATUS ...]``
'''

import sys
from collections import Counter

from hpc_acceptance.tools.fleet import history
from hpc_acceptance.tools.fleet.comparison import judged_by_siblings
from hpc_acceptance.tools.fleet.model import FleetError
from hpc_acceptance.tools.outcome import finished_run
from hpc_acceptance.tools.references import noise, unreferenced
from hpc_acceptance.tools.results.runs import (FAILED_RESULTS, figures_of,
                                               final_testcases,
                                               passed_on_retry, unmeasured)

#: One line for ``hpc-acceptance --help``.
description = "judge an acceptance run from ReFrame's JSON report"

#: What a passed fleet run says when some figure was compared only across
#: its nodes: a fleet slow as a whole would not have been seen.
ACROSS_NODES_ONLY = ('judged across its nodes only: no reference and no '
                     'earlier fleet run to compare the fleet as a whole '
                     'with')


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

    return results, sorted(failures)


def no_measurements(cases):
    '''``["name: no measurement of FIGURE (NaN)"]`` of the passed test
    cases (fixtures left out) with a figure that is no measurement, or no
    figure at all from a check of this project's families (each reports
    figures; a site's own check may report none).'''
    found = []
    for case in cases:
        if case.get('fixture') or case['result'] != 'pass':
            continue

        missing = unmeasured(case)
        found += [f'{case["display_name"]}: no measurement of {variable} '
                  f'({why})' for variable, (why, _) in sorted(
                      missing.items())]
        if not missing and not figures_of(case) and noise.family_of(
                case['display_name'].split()[0]):
            found.append(f'{case["display_name"]}: no measurement: no '
                         f'figure reported')

    return sorted(found)


def judge(report, fleets=None, fleet_note=None, shifts=(), fleet_error=None):
    '''Return ``(exit status, message)`` for a parsed report; the
    message's last line is the verdict. ``fleets`` is the run's fleet
    comparison (:func:`..fleet.history.of_run`), made here from the report
    where not given, ``fleet_error`` why it could not be made; ``shifts``
    its figures' shifts across nights (:func:`..shifts.nightly.of_run`),
    those that fail the run among them.'''
    cases = final_testcases(report)
    results, failures = tally(report)
    unmeasured_figures = no_measurements(cases)
    if fleets is None and fleet_error is None:
        try:
            fleets, fleet_note = history.of_run(
                cases, report.get('session_info') or {})
        except FleetError as err:
            fleet_error = str(err)

    if fleet_error:
        failures.append(f'fleet comparison: {fleet_error}')

    fleets = fleets or []

    suspects = [f'{s.node} ({s.partition}'
                f'{", no measurement" if s.unmeasured else ""})'
                for f in fleets for s in f.suspects]
    findings = [line for f in fleets for line in f.findings()]
    shifted = [f'shift across nights: {shift.describe()}'
               for shift in shifts if shift.failing]
    summary = ', '.join(f'{n} {result}' for result, n in
                        sorted(results.items())) or 'no checks'
    if failures or unmeasured_figures or suspects or findings or shifted:
        found = ([f'{len(failures)} failure(s)'] if failures else []) + (
            [f'{len(unmeasured_figures)} figure(s) with no measurement']
            if unmeasured_figures else []) + (
            [f'{len(suspects)} suspect node(s): {", ".join(suspects)}; see '
             f'hpc-acceptance suspects'] if suspects else []) + (
            [f'{len(findings)} finding(s) on a whole partition']
            if findings else []) + (
            [f'{len(shifted)} figure(s) shifted across nights']
            if shifted else [])
        return 1, '\n'.join([f'  {failure}' for failure in failures] +
                            [f'  {line}' for line in unmeasured_figures] +
                            [f'  {finding}' for finding in findings] +
                            [f'  {line}' for line in shifted] +
                            [f'acceptance FAILED ({summary}): ' +
                             '; '.join(found)])

    if results['pass'] == 0:
        reason = ('no check was selected' if not results
                  else 'every check was skipped')
        return 2, (f'acceptance NOT VALIDATED: {reason} ({summary}); '
                   f'see the skip reasons above')

    compared = {id(case) for case in judged_by_siblings(fleets, cases)}
    unjudged = unreferenced.unjudged_systems(
        [case for case in cases if id(case) not in compared])
    refused = unreferenced.refused(unjudged)
    if refused:
        return 2, unreferenced.not_validated(refused, summary)

    note = f' — {unreferenced.NOT_JUDGED}' if unjudged else ''
    if any(f.judged_across_nodes_only for f in fleets):
        note += (f' — {ACROSS_NODES_ONLY}' +
                 (f' ({fleet_note})' if fleet_note else ''))

    flaky = sorted(c['display_name'] for c in cases if passed_on_retry(c))
    retried = (f'; passed only when retried: {", ".join(flaky)}'
               if flaky else '')
    return 0, f'acceptance passed{note} ({summary}){retried}'


def of_run(run):
    '''``(exit status, message)`` of the :class:`.finished_run.FinishedRun`
    ``run``; the message's last line is the verdict.'''
    if run.unjudged:
        return 3, f'acceptance NOT VALIDATED: {run.unjudged}'

    if run.ran_nothing:
        return 2, ('acceptance NOT VALIDATED: no check was selected (ReFrame '
                   'ran no test case and wrote no report)')

    if run.shift_error:
        return 2, f'acceptance NOT VALIDATED: {run.shift_error}'

    return judge(run.report, run.fleets or [], run.fleet_note, run.shifts,
                 run.fleet_error)


def setup_parser(parser):
    parser.add_argument('runs', nargs='*', metavar='REPORT STATUS',
                        help="each run's JSON report and ReFrame's exit "
                             'status')


def command(args):
    argv = args.runs
    if not argv or len(argv) % 2 or not all(s.isdigit()
                                            for s in argv[1::2]):
        print(' '.join(__doc__.strip().splitlines()[-2:]), file=sys.stderr)
        return 3

    status, message = of_run(finished_run.read(
        list(zip(argv[::2], map(int, argv[1::2])))))
    print(message, file=sys.stderr if status else sys.stdout)
    return status
