'''Where each check's binaries came from (Spack, Debian, an in-tree build)
and what changed since the runs before: the drift a run's verdict and a
post-upgrade comparison name.
'''

import datetime
import sys
import time
from dataclasses import dataclass
from typing import NamedTuple, Optional

from hpc_acceptance.core import spack_setup
from hpc_acceptance.core.identity import dependency_kind
from hpc_acceptance.tools.results import database
from hpc_acceptance.tools.results.runs import ResultsError, variant_of


#: How far back the previous runs are looked for.
HISTORY_DAYS = 90

#: Checks named per line; the rest are counted.
MAX_NAMES = 4

_SOURCES = ('spack', 'module', 'path', 'in-tree')


@dataclass
class Change:
    system: str
    old: str
    new: str
    #: The Spack environment the check used, when ``old`` is ``spack``
    environment: Optional[str]
    #: Completion time of the last run that used ``old``
    last_used: float
    #: Completion time of the first run that used ``new`` (maybe this one)
    since: float


def when(unix_time):
    return datetime.datetime.fromtimestamp(
        unix_time, datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')


def source_of(case):
    '''``(kind, Spack environment or None)`` of a test case's binary;
    ``None`` for fixtures and cases that resolved none.'''
    source = case.get('dependency_source')
    if case.get('fixture') or not source:
        return None

    kind = dependency_kind(source)
    if kind not in _SOURCES:
        return None

    environment = (source.split(':', 1)[1].split(' (')[0]
                   if kind == 'spack' else None)
    return kind, environment


def _check_of(case):
    return case.get('system'), variant_of(case['display_name'])[0]


def _completed(case):
    return case.get('job_completion_time_unix') or 0.0


def history_by_check(history, session=None, until=float('inf')):
    '''``{(system, check class): [(time, kind, environment)]}`` of the
    stored runs before ``until``, oldest first, ``session`` left out.'''
    by_check = {}
    for case in history:
        source = source_of(case)
        if (source is None or case.get('session_uuid') == session or
                _completed(case) >= until):
            continue

        by_check.setdefault(_check_of(case), []).append(
            (_completed(case), *source))

    return {key: sorted(runs) for key, runs in by_check.items()}


def _spack_gone(past, now):
    '''``(environment, last used, missing since)`` when these runs of a
    check used Spack and the last ones did not; ``since`` is ``now`` when
    the last run still did.'''
    used = [i for i, (_, kind, _env) in enumerate(past) if kind == 'spack']
    if not used:
        return None

    last = used[-1]
    since = past[last + 1][0] if last + 1 < len(past) else now
    return past[last][2], past[last][0], since


def changes(current, history):
    '''The :class:`Change` of each check of ``current`` (the test cases of
    this run) whose source differs from its previous stored run's, or
    whose Spack environment is still missing, keyed by (system, check
    class).'''
    if not current:
        return {}

    session = current[0].get('session_uuid')
    start = min(_completed(c) or float('inf') for c in current)
    past_by_check = history_by_check(history, session, start)
    found = {}
    for case in current:
        source = source_of(case)
        past = past_by_check.get(_check_of(case))
        if source is None or not past:
            continue

        kind, now = source[0], _completed(case)
        gone = _spack_gone(past, now) if kind != 'spack' else None
        if gone:
            environment, last_used, since = gone
            change = Change(case['system'], 'spack', kind, environment,
                            last_used, since)
        elif kind != past[-1][1]:
            change = Change(case['system'], past[-1][1], kind, past[-1][2],
                            past[-1][0], now)
        else:
            continue

        found[_check_of(case)] = change

    return found


def _names(checks):
    names = sorted(checks)
    more = len(names) - MAX_NAMES
    return ', '.join(names[:MAX_NAMES]) + (f' and {more} more'
                                           if more > 0 else '')


def describe(found):
    '''One line per kind of change, its checks named.'''
    groups = {}
    for (_, check), change in found.items():
        key = (change.system, change.old, change.new, change.environment)
        groups.setdefault(key, []).append((check, change))

    lines = []
    for (system, old, new, environment), group in sorted(groups.items()):
        checks = [check for check, _ in group]
        since = min(change.since for _, change in group)
        last_used = max(change.last_used for _, change in group)
        if old == 'spack':
            lines.append(
                f'Spack environment {environment} missing since '
                f'{when(since)} (last used {when(last_used)} on {system}); '
                f'checks fell back to {new}: {_names(checks)}. Their '
                f'figures are not comparable with the runs before')
        else:
            lines.append(
                f'dependency source changed from {old} (last used '
                f'{when(last_used)} on {system}) to {new}: '
                f'{_names(checks)}')

    return lines


def before_run(record, history, now):
    '''What the setup record says about this run of ``local``, against
    its stored runs: a line if a Spack environment they used will be
    missing.'''
    if record is not None and not spack_setup.unusable_because(record):
        return []

    past = sorted((_completed(c), *source_of(c)) for c in history
                  if c.get('system') == 'local' and source_of(c))
    gone = _spack_gone(past, now)
    if not gone:
        return []

    why = (spack_setup.unusable_because(record) if record else
           f'no Spack prepared ({spack_setup.spack_dir()}/'
           f'{spack_setup.RECORD} is missing)')
    environment, last_used, since = gone
    return [f'Spack environment {environment} missing since {when(since)} '
            f'(last used {when(last_used)}; {why}); the checks will fall '
            f'back to in-tree builds or PATH, and their figures will not '
            f'be comparable with the runs before']


class Drift(NamedTuple):
    '''What changed, a line per kind of change; or why the runs before
    could not be compared (``error``).'''
    lines: list
    error: str = None


def of_reports(each, db_path):
    '''The :class:`Drift` of each of a run's reports (``each``: their test
    cases, in order) against the runs of the last :data:`HISTORY_DAYS`
    days stored in the results database ``db_path``, read once for all.'''
    now = time.time()
    try:
        history = _stored(now, db_path)
    except _UNCOMPARED as err:
        return [Drift([], str(err)) for _ in each]

    return [_drift(lambda: describe(changes(cases, history)))
            for cases in each]


def before(system, db_path):
    '''The :class:`Drift` ReFrame's run of ``system`` will have, against
    the runs stored in the results database ``db_path``: only ``local``'s
    Spack is predicted.'''
    if system != 'local':
        return Drift([])

    now = time.time()
    return _drift(lambda: before_run(spack_setup.read(),
                                     _stored(now, db_path), now))


#: What keeps this run from being compared with the runs before.
_UNCOMPARED = (ResultsError, database.DatabaseError, ValueError)


def _stored(now, db_path):
    return database.stored_cases(str(db_path), now - HISTORY_DAYS * 86400,
                                 now)


def _drift(how):
    '''``Drift(how())``, or the reason the runs before cannot be
    compared.'''
    try:
        return Drift(how())
    except _UNCOMPARED as err:
        return Drift([], str(err))


def show(drift):
    '''Print ``drift``.'''
    if drift.error:
        print(f'dependency source: not compared with earlier runs: '
              f'{drift.error}', file=sys.stderr)

    for line in drift.lines:
        print(f'dependency source: {line}')
