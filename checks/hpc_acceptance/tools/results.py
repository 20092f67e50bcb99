'''Test cases of past runs: from ReFrame's results database or a JSON report.

Both give ReFrame's test-case records (``display_name``, ``result``,
``system``, ``partition``, ``environ``, ``perfvalues``, ...).
'''

import csv
import io
import json
import os
import re
import subprocess
import sys

from hpc_acceptance.core.paths import PROJECT_DIR

#: The reframe next to this Python: the one of the project's environment.
REFRAME = os.path.join(os.path.dirname(sys.executable), 'reframe')

#: The project's configuration.
CONFIG = PROJECT_DIR / 'config' / 'settings.py'

#: Results of a test case that count as failed: it failed, was aborted, or
#: could not run because a dependency failed.
FAILED_RESULTS = frozenset({'fail', 'abort', 'fail_deps'})
_PARAM = re.compile(r'%(?P<name>[A-Za-z_]\w*)=(?P<value>\S+)')
_DEFAULT_PARAMETERS = {'%isa=native', '%turbo=as-configured',
                       '%smt=as-configured'}


class ResultsError(RuntimeError):
    '''Past results cannot be read; the message says from where.'''


def stored_testcases(query, reframe=REFRAME, config=CONFIG):
    '''Test cases of the stored sessions selected by ``query`` (a period,
    session UUID or filter, as ``--describe-stored-testcases`` takes).'''
    done = subprocess.run(
        [reframe, '-C', str(config), '--describe-stored-testcases', query],
        capture_output=True, text=True
    )
    if done.returncode != 0:
        raise ResultsError(f'reframe could not read the results database: '
                           f'{done.stderr.strip() or done.stdout.strip()}')

    try:
        return json.loads(done.stdout or '[]')
    except json.JSONDecodeError as err:
        raise ResultsError(f'unexpected output of reframe '
                           f'--describe-stored-testcases: {err}') from None


def stored_sessions(query, reframe=REFRAME, config=CONFIG):
    '''``[{column: value}]`` of the stored sessions selected by ``query``
    (``UUID``, ``Start time``, ... and the session extras such as
    ``suite_mode``), as ``--list-stored-sessions`` lists them.'''
    done = subprocess.run(
        [reframe, '-C', str(config), f'--list-stored-sessions={query}',
         '--table-format=csv'], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise ResultsError(f'reframe could not list the stored sessions: '
                           f'{done.stderr.strip() or done.stdout.strip()}')

    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    return sorted(rows, key=lambda row: row.get('Start time', ''))


def final_testcases(report):
    '''Each test case's last outcome in a parsed ReFrame JSON report.

    With ``--max-retries`` (the nightly mode retries a failed check once,
    so that noise is not called a regression) the first run holds every
    test case and each later run only the ones retried: a retried case's
    last attempt replaces its earlier ones.
    '''
    final = {}
    for run in report.get('runs') or []:
        for case in run['testcases']:
            final[_case_id(case)] = case

    return list(final.values())


def passed_on_retry(report):
    '''Display names of the test cases of a parsed report that failed
    and then passed when retried: flaky figures a sysadmin should see.'''
    failed, passed = set(), []
    for run in report.get('runs') or []:
        for case in run['testcases']:
            if case['result'] in FAILED_RESULTS:
                failed.add(_case_id(case))
            elif case['result'] == 'pass' and _case_id(case) in failed:
                passed.append(case['display_name'])

    return passed


def _case_id(case):
    return (case['display_name'], case.get('system'), case.get('environ'))


def report_testcases(path):
    '''Test cases of a ReFrame JSON report, each with its last outcome
    (:func:`final_testcases`).'''
    try:
        with open(path) as fp:
            runs = json.load(fp)['runs']
        return final_testcases({'runs': runs})
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise ResultsError(f'cannot read the run report {path}: '
                           f'{err}') from None


def report_session(path):
    '''The ``session_info`` of a ReFrame JSON report (its UUID, start
    time, the session extras such as ``fleet``).'''
    try:
        with open(path) as fp:
            return json.load(fp).get('session_info') or {}
    except (OSError, json.JSONDecodeError, AttributeError) as err:
        raise ResultsError(f'cannot read the run report {path}: '
                           f'{err}') from None


def variant_of(display_name):
    '''``(class name, {parameter: value})`` from a ReFrame display name.

    Whole numbers come back as ``int``: ReFrame looks references up with
    the parameter's own value, and the numeric parameters are integers.
    '''
    name = display_name.split()[0]
    return name, {m['name']: int(m['value']) if m['value'].isdigit()
                  else m['value'] for m in _PARAM.finditer(display_name)}


def short_name(display_name):
    '''The display name without the hardware variants at their defaults,
    so that a line fits a terminal.'''
    return ' '.join(word for word in display_name.split()
                    if word not in _DEFAULT_PARAMETERS)


def identity_of(case):
    '''The identity of a test case (:mod:`hpc_acceptance.core.identity`):
    the inputs that produced its figures, ``''`` for runs stored before
    checks recorded one.'''
    return case.get('identity') or ''


def figure_key(case):
    '''``(check, partition, environ, params, identity)`` of a test case:
    two runs with the same key measured the same thing. ``params`` is a
    tuple of ``(name, value)`` in the display name's order.

    References, baselines, trends and reports group runs by this one
    function.
    '''
    check, params = variant_of(case['display_name'])
    return (check, f'{case["system"]}:{case["partition"]}', case['environ'],
            tuple(params.items()), identity_of(case))


def figures_of(case):
    '''``{performance variable: (value, unit)}`` of a test case.'''
    return {name.split(':')[-1]: (perf[0], perf[4])
            for name, perf in (case.get('perfvalues') or {}).items()
            if perf[0] is not None}


def describe_key(key):
    '''``check %param=value ... @system:partition+environ`` of a
    :func:`figure_key` (the identity is shown where the figures are).'''
    check, partition, environ, params, _ = key
    return ' '.join([check] + [f'%{p}={v}' for p, v in params] +
                    [f'@{partition}+{environ}'])
