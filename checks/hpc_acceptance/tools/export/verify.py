'''``hpc-acceptance export --verify``: what the store holds of the stored
sessions against what the spool says it took; what it lacks sent again.

The store is read back through its export API
(:func:`hpc_acceptance.core.export.store.held`): a value it lacks that the
spool says it took was lost or dropped since (a restore, a deleted series,
its retention), one the spool has not is one it never took. Both are
sent, then read back once more: what it still does not hold after
:data:`VISIBLE_WITHIN_S` it answered 204 for and did not keep, which is
named with the oldest one's date.
'''

import sys
import time

from hpc_acceptance.core.export import series, store
from hpc_acceptance.tools.export import samples
from hpc_acceptance.tools.export.sending import send, show
from hpc_acceptance.tools.results import database

#: Days ``--verify`` reads back without ``--since``: VictoriaMetrics'
#: default ``-retentionPeriod`` is one month.
VERIFY_DAYS = 30

#: Seconds ``--verify`` waits for what it sent to show in the store's
#: answers: a series VictoriaMetrics has just registered was seen missing
#: from them for 7 s.
VISIBLE_WITHIN_S = 30


def still_missing(export, sent):
    '''Those of the samples ``sent`` the store does not show within
    :data:`VISIBLE_WITHIN_S`.'''
    deadline = time.monotonic() + VISIBLE_WITHIN_S
    missing = sent
    while missing:
        held = {series.key(s) for s in store.held(export, missing)}
        missing = [s for s in missing if series.key(s) not in held]
        if not missing or time.monotonic() > deadline:
            break
        time.sleep(1)

    return missing


def verify(export, waiting, since, path):
    '''``--verify``: the store's holdings of the sessions since DATE
    stored in the results database ``path`` against what the spool says
    it took; what it lacks sent.'''
    since = since if since is not None else time.time() - VERIFY_DAYS * 86400
    sessions = database.session_reports(path, since, time.time())
    given = [s for report in sessions
             for s in samples.report_samples(report)] + \
        [s for run in samples.with_reruns(sessions)
         for s in samples.suspect_samples(run, db_path=path)]
    expected = list({series.key(s): s for s in given}.values())
    held = {series.key(s) for s in store.held(export, expected)}
    missing = [s for s in expected if series.key(s) not in held]
    never = {series.key(s) for s in waiting.unsent(missing)}
    lost = [s for s in missing if series.key(s) not in never]
    stamp = time.strftime('%Y-%m-%d %H:%M', time.localtime(since))
    print(f'export: --verify: {len(expected)} value(s) of {len(sessions)} '
          f'session(s) stored since {stamp}: {len(expected) - len(missing)} '
          f'held by the store {export.url}, {len(missing)} missing '
          f'({len(lost)} it had taken: lost or dropped since; '
          f'{len(missing) - len(lost)} never taken)')
    if not missing:
        return 0

    waiting.forget(lost)
    sent = send(export, waiting, 'missing from the store', missing)
    show(sent)
    if sent.status:
        return sent.status

    gone = still_missing(export, missing)
    if gone:
        oldest = min(t for s in gone for t in s['timestamps']) / 1000
        print(f'export: the store answered that it stored {len(gone)} of '
              f'them and does not hold them {VISIBLE_WITHIN_S} s later '
              f'(the oldest from '
              f'{time.strftime("%Y-%m-%d %H:%M", time.localtime(oldest))}'
              f'): older than its retention (VictoriaMetrics\' '
              f'-retentionPeriod)?', file=sys.stderr)
        return 1

    print(f'export: read back: the store holds all {len(missing)}')
    return 0
