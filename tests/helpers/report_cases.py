'''The test cases of a reframe run, read from its JSON report and looked up
by check class and parameters (display names carry every parameter,
including the hardware variants, so tests do not spell them out).'''

import json

from hpc_acceptance.tools.results.runs import variant_of

#: Selects the default hardware variants only (native ISA, Turbo and SMT as
#: configured): what a test that is not about variants runs.
DEFAULT_VARIANTS = ['--exclude-tag=variant']

#: The figures of the clock probe every check runs before and after its
#: benchmark (hpc_acceptance.core.variants).
CLOCK_FIGURES = {'core_clock', 'core_clock_median',
                 'best_to_median_core_clock'}


def results(report_file):
    '''``{display name: test case}`` of the last run, fixtures left out.'''
    report = json.loads(report_file.read_text())
    return {case['display_name']: case
            for case in report['runs'][-1]['testcases']
            if not case['fixture']}


def case_of(cases, check, **params):
    '''The test case of ``check`` whose parameters include ``params``.'''
    found = [case for name, case in cases.items()
             if variant_of(name)[0] == check and
             params.items() <= variant_of(name)[1].items()]
    assert len(found) == 1, (check, params, list(cases))
    return found[0]


def skip_reasons(report_file):
    '''``{display name: reason}`` of the skipped test cases of the last run,
    fixtures left out: the reason each check recorded (``skip_reason``).'''
    return {name: case['skip_reason']
            for name, case in results(report_file).items()
            if case['result'] == 'skip'}
