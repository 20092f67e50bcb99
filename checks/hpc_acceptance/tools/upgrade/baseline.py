'''What a post-upgrade run is compared with.

Before an upgrade a sysadmin records the baseline, ``ci/post-upgrade.sh
--before``: the post-upgrade set, stored as sessions with the extra
``post_upgrade=before``. After it, ``ci/post-upgrade.sh`` (sessions with
``post_upgrade=after``) compares every figure with, in this order:

1. ``before``: the latest series of ``--before`` runs
   (:func:`before_series`): consecutive ``--before`` runs, none more than
   :data:`WINDOW` after the one before it, with no verdict run between
   them. Several ``--before`` runs make the band better. A series is the
   baseline of the verdict run that follows it and of the re-checks of the
   same maintenance window (verdict runs, each within :data:`WINDOW` of the
   one before); a later verdict run is another upgrade's, and has no
   ``--before`` baseline until ``--before`` runs again;
2. ``nightly``: where that has no run of the figure, the nightly runs of
   the same inputs (by default the last 30 days), fleet runs left out
   (:func:`nightly_runs`).

Runs are matched by their workload (:func:`workload_key`): check,
partition, environment, variant and the inputs that size the work, but not
where the binary came from or what it was built for. A new compiler, MPI or
Spack build is what an upgrade brings; it is listed in "what changed"
(:mod:`.what_changed`), and the figures are compared across it. A fleet run
(every node) is compared node by node, a node with its own earlier figures
first.

Only the runs of the system the verdict run ran on are its baseline: a
results database a site shares between systems holds their ``--before``
runs side by side, and another system's are left out, and named
(:func:`of_systems`). A figure's values are in the unit most of its runs
gave it, the others converted where the units are multiples of one
another (``GB/s`` and ``MB/s``: :mod:`..results.units`), else left out and
said so.

A ``--before`` run that was interrupted (it has aborted test cases) is
never used: it is either whole or not a baseline, and the comparison says
which runs it left out. A figure a stored run recorded as no number (NaN,
+-inf, null, a negative or non-numeric value:
:mod:`..results.measurement`) is left out of the baseline, as if the run
had not reported it, and the comparison names it: it would move the
median and widen the band of every verdict made with it.
'''

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List

from hpc_acceptance.core import identity
from hpc_acceptance.tools.fleet.model import node_of
from hpc_acceptance.tools.results import units
from hpc_acceptance.tools.results.runs import (figure_key,
                                               figures_and_unmeasured,
                                               session_rows,
                                               session_testcases,
                                               stored_testcases)

#: Figures with no measurement a baseline's note names, at most.
NAMED = 3

#: Stored sessions searched for ``--before`` runs and comparisons.
LOOKBACK = 'now-365d:now'

#: The nightly sessions a figure without a ``--before`` run is compared
#: with, unless ``--baseline`` names others.
NIGHTLY = 'now-30d:now?suite_mode=="nightly"'

#: Session extra of a post-upgrade run: ``before`` or ``after``.
EXTRA = 'post_upgrade'

#: The longest gap between two ``--before`` runs of one series, and
#: between a verdict run and the re-check that follows it: a maintenance
#: window's runs are days apart, an abandoned series or the next upgrade
#: months.
WINDOW = datetime.timedelta(days=7)

#: Session extra of a fleet run (``ci/acceptance.sh --fleet``).
FLEET_EXTRA = 'fleet'


def workload_key(case):
    '''``(check, partition, environ, params, workload)``: the figure key
    without the identity's provenance fields
    (:func:`hpc_acceptance.core.identity.workload`).'''
    *key, ident = figure_key(case)
    return (*key, identity.workload(ident))


