'''The persistent shifts a run ends: each of its figures' nightly series
searched (:mod:`.detect`), named (:mod:`.night_facts`) and judged
(:mod:`.limit`).

A figure's series is its value in each stored session of the same
:func:`~..results.runs.figure_key` (same check, variant, partition,
environment and inputs), the last :data:`.detect.WINDOW` of them up to and
including this run; in a fleet run one series per node (the node's own
nights), else one per figure. The summary, the report page, the verdict
and the export all read the shifts from :func:`of_run`, which reads the
results database once per process.
'''

import datetime
import functools
import os
import statistics
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from hpc_acceptance.tools.fleet.comparison import is_fleet_run
from hpc_acceptance.tools.fleet.model import node_of
from hpc_acceptance.tools.results import db, measurement
from hpc_acceptance.tools.results.runs import (ResultsError, describe_key,
                                               figure_key, stored_testcases)
from hpc_acceptance.tools.shifts import detect, limit, night_facts

#: The stored sessions a series is read from.
HISTORY = 'now-365d:now'


@dataclass
class Shift:
    key: tuple
    variable: str
    unit: str
    #: the node of a fleet run's series, else ``None``
    node: Optional[str]
    point: detect.ChangePoint
    #: ``[(completion time, value)]`` of the series, oldest first
    nights: List[Tuple[float, float]]
    #: :func:`.night_facts.changes` from the night before to the first
    changed: list = field(default_factory=list)
    #: the performance loss that fails the run, and what it is
    limit: Optional[float] = None
    limit_source: Optional[str] = None
    #: tonight's test case of the series
    case: dict = None

    @property
    def since(self):
        '''Completion time of the first night at the new level.'''
        return self.nights[self.point.index][0]

    @property
    def loss(self):
        return limit.loss(self.point.size, self.unit)

    @property
    def worse(self):
        return self.loss > 0

    @property
    def failing(self):
        return self.worse and self.limit is not None and \
            self.loss > self.limit

    @property
    def figure(self):
        where = f' on {self.node}' if self.node else ''
        return f'{describe_key(self.key)}{where}: {self.variable}'

    def describe(self):
        '''``triad -7.0 % since 2026-11-03 (3 nights, confidence 99.9 %),
        the night the kernel went from X to Y``, and why it fails the run
        where it does.'''
        point = self.point
        text = (f'{self.figure} {100 * point.size:+.1f} % since '
                f'{date(self.since)} ({point.after} nights, confidence '
                f'{confidence(point.confidence)}), '
                f'{_that_night(self.changed)}')
        if self.failing:
            text += (f'; more than {self.limit_source}, '
                     f'{100 * self.limit:.0f} %')

        return text


def _that_night(changed):
    if not changed:
        return 'a night when nothing the runs recorded changed'

    return f'the night {night_facts.describe(changed)}'


def confidence(value):
    '''``99.87 %``; ``> 99.99 %`` above that.'''
    return '> 99.99 %' if value > 0.9999 else f'{100 * value:.2f} %'


def date(when):
    return datetime.datetime.fromtimestamp(
        when, datetime.timezone.utc).strftime('%Y-%m-%d')


def _when(case):
    return case.get('job_completion_time_unix') or 0.0


def _figures(case):
    '''``{variable: perf}`` of a test case's figures that are
    measurements (:mod:`..results.measurement`): no measurement is no
    night of a series.'''
    values = case.get('perfvalues')
    return {str(name).split(':')[-1]: perf
            for name, perf in (values.items() if isinstance(values, dict)
                               else ())
            if isinstance(perf, (list, tuple)) and len(perf) >= 5 and
            measurement.value(perf[0]) is not None}


def _series_key(case, per_node):
    return figure_key(case), node_of(case) if per_node else None


def _nights(history, sessions, until, per_node):
    '''``{(figure key, node): [[case, ...] per session, oldest first]}``
    of the stored runs before ``until``, the runs of ``sessions`` left
    out.'''
    found = {}
    for case in history:
        if (case.get('fixture') or case.get('session_uuid') in sessions or
                not _figures(case) or _when(case) > until):
            continue

        runs = found.setdefault(_series_key(case, per_node), {})
        runs.setdefault(case.get('session_uuid'), []).append(case)

    return {key: sorted(runs.values(), key=lambda cases: _when(cases[-1]))
            for key, runs in found.items()}


def _point(cases, variable):
    '''``(when, value, a case)`` of one session: the median of its cases
    (the retries of a case, or several nodes of a series that is not per
    node); ``None`` without the figure.'''
    measured = [c for c in cases if variable in _figures(c)]
    values = [float(_figures(c)[variable][0]) for c in measured]
    if not values:
        return None

    return (max(_when(c) for c in measured), statistics.median(values),
            measured[-1])


def find(current, history, limits=None):
    '''The :class:`Shift` of every figure of the ``current`` test cases
    (one run) whose series, with the stored runs in ``history``, ends on
    a persistent shift. ``limits``: :func:`.limit.site_limits`.'''
    limits = limits or limit.site_limits()
    cases = [c for c in current if not c.get('fixture') and _figures(c)]
    until = max([_when(c) for c in cases] + [0.0]) or float('inf')
    per_node = is_fleet_run(cases)
    earlier = _nights(history, {c.get('session_uuid') for c in cases},
                      until, per_node)
    tonight = {}
    for case in cases:
        tonight.setdefault(_series_key(case, per_node), []).append(case)

    shifts = []
    for (key, node), runs in tonight.items():
        before = earlier.get((key, node), [])[-(detect.WINDOW - 1):]
        for variable, perf in sorted(_figures(runs[-1]).items()):
            points = [p for p in (_point(r, variable)
                                  for r in before + [runs]) if p]
            if len(points) < detect.MIN_BEFORE + detect.MIN_NIGHTS:
                continue

            point = detect.latest_shift([value for _, value, _ in points])
            if point is None:
                continue

            first = point.index
            shift = Shift(key, variable, perf[4], node, point,
                          [(when, value) for when, value, _ in points],
                          night_facts.changes(points[first - 1][2],
                                              points[first][2]))
            shift.limit, shift.limit_source = limit.limit_of(key[0], perf,
                                                             limits)
            shift.case = runs[-1]
            shifts.append(shift)

    return sorted(shifts, key=lambda s: (not s.failing, not s.worse,
                                         s.figure))


@functools.lru_cache(maxsize=4)
def _stored(path, mtime_ns, query):
    return stored_testcases(query)


def history(query=HISTORY):
    '''The stored test cases of ``query``, read once per process and
    version of the results database.'''
    path = db.database_path()
    if not os.path.exists(path):
        return []

    return _stored(path, os.stat(path).st_mtime_ns, query)


def of_run(current):
    ''':func:`find` of a run's test cases against the results database;
    none where the database cannot be read (the run's other tools say
    so).

    :raises .limit.LimitError: if the site's shift limit cannot be read.
    '''
    try:
        return find(current, history())
    except ResultsError:
        return []
