'''A test case's figures as series of a time-series store, in the JSON-line
format of VictoriaMetrics' import API::

    {"metric": {"__name__": "hpc_acceptance_figure", "check": ...},
     "values": [20746.5], "timestamps": [1795624054114]}

A *test case* is a mapping of ReFrame's test-case fields, as the JSON
report and the results database keep them and as a performance log record
carries them (``display_name``, ``system``, ``partition``, ``environ``,
``node``, ``identity``, ``perfvalues``, ``result``,
``job_completion_time_unix``): a figure sent as it is logged and the same
figure read back from the database later give the same series and time,
which is what tells that it was sent already.

Series of each figure, labelled as the figure (:func:`figure_labels`),
at the time its job completed:

- :data:`FIGURE`: the value;
- :data:`REFERENCE`, :data:`LOWER_BOUND`, :data:`UPPER_BOUND`: the
  reference it was compared with and the bounds, absolute (ReFrame's
  fractions applied as ReFrame applies them), where it had a reference;
  an open side has no bound;
- :data:`FIGURE_PASSED`: 1 within its bounds, 0 not.

:data:`CHECK_PASSED` (1 passed, 0 failed; skips are not sent) is the
outcome of the test case, labelled as the test case
(:func:`case_labels`). :data:`SUSPECT` (1 a suspect, 0 not) is each node
of a fleet run compared with its siblings (:func:`suspect_line`). Values
never go into labels; labels are strings, and an empty one is left out
(the store drops empty labels).
'''

import hashlib
import json
import math
import re

from reframe.utility.sanity import reference_bounds

FIGURE = 'hpc_acceptance_figure'
REFERENCE = 'hpc_acceptance_reference'
LOWER_BOUND = 'hpc_acceptance_lower_bound'
UPPER_BOUND = 'hpc_acceptance_upper_bound'
FIGURE_PASSED = 'hpc_acceptance_figure_passed'
CHECK_PASSED = 'hpc_acceptance_check_passed'
SUSPECT = 'hpc_acceptance_suspect'

#: Labels this module sets itself; a check parameter of one of these names
#: is labelled ``param_<name>``.
RESERVED = frozenset({'__name__', 'system', 'partition', 'environ', 'node',
                      'check', 'identity', 'figure', 'unit', 'mode',
                      'fleet', 'post_upgrade'})

#: ReFrame's results that count as failed, as
#: :data:`hpc_acceptance.tools.results.runs.FAILED_RESULTS`.
_FAILED = frozenset({'fail', 'abort', 'fail_deps'})
_PARAM = re.compile(r'%(?P<name>[A-Za-z_]\w*)=(?P<value>\S+)')
# ReFrame's --distribute adds the parameter ".nid", shown as %.nid=<node>
_NID = re.compile(r'%\.nid=(\S+)')


def run_labels(extras):
    '''The run's labels from its session extras: ``mode`` (the
    ``suite_mode`` a mode of ``config/settings.py`` sets, ``none`` when
    ReFrame ran without one), ``fleet`` (``yes`` in a fleet run) and
    ``post_upgrade`` (``before``, ``after``, ``confirm``).'''
    labels = {'mode': str(extras.get('suite_mode') or 'none')}
    for name in ('fleet', 'post_upgrade'):
        if extras.get(name):
            labels[name] = str(extras[name])

    return labels


def node_of(case):
    '''The node a test case ran on, as
    :func:`hpc_acceptance.tools.fleet.model.node_of` reads it: what its job
    reported, else the node ``--distribute`` pinned it to, else its job's
    only node; ``''`` when unknown.'''
    if case.get('node'):
        return str(case['node'])

    match = _NID.search(case.get('display_name') or '')
    if match:
        return match[1]

    nodes = case.get('job_nodelist') or []
    if isinstance(nodes, str):
        nodes = [nodes] if nodes else []

    return str(nodes[0]) if len(nodes) == 1 else ''