@dataclass
class Baseline:
    '''Stored runs' values of each figure, by workload and node.'''
    #: ``before`` or ``nightly``
    name: str
    #: ``{(workload key, variable, node or None): [values]}``; ``None``:
    #: every node's
    values: Dict[tuple, List[float]] = field(default_factory=dict)
    #: the test cases the values came from (for "what changed")
    cases: list = field(default_factory=list)
    #: notes on sessions left out
    notes: List[str] = field(default_factory=list)
    #: stored sessions the values came from
    sessions: int = 0
    #: ``{workload key: display name}`` of a test case of each workload
    names: Dict[tuple, str] = field(default_factory=dict)
    #: ``{(workload key, variable): unit}``
    units: Dict[tuple, str] = field(default_factory=dict)

    def lookup(self, key, variable, node):
        '''``(values, whose)``: the node's own values, else every node's;
        ``whose`` is ``'node'``, ``'all nodes'`` or ``None``.'''
        own = self.values.get((key, variable, node)) if node else None
        if own:
            return own, 'node'

        every = self.values.get((key, variable, None))
        return (every, 'all nodes') if every else ([], None)


def collect(name, testcases, notes=()):
    '''A :class:`Baseline` of the passed, non-fixture ``testcases``, each
    figure's values in the unit most of them are in (:mod:`..results.
    units`); a value in a unit that is no multiple of it is left out, and
    said so, as one that is no measurement is.'''
    found = []
    used, names, left_out = [], {}, []
    sessions = {case.get('session_uuid') for case in testcases}
    for case in testcases:
        if case.get('fixture') or case.get('result') != 'pass':
            continue

        used.append(case)
        key, node = workload_key(case), node_of(case)
        names.setdefault(key, case['display_name'])
        figures, missing = figures_and_unmeasured(case)
        found += [(key, variable, node, value, unit, case['display_name'])
                  for variable, (value, unit) in figures.items()]
        left_out += [f'{case["display_name"]} {variable} ({why})'
                     for variable, (why, _) in sorted(missing.items())]

    given = defaultdict(list)
    for key, variable, _, _, unit, _ in found:
        given[key, variable].append(unit)
    unit_of = {figure: units.most_common(found_units)
               for figure, found_units in given.items()}

    values, other_units = defaultdict(list), []
    for key, variable, node, value, unit, display_name in found:
        converted = units.convert(value, unit, unit_of[key, variable])
        if converted is None:
            why = units.other_unit(unit, unit_of[key, variable])
            other_units.append(f'{display_name} {variable} ({why})')
            continue

        values[key, variable, None].append(converted)
        if node:
            values[key, variable, node].append(converted)

    notes = list(notes)
    for what, named in (('with no measurement', left_out),
                        ('in another unit', other_units)):
        if named:
            more = (f' +{len(named) - NAMED} more' if len(named) > NAMED
                    else '')
            notes.append(f'{len(named)} figure(s) of the {name} runs {what} '
                         f'left out of the baseline: '
                         f'{"; ".join(sorted(named)[:NAMED])}{more}')

    return Baseline(name, dict(values), used, notes, len(sessions),
                    names, unit_of)


def of_systems(sessions, systems):
    '''``(kept, notes)``: of ``sessions`` (``{UUID: test cases}``), those
    that ran on one of ``systems`` (a run's after the upgrade), and a line
    naming those of other systems, left out: a results database a site
    shares between systems holds their ``--before`` runs side by side, and
    another system's figures are no baseline of this one's (each would be
    "missing after the upgrade").'''
    kept, others = {}, defaultdict(int)
    for uuid, cases in sessions.items():
        ran = {case.get('system') for case in cases
               if not case.get('fixture')}
        if not systems or ran & set(systems) or not ran:
            kept[uuid] = cases
        else:
            for system in ran:
                others[system] += 1

    notes = (['--before session(s) of other systems left out of the '
              'baseline: ' + ', '.join(f'{count} of {system}'
                                        for system, count in
                                        sorted(others.items()))]
             if others else [])
    return kept, notes


def _start(row):
    return datetime.datetime.strptime(row['Start time'], '%Y%m%dT%H%M%S%z')


def _day(when):
    return when.strftime('%Y-%m-%d %H:%M %Z')


