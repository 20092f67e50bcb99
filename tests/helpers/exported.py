'''What a run's JSON report says the store must hold, worked out from the
report's own fields (not with the export's code), and the dashboard's
queries as Grafana sends them.'''

import json
import re
import time

import pytest

from conftest import PROJECT_DIR

DASHBOARD = PROJECT_DIR / 'config' / 'grafana' / 'hpc-acceptance.json'


def _case_labels(case, info):
    check, *words = case['display_name'].split()
    labels = {'system': case['system'], 'partition': case['partition'],
              'environ': case['environ'], 'node': case['node'],
              'check': check, 'identity': case['identity'],
              'mode': info.get('suite_mode', 'none')}
    for name in ('fleet', 'post_upgrade'):
        if name in info:
            labels[name] = info[name]

    labels.update(word[1:].split('=', 1) for word in words
                  if not word.startswith('%.'))
    return labels


def expected_samples(report):
    '''``[(labels with __name__, value, time in ms)]`` of every attempt of
    every test case of a report that ran (fixtures and skips left out).'''
    info = report['session_info']
    samples = []
    for run in report['runs']:
        for case in run['testcases']:
            if case['fixture'] or case['result'] == 'skip':
                continue

            labels = _case_labels(case, info)
            when = round(case['job_completion_time_unix'] * 1000)
            samples.append((dict(labels,
                                 __name__='hpc_acceptance_check_passed'),
                            1 if case['result'] == 'pass' else 0, when))
            for name, perf in case['perfvalues'].items():
                value, ref, lower, upper, unit, result = perf
                figure = dict(labels, figure=name.split(':')[-1], unit=unit)
                values = {'figure': value,
                          'figure_passed': 1 if result == 'pass' else 0}
                if lower is not None or upper is not None:
                    # the project's references are positive
                    values['reference'] = ref
                    if lower is not None:
                        values['lower_bound'] = ref * (1 + lower)
                    if upper is not None:
                        values['upper_bound'] = ref * (1 + upper)

                samples += [(dict(figure,
                                  __name__=f'hpc_acceptance_{series}'),
                             value, when)
                            for series, value in values.items()]

    return samples


def of_report(samples, report):
    '''Those of the store's ``samples`` at the times of the report's test
    cases.'''
    times = {round(c['job_completion_time_unix'] * 1000)
             for run in report['runs'] for c in run['testcases']
             if c['job_completion_time_unix']}
    return [s for s in samples if s[2] in times]


#: Seconds a sample the store took may take to show in its answers: a
#: series VictoriaMetrics 1.79 has just registered was seen missing from
#: them for 7 s (a fresh checkout's first run), force_flush or not.
VISIBLE_WITHIN_S = 60


def assert_stored_as_reported(store, report):
    '''The store holds each sample the report implies once, with its
    labels, time and value, and nothing else at the report's times.'''
    expected = {(json.dumps(labels, sort_keys=True), when): value
                for labels, value, when in expected_samples(report)}
    deadline = time.monotonic() + VISIBLE_WITHIN_S
    while True:
        stored = of_report(store.export(), report)
        keys = [(json.dumps(labels, sort_keys=True), when)
                for labels, _, when in stored]
        if set(keys) >= set(expected) or time.monotonic() > deadline:
            break

        time.sleep(0.5)

    missing = sorted(set(expected) - set(keys))
    unexpected = sorted(set(keys) - set(expected))
    twice = sorted({key for key in keys if keys.count(key) > 1})
    assert not (missing or unexpected or twice), (
        f'not stored: {missing[:5]} ({len(missing)}); stored, not in the '
        f'report: {unexpected[:5]} ({len(unexpected)}); stored twice: '
        f'{twice[:5]} ({len(twice)})')
    for (key, value) in zip(keys, (value for _, value, _ in stored)):
        assert value == pytest.approx(expected[key], rel=1e-12), key


#: The dashboard's panels, by their ids; a test queries each against the
#: store: the nightly's (tests/e2e/test_export_to_store.py) the trend and the
#: failures, the fleet run's (tests/e2e/test_fleet_run.py) the others.
TREND, SPREAD, FAILURES, SUSPECTS = 1, 2, 3, 4


def panel(number):
    '''The dashboard's panel of id ``number``.'''
    found, = [p for p in json.loads(DASHBOARD.read_text())['panels']
              if p['id'] == number]
    return found


def _variables():
    '''``{name: value}`` Grafana puts into a query for each template
    variable at its default: the "All" value, or the current values as a
    regular expression.'''
    values = {}
    for variable in json.loads(DASHBOARD.read_text())['templating']['list']:
        current = variable.get('current', {}).get('value')
        if isinstance(current, str):
            current = [current]
        if not current or current == ['$__all']:
            values[variable['name']] = variable.get('allValue', '.*')
        else:
            values[variable['name']] = '(' + '|'.join(current) + ')'

    return values


def queries(panel, interval='60s', **chosen):
    '''``[(expression, instant)]`` of a panel's targets, the variables
    replaced (at their defaults, or the values ``chosen``), and Grafana's
    ``$__interval`` by ``interval`` (Grafana's step for the panel's width
    and time range).'''
    values = dict(_variables(), __interval=interval, **chosen)
    return [(re.sub(r'\$(\w+)', lambda m: values[m[1]], target['expr']),
             target.get('instant', False))
            for target in panel['targets']]


def legend(target, labels):
    '''The name Grafana gives the series of ``labels`` that ``target``
    returned: its legendFormat with each ``{{label}}`` replaced (an absent
    label by nothing).'''
    return re.sub(r'\{\{\s*(\w+)\s*\}\}',
                  lambda m: labels.get(m[1], ''), target['legendFormat'])
