'''The shifts a run ends on: each of its figures' nightly series judged
(:mod:`.detect`) against its accepted level, named (:mod:`.night_facts`)
and held to a limit (:mod:`.limit`).

A figure's series is its value in the stored sessions of the same
:func:`~..results.runs.figure_key` (same check, variant, partition,
environment and inputs) over the last year, up to and including this run;
in a fleet run one series per node (the node's own nights), else one per
figure. A *night* is a calendar day (UTC) of job completions: the
sessions of one day (a rerun, a manual run after the nightly) are one
night, their median, and the night says how many runs it holds. The
summary, the report page, the verdict and the export all read the shifts
from :func:`shifts_of` (or :func:`find` with the history read once).
'''

import datetime
import os
import statistics
from dataclasses import dataclass
from typing import List, Optional, Tuple

from hpc_acceptance.tools.fleet.comparison import is_fleet_run
from hpc_acceptance.tools.fleet.model import node_of
from hpc_acceptance.tools.references import calibration
from hpc_acceptance.tools.results import measurement
from hpc_acceptance.tools.results.runs import (ResultsError, describe_key,
                                               figure_key, stored_testcases)
from hpc_acceptance.tools.shifts import (acknowledged, detect, limit,
                                         night_facts)

#: The stored sessions a series is read from.
HISTORY = 'now-365d:now'

#: The limits where the site set none (:func:`.limit.site_limits`): each
#: figure's reference tolerance and noise floor alone.
NO_SITE_LIMIT = limit.Limits()

#: What cannot be read for the shifts to be judged: the site's limit, the
#: acknowledgements.
UNREADABLE = (limit.LimitError, acknowledged.AcknowledgedError)

#: Nights each side of the estimated first night searched for what
#: changed: the estimate can be a night or two off on a noisy figure.
FACTS_RADIUS = 2


@dataclass
class Night:
    #: completion time of its last run, its value (the median of its runs)
    when: float
    value: float
    #: runs (sessions) that night
    runs: int
    #: its last test case of the series
    case: dict


@dataclass
class Shift:
    key: tuple
    variable: str
    unit: str
    #: the node of a fleet run's series, else ``None``
    node: Optional[str]
    point: detect.Finding
    #: the series' nights, oldest first, tonight's last
    nights: List[Night]
    #: ``(night index, [(name, old, new)])`` of what changed around the
    #: estimated first night (:mod:`.night_facts`), or ``None``
    changed: Optional[Tuple[int, list]] = None
    #: the performance loss that fails the run, and what it is
    limit: Optional[float] = None
    limit_source: Optional[str] = None
    #: the acknowledgement the level is measured from, if any
    ack: Optional[acknowledged.Acknowledged] = None
    #: tonight's test case of the series
    case: dict = None

    @property
    def since(self):
        '''Completion time of the first night away from the accepted
        level (for a recovery: of the first night back).'''
        return self.nights[self.point.index if self.recovered
                           else self.point.left].when

    @property
    def recovered(self):
        return self.point.recovered

    @property
    def loss(self):
        return limit.loss(self.point.size, self.unit)

    @property
    def worse(self):
        return self.loss > 0 and not self.recovered

    @property
    def failing(self):
        return self.worse and self.limit is not None and \
            self.loss > self.limit

    @property
    def figure(self):
        where = f' on {self.node}' if self.node else ''
        return f'{describe_key(self.key)}{where}: {self.variable}'

    @property
    def level(self):
        '''``(mean of the nights at the last level, their count)``, in the
        figure's unit: what an acknowledgement accepts.'''
        values = [n.value for n in self.nights[self.point.index:]]
        return statistics.fmean(values), len(values)

    def change_points(self):
        '''``[(first night's time, size)]`` of the change points of the
        last :data:`.detect.WINDOW` nights.'''
        return [(self.nights[p.index].when, p.size)
                for p in self.point.points]

    def _accepted(self):
        if self.ack:
            return (f'the level acknowledged {self.ack.when} by '
                    f'{self.ack.by}')

        # without an acknowledgement the accepted level is the series'
        # first MIN_BEFORE nights or more (detect.judge)
        return (f'its first {self.point.before} nights from '
                f'{date(self.nights[0].when)}')

    def describe(self):
        '''``triad -14.0 % since 2026-11-03 from its first 20 nights (...;
        5 nights at this level, 6.1 standard errors; change points
        -7.1 % 11-03, -7.0 % 11-10), the kernel went from X to Y the night
        of 2026-11-03``, and why it fails the run where it does.'''
        point = self.point
        if self.recovered:
            return (f'{self.figure} recovered since {date(self.since)} '
                    f'(it was {100 * point.size:+.1f} % against '
                    f'{self._accepted()}, from '
                    f'{date(self.nights[point.left].when)} on), '
                    f'{_that_night(self)}; not a failure')

        tonight = self.nights[-1]
        runs = f', {tonight.runs} runs tonight' if tonight.runs > 1 else ''
        points = '; '.join(f'{100 * size:+.1f} % {date(when)}'
                           for when, size in self.change_points())
        text = (f'{self.figure} {100 * point.size:+.1f} % since '
                f'{date(self.since)} from {self._accepted()} '
                f'({point.after} nights at this level{runs}, '
                f'{point.errors:.1f} standard errors'
                f'{"; change points " + points if points else ""}), '
                f'{_that_night(self)}')
        if self.failing:
            text += (f'; more than {self.limit_source}, '
                     f'{100 * self.limit:.0f} %')

        return text


