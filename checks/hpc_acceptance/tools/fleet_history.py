'''A fleet run's context: its previous fleet run, and the nodes it left out.

A node that is a suspect two runs in a row is more than a bad night: the
previous fleet run of the same partitions (sessions stored with the extra
``fleet=yes``, which ``--mode fleet`` sets) is compared the same way and
its suspects marked on this run's (:func:`.fleet.mark_repeats`).
'''

import datetime

from hpc_acceptance.tools import fleet
from hpc_acceptance.tools.results import (ResultsError, stored_sessions,
                                          stored_testcases)

#: Stored sessions searched for the previous fleet run.
LOOKBACK = 'now-30d:now'

#: Earlier fleet sessions read, newest first, to find one of the same
#: partitions (another system's fleet run may be stored in between).
TRIES = 3


def _start(text):
    return datetime.datetime.strptime(text, '%Y%m%dT%H%M%S%z')


def previous_fleet(session, started, partitions, lookback=LOOKBACK):
    '''The comparison (:func:`.fleet.compare`) of the fleet run stored
    last before the one of UUID ``session`` that started at ``started``
    (``YYYYmmddTHHMMSS+zone``) and covered any of ``partitions``; ``[]``
    if there is none.

    :raises ResultsError: if the results database cannot be read.
    '''
    sessions = [row for row in
                stored_sessions(f'{lookback}?fleet=="yes"')
                if row['UUID'] != session and
                _start(row['Start time']) < _start(started)]
    for row in reversed(sessions[-TRIES:]):
        earlier = fleet.compare(stored_testcases(row['UUID']))
        if {f.name for f in earlier} & set(partitions):
            return earlier

    return []


def mark_repeats(fleets, session, started):
    '''Mark the suspects of ``fleets`` that were suspects in the previous
    fleet run; a note if that run could not be read, else ``None``.'''
    if not any(f.suspects for f in fleets):
        return None

    try:
        earlier = previous_fleet(session, started, [f.name for f in fleets])
    except ResultsError as err:
        return f'the previous fleet run could not be read: {err}'

    fleet.mark_repeats(fleets, earlier)
    return None
