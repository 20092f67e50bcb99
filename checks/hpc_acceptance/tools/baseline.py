'''What a post-upgrade run is compared with.

Before an upgrade a sysadmin records the baseline, ``ci/post-upgrade.sh
--before``: the post-upgrade set, stored as sessions with the extra
``post_upgrade=before``. After it, ``ci/post-upgrade.sh`` (sessions with
``post_upgrade=after``) compares every figure with, in this order:

1. ``before``: the latest series of ``--before`` runs, those stored after
   the last post-upgrade comparison that came before them (several
   ``--before`` runs make the band better; the next upgrade's series
   starts after a comparison);
2. ``nightly``: where that has no run of the figure, the nightly runs of
   the same inputs (by default the last 30 days).

Runs are matched by their workload (:func:`workload_key`): check,
partition, environment, variant and the inputs that size the work, but not
where the binary came from or what it was built for. A new compiler, MPI or
Spack build is what an upgrade brings; it is listed in "what changed"
(:mod:`.what_changed`), and the figures are compared across it. A fleet run
(every node) is compared node by node, a node with its own earlier figures
first.

A ``--before`` run that was interrupted (it has aborted test cases) is
never used: it is either whole or not a baseline, and the comparison says
which runs it left out.
'''

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List

from hpc_acceptance.core import identity
from hpc_acceptance.tools.fleet import node_of
from hpc_acceptance.tools.results import (figure_key, figures_of,
                                          stored_sessions, stored_testcases)

#: Stored sessions searched for ``--before`` runs and comparisons.
LOOKBACK = 'now-365d:now'

#: The nightly sessions a figure without a ``--before`` run is compared
#: with, unless ``--baseline`` names others.
NIGHTLY = 'now-30d:now?suite_mode=="nightly"'

#: Session extra of a post-upgrade run: ``before`` or ``after``.
EXTRA = 'post_upgrade'


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

    def lookup(self, key, variable, node):
        '''``(values, whose)``: the node's own values, else every node's;
        ``whose`` is ``'node'``, ``'all nodes'`` or ``None``.'''
        own = self.values.get((key, variable, node)) if node else None
        if own:
            return own, 'node'

        every = self.values.get((key, variable, None))
        return (every, 'all nodes') if every else ([], None)


def collect(name, testcases, notes=()):
    '''A :class:`Baseline` of the passed, non-fixture ``testcases``.'''
    values = defaultdict(list)
    used = []
    sessions = {case.get('session_uuid') for case in testcases}
    for case in testcases:
        if case.get('fixture') or case.get('result') != 'pass':
            continue

        used.append(case)
        key, node = workload_key(case), node_of(case)
        for variable, (value, _) in figures_of(case).items():
            values[key, variable, None].append(float(value))
            if node:
                values[key, variable, node].append(float(value))

    return Baseline(name, dict(values), used, list(notes), len(sessions))


def _start(row):
    return datetime.datetime.strptime(row['Start time'], '%Y%m%dT%H%M%S%z')


def latest_before_series(sessions):
    '''The UUIDs of the latest series of ``--before`` sessions in
    ``sessions`` (rows of :func:`.results.stored_sessions`, oldest
    first): those after the last ``after`` session that precedes the
    latest ``before`` one.'''
    befores = [row for row in sessions if row.get(EXTRA) == 'before']
    if not befores:
        return []

    latest = _start(befores[-1])
    afters = [_start(row) for row in sessions
              if row.get(EXTRA) == 'after' and _start(row) < latest]
    since = max(afters) if afters else None
    return [row['UUID'] for row in befores
            if since is None or _start(row) > since]


def interrupted(testcases):
    '''Whether a session's test cases show it was cut short.'''
    return any(case.get('result') == 'abort' for case in testcases)


def before_runs(lookback=LOOKBACK, exclude=()):
    '''The :class:`Baseline` of the latest ``--before`` series; sessions of
    UUIDs in ``exclude`` (this run's own) left out.

    :raises ResultsError: if the results database cannot be read.
    '''
    sessions = [row for row in
                stored_sessions(f'{lookback}?{EXTRA}=="before" or '
                                f'{EXTRA}=="after"')
                if row['UUID'] not in exclude]
    cases, notes = [], []
    for uuid in latest_before_series(sessions):
        session_cases = stored_testcases(uuid)
        if interrupted(session_cases):
            notes.append(f'--before run {uuid} was interrupted (aborted '
                         f'test cases): not used as a baseline')
        else:
            cases += session_cases

    return collect('before', cases, notes)


def nightly_runs(query=NIGHTLY):
    ''':class:`Baseline` of the stored sessions ``query`` selects.'''
    return collect('nightly', stored_testcases(query))
