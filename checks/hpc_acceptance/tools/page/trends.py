'''Figures of a session next to the stored runs of the same identity.

For each figure (performance variable) of each test case of a session: the
values of the last ``runs`` stored runs of the same
:func:`~..results.runs.figure_key` (same inputs, same
identity) up to and including this
session, the band it is judged against and its verdict. A session that ran
a check on every node of a partition (a fleet run) is one point: the median
of its nodes, so that a trend of 1000 nodes is one plot, not 1000 (the
nodes are compared with each other on the heat map, :mod:`.heat_map`).
Its verdict:

- with a reference file: the reference band, ``ref * (1 + lower)`` to
  ``ref * (1 + upper)``, and whether the point is in it;
- without one: the noise band of the earlier runs, their median +- the
  band of :func:`..references.noise.band` with the family's
  minimum (the system's own floors where it measured them,
  :mod:`..references.calibration`; what ``propose-references`` and
  ``post-upgrade`` use), and ``drift`` when the value leaves it (from 3
  earlier runs on).

A figure whose nightly series ends on a persistent shift
(:mod:`..shifts.nightly`) carries it (:attr:`Trend.shift`): the plot marks
its first night.
'''

import statistics
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results import units
from hpc_acceptance.tools.results.runs import (describe_key, figure_key,
                                               figures_of)

#: Runs a trend shows by default.
DEFAULT_RUNS = 30

#: The most trends a page draws a plot of (the others are listed as
#: text), the checks with a failed, shifted or drifted figure first. A
#: trend is a figure of a partition, whatever its nodes: a partition's 38
#: fleet test cases have about 150 figures, a site of ten partitions
#: 1,500. A plot took 0.67 s on the loaded 2-core guest (2026-11-28).
MAX_TREND_PLOTS = 2000

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
    #: the :class:`..shifts.nightly.Shift` the series ends on, or ``None``
    shift: object = None

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


def history_by_key(history, sessions, until):
    '''``{trend key: [[test case, ...], ...]}`` of the stored runs with
    figures before ``until`` (a completion time): per key, the cases of
    each session (one, or one per node of a fleet run), sessions oldest
    first; the cases of ``sessions`` (this run's) left out.'''
    by_key = {}
    for case in history:
        if (case.get('fixture') or case.get('session_uuid') in sessions
                or not _perf(case) or _when(case) > until):
            continue

        runs = by_key.setdefault(figure_key(case), {})
        runs.setdefault(case.get('session_uuid'), []).append(case)

    return {key: sorted(runs.values(), key=lambda cases: _when(cases[-1]))
            for key, runs in by_key.items()}


def _point(cases, variable, unit):
    '''``(when, value)`` of a session's cases of one key: the median of
    its nodes' measurements (:func:`..results.runs.figures_of`: no word,
    NaN or implausible figure), in ``unit`` (a value in a unit that is no
    multiple of it left out); ``None`` if none has the figure.'''
    values = [units.convert(*figures[variable], unit) for c in cases
              for figures in [figures_of(c)] if variable in figures]
    values = [value for value in values if value is not None]
    if not values:
        return None

    return max(_when(c) for c in cases), statistics.median(values)


def _by_key(current):
    grouped = OrderedDict()
    for case in current:
        if not case.get('fixture'):
            grouped.setdefault(figure_key(case), []).append(case)

    return grouped


def _reference_band(value_ref, lower, upper):
    if not value_ref or (lower is None and upper is None):
        return None

    return (None if lower is None else value_ref * (1 + lower),
            None if upper is None else value_ref * (1 + upper))


def _noise_band(check, values, floors):
    median, width = noise.band(values, noise.family_floor(check, floors))
    return noise.limits(median, width)


def _outside(value, band):
    low, high = band
    return ((low is not None and value < low) or
            (high is not None and value > high))


def build(current, history, runs=DEFAULT_RUNS, floors=None, shifts=()):
    '''The :class:`Trend` of every figure of the ``current`` test cases
    (of one run: one session, or the two of a fleet run); ``floors`` the
    system's own noise floors, ``shifts`` the run's shifts across nights
    (those of a figure's one series are marked on its trend).'''
    shifted = {(s.key, s.variable): s for s in shifts
               if s.node is None and not s.recovered}
    until = max([_when(c) for c in current] + [0.0]) or float('inf')
    sessions = {c.get('session_uuid') for c in current}
    earlier = history_by_key(history, sessions, until)
    trends = []
    for key, cases in _by_key(current).items():
        before = earlier.get(key, [])[-(runs - 1):] if runs > 1 else []
        variables = OrderedDict((name, perf) for case in cases
                                for name, perf in sorted(_perf(case).items()))
        for variable, perf in variables.items():
            _, ref, lower, upper, unit = perf[:5]
            now = _point(cases, variable, unit)
            if now is None:
                # no node measured it: the run's verdict names it
                continue

            past = [p for p in (_point(c, variable, unit) for c in before)
                    if p]
            trend = Trend(key, variable, unit, past + [now])
            band = _reference_band(ref, lower, upper)
            if band:
                # the point's own verdict: a fleet's median may be in the
                # band while a node failed (the node is on the heat map)
                trend.band, trend.band_kind = band, 'reference'
                trend.verdict = 'fail' if _outside(now[1], band) else 'pass'
            else:
                earlier_values = [v for _, v in past] or [now[1]]
                trend.band = _noise_band(key[0], earlier_values, floors)
                trend.verdict = ('drift' if len(past) >= MIN_RUNS_FOR_DRIFT
                                 and _outside(now[1], trend.band)
                                 else 'pass')

            trend.shift = shifted.get((key, variable))
            trends.append(trend)

    return trends


def by_check(trends):
    '''``[(figure key, its trends)]``, the checks with a failed figure
    first, then those with a shifted one, then a drifted one, then by
    name: the order the page shows them in.'''
    grouped = OrderedDict()
    for trend in trends:
        grouped.setdefault(trend.key, []).append(trend)

    def worst(item):
        verdicts = {t.verdict for t in item[1]}
        shifted = any(t.shift for t in item[1])
        return (0 if 'fail' in verdicts else 1 if shifted else
                2 if 'drift' in verdicts else 3, describe_key(item[0]))

    return sorted(grouped.items(), key=worst)