def before_series(sessions, until):
    '''``(UUIDs, notes)``: the ``--before`` series that a verdict run
    starting at ``until`` compares with, among ``sessions`` (rows of
    :func:`..results.runs.session_rows` with :data:`EXTRA` ``before`` or
    ``after``, oldest first), and why runs were left out.

    The verdict runs just before ``until``, each within :data:`WINDOW` of
    the next, are re-checks of this run's maintenance window; the
    ``--before`` runs before them, each within :data:`WINDOW` of the next,
    are its series. A verdict run more than :data:`WINDOW` before
    ``until`` ends the search: its series was another upgrade's baseline.
    '''
    runs = [row for row in sessions if _start(row) < until]
    later = until
    while runs and runs[-1].get(EXTRA) == 'after':
        if later - _start(runs[-1]) > WINDOW:
            return [], [f'no --before run since the verdict run of '
                        f'{_day(_start(runs[-1]))}, more than '
                        f'{WINDOW.days} days before this one: its '
                        f'--before runs were another upgrade\'s baseline '
                        f'(record --before before each upgrade)']

        later = _start(runs.pop())

    series = []
    while runs and runs[-1].get(EXTRA) == 'before':
        if series and _start(series[-1]) - _start(runs[-1]) > WINDOW:
            left = [row for row in runs if row.get(EXTRA) == 'before']
            return ([row['UUID'] for row in reversed(series)],
                    [f'{len(left)} older --before run(s), the last of '
                     f'{_day(_start(runs[-1]))}, left out: more than '
                     f'{WINDOW.days} days before the next, another '
                     f'series'])

        series.append(runs.pop())

    return [row['UUID'] for row in reversed(series)], []


def interrupted(testcases):
    '''Whether a session's test cases show it was cut short.'''
    return any(case.get('result') == 'abort' for case in testcases)


def before_runs(lookback=LOOKBACK, exclude=(), until=None, systems=(), *,
                db_path):
    '''The :class:`Baseline` of the ``--before`` series of a verdict run
    starting at ``until`` (default: now; :func:`before_series`) on
    ``systems`` (its test cases' systems; none given: any), stored in the
    results database ``db_path``; sessions of UUIDs in ``exclude`` (this
    run's own) left out, and those of other systems (:func:`of_systems`)
    before the series is found: another system's runs neither join this
    one's series nor end it.

    :raises ResultsError: if the results database cannot be read.
    '''
    sessions = [row for row in
                session_rows(f'{lookback}?{EXTRA}=="before" or '
                             f'{EXTRA}=="after"', db_path)
                if row['UUID'] not in exclude]
    ran, notes = of_systems({row['UUID']: session_testcases(row['UUID'],
                                                            db_path)
                             for row in sessions}, systems)
    uuids, series_notes = before_series(
        [row for row in sessions if row['UUID'] in ran],
        until or datetime.datetime.now(datetime.timezone.utc))
    notes += series_notes
    cases = []
    for uuid in uuids:
        session_cases = ran[uuid]
        if interrupted(session_cases):
            notes.append(f'--before run {uuid} was interrupted (aborted '
                         f'test cases): not used as a baseline')
        else:
            cases += session_cases

    return collect('before', cases, notes)


def nightly_runs(query=NIGHTLY, systems=(), *, db_path):
    ''':class:`Baseline` of the sessions ``query`` selects in the results
    database ``db_path`` (their test cases on ``systems``, where given),
    fleet runs left out: those tagged :data:`FLEET_EXTRA` and any test
    case ReFrame's ``--distribute`` pinned to a node. A fleet run carries
    ``suite_mode=nightly`` too (its mode extends the nightly's), and the
    spread between hundreds of nodes would widen a band far beyond one
    node's run-to-run noise.

    :raises ResultsError: if the results database cannot be read.
    '''
    fleets = {row['UUID'] for row in session_rows(query, db_path)
              if row.get(FLEET_EXTRA) == 'yes'}
    cases = [case for case in stored_testcases(query, db_path)
             if case.get('session_uuid') not in fleets and
             '%.nid=' not in case['display_name'] and
             (not systems or case.get('system') in systems)]
    notes = ([f'{len(fleets)} fleet run(s) left out of the nightly '
              f'baseline'] if fleets else [])
    return collect('nightly', cases, notes)
