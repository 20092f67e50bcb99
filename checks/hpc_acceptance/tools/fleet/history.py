'''A fleet run against the partition's earlier fleet runs.

Two questions need the fleet runs stored before this one (sessions with
the extra ``fleet=yes``, which ``--mode fleet`` sets; a confirmation
rerun, ``fleet=confirm``, is not one):

- did the fleet as a whole lose? Without a reference file, the medians of
  the earlier runs are what a partition's median is compared with
  (:func:`earlier_medians`; :mod:`.comparison`, "what the fleet should
  deliver");
- is a suspect a suspect again? A node named two runs in a row is more
  than a bad night (:func:`.comparison.mark_repeats`).

:func:`compare` answers both for a run, as the verdict of the run and
``hpc-acceptance suspects`` ask it: the same comparison for both.
'''

import datetime
from collections import defaultdict

from hpc_acceptance.tools.fleet import comparison, confirm, fingerprint
from hpc_acceptance.tools.fleet.model import MIN_NODES
from hpc_acceptance.tools.results.runs import (ResultsError, final_attempts,
                                               session_testcases,
                                               session_rows)

#: Stored sessions searched for earlier fleet runs.
LOOKBACK = 'now-30d:now'

#: Earlier fleet runs read, the newest: their medians are the fleet's
#: history, the newest of the same partitions its previous run.
HISTORY_RUNS = 5

#: The session extra of a fleet run, as ``--mode fleet`` sets it.
FLEET_RUNS = 'fleet=="yes"'

#: The session extra of a confirmation rerun (:mod:`.confirm`).
CONFIRM_RUNS = f'fleet=="{confirm.CONFIRM}"'


def _start(text):
    return datetime.datetime.strptime(text, '%Y%m%dT%H%M%S%z')


def earlier_runs(session, started, lookback=LOOKBACK, *, db_path):
    '''The test cases of each fleet run stored before the one of UUID
    ``session`` that started at ``started`` (``YYYYmmddTHHMMSS+zone``;
    ``None``: as the database stamped the stored session), at most
    :data:`HISTORY_RUNS`, oldest first, in the results database
    ``db_path``.

    :raises ResultsError: if the results database cannot be read.
    '''
    rows = session_rows(f'{lookback}?{FLEET_RUNS}', db_path)
    if started is None:
        # a stored session's own start, as the database stamped it
        started = next((row['Start time'] for row in rows
                        if row['UUID'] == session), None)

    rows = [row for row in rows if row['UUID'] != session and
            (started is None or _start(row['Start time']) < _start(started))]
    return [stored_run(row['UUID'], db_path=db_path)
            for row in rows[-HISTORY_RUNS:]]


def stored_run(session, lookback=LOOKBACK, *, db_path):
    '''The test cases of the stored fleet run of UUID ``session`` with
    its confirmation reruns (:mod:`.confirm`) in the results database
    ``db_path``, each by its final attempt: the run as its own verdict
    read it. The session is asked of the database by its UUID, and its
    reruns among the confirmation reruns by their extra: no query is
    made of the id.

    :raises ResultsError: if the results database cannot be read.
    :raises identifiers.BadIdentifier: if ``session`` is no session UUID.
    '''
    cases = session_testcases(session, db_path)
    reruns = [row for row in session_rows(f'{lookback}?{CONFIRM_RUNS}',
                                          db_path)
              if row.get(confirm.CONFIRMS) == session]
    for row in reruns:
        cases += session_testcases(row['UUID'], db_path)

    return final_attempts(cases) if reruns else cases


def earlier_medians(runs):
    '''``{(figure key, variable, hardware fingerprint): [(median,
    unit)]}`` of the figures the fleet runs ``runs`` compared across their
    nodes, one median per run, in the unit that run compared it in;
    figures that were not uniform are left out (their median is no
    fleet's).'''
    medians = defaultdict(list)
    for cases in runs:
        for partition in comparison.compare(cases):
            for spread in partition.spreads:
                if spread.split is None:
                    key = (spread.figure.key, spread.figure.variable,
                           fingerprint.hardware(spread.fingerprint))
                    medians[key].append((spread.median, spread.figure.unit))

    return dict(medians)


def compare(testcases, session, started, min_nodes=MIN_NODES,
            floors=None, *, db_path):
    '''``(fleets, note)``: :func:`.comparison.compare` of a fleet run's test
    cases with its partition's earlier fleet runs (in the results database
    ``db_path``) as its history, the suspects of the previous one marked;
    ``note`` says why the earlier runs could not be read, else ``None``.'''
    try:
        runs = (earlier_runs(session, started, db_path=db_path) if session
                else [])
    except ResultsError as err:
        return (comparison.compare(testcases, min_nodes, floors),
                f'the earlier fleet runs could not be read: {err}')

    fleets = comparison.compare(testcases, min_nodes, floors,
                                earlier_medians(runs))
    names = {f.name for f in fleets}
    for cases in reversed(runs):
        earlier = comparison.compare(cases)
        if names & {f.name for f in earlier}:
            comparison.mark_repeats(fleets, earlier)
            break

    return fleets, None


def compare_nodes(testcases, session_info, db_path):
    '''``(fleets, note)`` of :func:`compare` for a run's test cases and
    its report's ``session_info``; ``(None, None)`` for a run that is not
    a fleet run, its earlier runs read from the results database
    ``db_path``. The verdict, the summary, the report page and
    ``hpc-acceptance suspects`` all read a fleet run so.'''
    if session_info.get('fleet') != 'yes' and \
            not comparison.is_fleet_run(testcases):
        return None, None

    return compare(testcases, session_info.get('uuid'),
                   session_info.get('time_start'), db_path=db_path)