def _that_night(shift):
    if not shift.changed:
        return (f'nothing the runs recorded changed within {FACTS_RADIUS} '
                f'nights of it')

    index, changed = shift.changed
    return (f'{night_facts.describe(changed)} the night of '
            f'{date(shift.nights[index].when)}')


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


def _runs(history, sessions, until, per_node):
    '''``{(figure key, node): [cases of one session, ...]}`` of the stored
    runs before ``until``, the runs of ``sessions`` left out, sessions
    oldest first.'''
    found = {}
    for case in history:
        if (case.get('fixture') or case.get('session_uuid') in sessions or
                not _figures(case) or _when(case) > until):
            continue

        runs = found.setdefault(_series_key(case, per_node), {})
        runs.setdefault(case.get('session_uuid'), []).append(case)

    return {key: sorted(runs.values(), key=lambda cases: _when(cases[-1]))
            for key, runs in found.items()}


#: The fewest nights a series is judged on (:func:`.detect.judge`).
MIN_NIGHTS = detect.MIN_AFTER + 2


def _points(cases):
    '''``{variable: (when, value, a case)}`` of one session: of each
    figure, the median of its cases (the retries of a case, or several
    nodes of a series that is not per node).'''
    measured = {}
    for case in cases:
        for variable, perf in _figures(case).items():
            measured.setdefault(variable, []).append((case, float(perf[0])))

    return {variable: (max(_when(case) for case, _ in pairs),
                       statistics.median(value for _, value in pairs),
                       pairs[-1][0])
            for variable, pairs in measured.items()}


def nights_of(sessions):
    '''``{variable: [Night]}``: the :class:`Night` of each day of
    ``sessions`` (lists of test cases, oldest first) that measured the
    figure; each case's figures read once, whatever their number. Empty
    for fewer sessions than a judgement needs (:data:`MIN_NIGHTS`): they
    make fewer nights.'''
    if len(sessions) < MIN_NIGHTS:
        return {}

    days = {}
    for session in sessions:
        for variable, point in _points(session).items():
            days.setdefault(variable, {}).setdefault(
                date(point[0]), []).append(point)

    return {variable: [Night(when=points[-1][0],
                             value=statistics.median(p[1] for p in points),
                             runs=len(points), case=points[-1][2])
                       for points in by_day.values()]
            for variable, by_day in days.items()}


def _accepted(ack, nights):
    '''``(level, nights, index)`` for :func:`.detect.judge` of ``ack``.'''
    if ack is None:
        return None

    index = next((i for i, n in enumerate(nights) if n.when >= ack.since),
                 len(nights) - 1)
    return ack.level, ack.nights, index


def floors_by_system(keys, limits):
    '''``{system: (noise floors, whose)}`` of the systems of the series
    ``keys``, read from the reference directories ``limits`` names.'''
    found = {}
    for system in {_system_of(key) for key in keys}:
        floors, _ = calibration.floors_of(system, limits.reference_dirs)
        found[system] = (floors,
                         'the system\'s own' if floors else 'built-in')

    return found


def _system_of(key):
    return key[1].split(':')[0]


