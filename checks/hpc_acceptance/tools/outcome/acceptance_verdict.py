'''The acceptance verdict of a finished run: its exit status and message,
from its test cases, the comparison of its nodes and its figures' shifts;
a function of the run alone.
'''

from collections import Counter

from hpc_acceptance.tools.fleet import history
from hpc_acceptance.tools.fleet.comparison import judged_by_siblings
from hpc_acceptance.tools.fleet.model import FleetError
from hpc_acceptance.tools.references import noise, unreferenced
from hpc_acceptance.tools.results.runs import (FAILED_RESULTS,
                                               figures_and_unmeasured,
                                               final_testcases,
                                               passed_on_retry)


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

        figures, missing = figures_and_unmeasured(case)
        found += [f'{case["display_name"]}: no measurement of {variable} '
                  f'({why})' for variable, (why, _) in sorted(
                      missing.items())]
        if not missing and not figures and noise.family_of(
                case['display_name'].split()[0]):
            found.append(f'{case["display_name"]}: no measurement: no '
                         f'figure reported')

    return sorted(found)


def judge(report, fleets=None, fleet_note=None, shifts=(), fleet_error=None,
          unreferenced_ok=frozenset(), *, db_path):
    '''Return ``(exit status, message)`` for a parsed report; the
    message's last line is the verdict. ``fleets`` is the run's fleet
    comparison (:func:`..fleet.history.compare_nodes`), made here from the
    report and the earlier fleet runs in the results database ``db_path``
    where not given, ``fleet_error`` why it could not be made; ``shifts``
    its figures' shifts across nights (:func:`..shifts.nightly.shifts_of`),
    those that fail the run among them; ``unreferenced_ok`` the systems
    the site lets pass without a reference file (its settings').'''
    if fleets is None and fleet_error is None:
        try:
            fleets, fleet_note = history.compare_nodes(
                final_testcases(report), report.get('session_info') or {},
                db_path)
        except FleetError as err:
            fleet_error = str(err)

    return _judged(report, fleets, fleet_note, shifts, fleet_error,
                   unreferenced_ok)


def _judged(report, fleets, fleet_note, shifts, fleet_error,
            unreferenced_ok):
    ''':func:`judge` of a report whose fleet comparison was made (or why
    it could not be): a function of these alone.'''
    cases = final_testcases(report)
    results, failures = tally(report)
    unmeasured_figures = no_measurements(cases)
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
    refused = unreferenced.refused(unjudged, unreferenced_ok)
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


def verdict_of(run, unreferenced_ok=frozenset()):
    '''``(exit status, message)`` of the :class:`.finished_run.FinishedRun`
    ``run``, judged with the site's list of systems that may pass without
    references ``unreferenced_ok``; the message's last line is the
    verdict. A function of these two alone.'''
    if run.unjudged:
        return 3, f'acceptance NOT VALIDATED: {run.unjudged}'

    if run.ran_nothing:
        return 2, ('acceptance NOT VALIDATED: no check was selected (ReFrame '
                   'ran no test case and wrote no report)')

    if run.shift_error:
        return 2, f'acceptance NOT VALIDATED: {run.shift_error}'

    return _judged(run.report, run.fleets or [], run.fleet_note, run.shifts,
                   run.fleet_error, unreferenced_ok)