def case_labels(case, extras):
    '''Labels of a test case: system, partition, environment, node, check,
    each variant parameter (ReFrame's own, ``%.part`` and ``%.nid``, left
    out), the identity of its figures and the run's labels.'''
    words = case['display_name'].split()
    labels = {'system': case['system'], 'partition': case['partition'],
              'environ': case['environ'], 'node': node_of(case),
              'check': words[0], 'identity': case.get('identity') or ''}
    for match in _PARAM.finditer(' '.join(words[1:])):
        name = match['name']
        labels[f'param_{name}' if name in RESERVED else name] = \
            match['value']

    labels.update(run_labels(extras))
    return {name: str(value) for name, value in labels.items() if value}


def timestamp_ms(unix_time):
    return int(round(float(unix_time) * 1000))


def line(name, labels, value, when_ms):
    '''One sample of the series ``name{labels}``.'''
    return {'metric': {'__name__': name, **labels},
            'values': [value], 'timestamps': [when_ms]}


def key(sample):
    '''What identifies a sample: its series and time (not its value).'''
    text = json.dumps([sorted(sample['metric'].items()),
                       sample['timestamps']], separators=(',', ':'))
    return hashlib.sha256(text.encode()).hexdigest()


def _number(value):
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None

    return value if math.isfinite(value) else None


def _passed(result):
    return {'pass': 1, 'fail': 0}.get(result)


def _figure_lines(labels, perf, when_ms):
    value, ref, lower, upper, unit, result = perf
    value = _number(value)
    if value is None:
        return []

    labels = dict(labels, unit=str(unit)) if unit else labels
    lines = [line(FIGURE, labels, value, when_ms)]
    if ref is not None and (ref != 0 or lower is not None or
                            upper is not None):
        lines.append(line(REFERENCE, labels, float(ref), when_ms))
        low, high = reference_bounds(ref, lower, upper)
        for name, bound in ((LOWER_BOUND, low), (UPPER_BOUND, high)):
            if _number(bound) is not None:
                lines.append(line(name, labels, float(bound), when_ms))

    if _passed(result) is not None:
        lines.append(line(FIGURE_PASSED, labels, _passed(result), when_ms))

    return lines


def figure_lines(case, extras):
    '''The samples of every figure of a test case (none before its job
    completed, or when it has no figure); a value that is no finite
    number is left out.'''
    when = case.get('job_completion_time_unix')
    if case.get('fixture') or when is None:
        return []

    labels = case_labels(case, extras)
    return [sample for name, perf in (case.get('perfvalues') or {}).items()
            for sample in _figure_lines(
                dict(labels, figure=name.split(':')[-1]), perf,
                timestamp_ms(when))]


def check_line(case, extras, fallback_time=None):
    ''':data:`CHECK_PASSED` of a test case, at the time its job completed
    (else at ``fallback_time``, the end of its run); ``None`` for a
    fixture, a skip, or a case of no time.'''
    passed = 0 if case.get('result') in _FAILED else \
        _passed(case.get('result'))
    when = case.get('job_completion_time_unix') or fallback_time
    if case.get('fixture') or passed is None or when is None:
        return None

    return line(CHECK_PASSED, case_labels(case, extras), passed,
                timestamp_ms(when))


def case_lines(case, extras, fallback_time=None):
    '''Every sample of a test case: its figures and its outcome.'''
    outcome = check_line(case, extras, fallback_time)
    return figure_lines(case, extras) + ([outcome] if outcome else [])


def suspect_line(partition, node, suspect, extras, when):
    ''':data:`SUSPECT` of ``node`` of ``partition`` (``system:partition``)
    in a fleet run of session ``extras`` that ended at ``when``.'''
    system, name = partition.split(':', 1)
    return line(SUSPECT, {'system': system, 'partition': name, 'node': node,
                          **run_labels(extras)},
                int(suspect), timestamp_ms(when))