def judge_series(key, node, variable, nights, acks, limits, floors):
    '''The :class:`Shift` (or recovery) the nights of one series end on
    for ``variable`` (its :func:`nights_of`), or ``None``; ``floors``: its
    system's noise floors and whose (:func:`floors_by_system`).'''
    if len(nights) < MIN_NIGHTS:
        return None

    figure = (f'{describe_key(key)}{f" on {node}" if node else ""}: '
              f'{variable}')
    ack = acks.get(figure)
    point = detect.judge([n.value for n in nights], _accepted(ack, nights))
    if point is None:
        return None

    perf = _figures(nights[-1].case)[variable]
    shift = Shift(key, variable, perf[4], node, point, nights,
                  ack=ack, case=nights[-1].case)
    first = point.index if point.recovered else point.left
    shift.changed = night_facts.around(
        [n.case for n in nights], first, FACTS_RADIUS)
    shift.limit, shift.limit_source = limit.limit_of(
        key[0], perf, limits, *floors)
    return shift


def ranked(shifts):
    '''Failing first, then worse, then recoveries; each by the size of
    its loss, largest first: a long list is cut at its smallest.'''
    return sorted(shifts, key=lambda s: (not s.failing, s.recovered,
                                         -abs(s.point.size), s.figure))


def find(current, history, limits=None, acks=None, *, db_path):
    '''The :class:`Shift` of every figure of the ``current`` test cases
    (one run) whose series, with the stored runs in ``history``, ends away
    from its accepted level or back at it after a shift. ``limits``:
    :class:`.limit.Limits` (default: no site limit); ``acks``:
    :func:`.acknowledged.latest` (default: the file beside the results
    database ``db_path``).'''
    limits = limits or NO_SITE_LIMIT
    if acks is None:
        acks = acknowledged.latest(acknowledged.read(
            acknowledged.path_of(db_path)))

    cases = [c for c in current if not c.get('fixture') and _figures(c)]
    until = max([_when(c) for c in cases] + [0.0]) or float('inf')
    per_node = is_fleet_run(cases)
    earlier = _runs(history, {c.get('session_uuid') for c in cases},
                    until, per_node)
    tonight = {}
    for case in cases:
        tonight.setdefault(_series_key(case, per_node), []).append(case)

    floors = floors_by_system([key for key, _ in tonight], limits)
    shifts = []
    for (key, node), runs in tonight.items():
        nights = nights_of(earlier.get((key, node), []) + [runs])
        for variable in sorted(_figures(runs[-1])):
            shift = judge_series(key, node, variable,
                                 nights.get(variable, []), acks, limits,
                                 floors[_system_of(key)])
            if shift is not None:
                shifts.append(shift)

    return ranked(shifts)


def standing(history, limits=None, acks=None):
    '''The :class:`Shift` every series of ``history`` ends on (each
    series' last session as tonight): what ``hpc-acceptance shifts``
    lists and acknowledges.'''
    limits = limits or NO_SITE_LIMIT
    acks = {} if acks is None else acks
    sessions = {}
    for case in history:
        sessions.setdefault(case.get('session_uuid'), []).append(case)
    fleet_sessions = {uuid for uuid, cases in sessions.items()
                      if is_fleet_run(cases)}
    by_series = {}
    for case in history:
        if case.get('fixture') or not _figures(case):
            continue

        per_node = case.get('session_uuid') in fleet_sessions
        runs = by_series.setdefault(_series_key(case, per_node), {})
        runs.setdefault(case.get('session_uuid'), []).append(case)

    floors = floors_by_system([key for key, _ in by_series], limits)
    shifts = []
    for (key, node), runs in by_series.items():
        sessions = sorted(runs.values(), key=lambda cs: _when(cs[-1]))
        nights = nights_of(sessions)
        for variable in sorted(_figures(sessions[-1][-1])):
            shift = judge_series(key, node, variable,
                                 nights.get(variable, []), acks, limits,
                                 floors[_system_of(key)])
            if shift is not None:
                shifts.append(shift)

    return ranked(shifts)


def history(query=HISTORY, *, db_path):
    '''The stored test cases of ``query`` in the results database
    ``db_path`` (none where there is no database).'''
    path = str(db_path)
    if not os.path.exists(path):
        return []

    return stored_testcases(query, db_path=path)


def shifts_of(current, limits, db_path):
    ''':func:`find` of a run's test cases against the results database
    ``db_path``, with the site's ``limits`` (``None``: no site limit);
    none where the database cannot be read (the run's other tools say
    so).

    :raises UNREADABLE: if the site's shift limit or the
        acknowledgements cannot be read.
    '''
    try:
        return find(current, history(db_path=db_path), limits,
                    db_path=db_path)
    except ResultsError:
        return []
