'''Figures of a session next to the stored runs of the same identity.

For each figure (performance variable) of each test case of a session: the
values of the last ``runs`` stored runs of the same
:func:`~hpc_acceptance.tools.results.figure_key` (same inputs, same
identity) up to and including this
session, the band it is judged against and its verdict:

- with a reference file: the reference band, ``ref * (1 + lower)`` to
  ``ref * (1 + upper)``, and ReFrame's own pass/fail;
- without one: the noise band of the earlier runs, their median +- the
  band of :func:`hpc_acceptance.tools.noise.band` with the family's
  minimum (what ``propose-references`` and ``post-upgrade`` use), and
  ``drift`` when the value leaves it (from 3 earlier runs on).
'''

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from hpc_acceptance.tools import noise
from hpc_acceptance.tools.results import describe_key, figure_key

#: Runs a trend shows by default.
DEFAULT_RUNS = 30

#: Earlier runs a noise band needs before a value can drift out of it, as
#: ``post-upgrade --min-runs``: the band of one or two runs is their noise
#: of a moment, and called most figures drifted on a busy night.
MIN_RUNS_FOR_DRIFT = 3


@dataclass
class Trend:
    key: tuple
    variable: str
    unit: str
    #: ``[(completion time, value)]``, oldest first, this session's last
    points: List[Tuple[float, float]] = field(default_factory=list)
    #: ``(low, high)``; either may be ``None`` (unbounded)
    band: Tuple[Optional[float], Optional[float]] = (None, None)
    #: ``reference`` or ``noise``
    band_kind: str = 'noise'
    #: ``pass``, ``fail`` or ``drift``
    verdict: str = 'pass'

    @property
    def current(self):
        return self.points[-1][1]

    @property
    def title(self):
        return f'{describe_key(self.key)}: {self.variable}'


def _perf(case):
    '''``{variable: [value, ref, lower, upper, unit, result]}``.'''
    return {name.split(':')[-1]: perf
            for name, perf in (case.get('perfvalues') or {}).items()
            if perf[0] is not None}


def _when(case):
    return case.get('job_completion_time_unix') or 0.0


def history_by_key(history, session_uuid, until):
    '''``{trend key: [test case, ...]}`` of the stored runs with figures
    before ``until`` (a completion time), one per session, oldest first;
    this session's own cases left out.'''
    by_key = {}
    for case in history:
        if (case.get('fixture') or case.get('session_uuid') == session_uuid
                or not _perf(case) or _when(case) > until):
            continue

        sessions = by_key.setdefault(figure_key(case), {})
        sessions[case.get('session_uuid')] = case

    return {key: sorted(sessions.values(), key=_when)
            for key, sessions in by_key.items()}


def _reference_band(value_ref, lower, upper):
    if not value_ref or (lower is None and upper is None):
        return None

    return (None if lower is None else value_ref * (1 + lower),
            None if upper is None else value_ref * (1 + upper))


def _noise_band(check, values):
    median, width = noise.band(values, noise.family_floor(check))
    return noise.limits(median, width)


def _outside(value, band):
    low, high = band
    return ((low is not None and value < low) or
            (high is not None and value > high))


def build(current, history, runs=DEFAULT_RUNS):
    '''The :class:`Trend` of every figure of the ``current`` test cases.'''
    until = max([_when(c) for c in current] + [0.0]) or float('inf')
    session = next((c.get('session_uuid') for c in current), None)
    earlier = history_by_key(history, session, until)
    trends = []
    for case in current:
        if case.get('fixture'):
            continue

        key = figure_key(case)
        before = earlier.get(key, [])[-(runs - 1):] if runs > 1 else []
        for variable, perf in sorted(_perf(case).items()):
            value, ref, lower, upper, unit, result = perf
            past = [(_when(c), float(_perf(c)[variable][0]))
                    for c in before if variable in _perf(c)]
            trend = Trend(key, variable, unit,
                          past + [(_when(case), float(value))])
            band = _reference_band(ref, lower, upper)
            if band:
                trend.band, trend.band_kind = band, 'reference'
                trend.verdict = 'fail' if result == 'fail' else 'pass'
            else:
                earlier_values = [v for _, v in past] or [float(value)]
                trend.band = _noise_band(key[0], earlier_values)
                trend.verdict = ('drift' if len(past) >= MIN_RUNS_FOR_DRIFT
                                 and _outside(float(value), trend.band)
                                 else 'pass')

            trends.append(trend)

    return trends
