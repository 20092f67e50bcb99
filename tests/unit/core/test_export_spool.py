'''What waits for the store and what each store took
(hpc_acceptance.core.export.spool).'''

import sqlite3
import subprocess
import sys
import time

from hpc_acceptance.core.export import series, spool

STORE = 'http://monitor.example.org:8428'
NEW_STORE = 'http://tsdb2.example.org:8428'


def samples(names, when):
    return [series.line(name, {'check': 'C', 'figure': 'f'}, 1.0, when)
            for name in names]


def test_the_spool_is_beside_the_results_database(tmp_path):
    assert spool.path_beside(tmp_path / 'results.db') == \
        tmp_path / 'results-export.db'


def test_nothing_waits_where_nothing_was_kept(tmp_path):
    waiting = spool.Spool(tmp_path / 'results-export.db', STORE)
    assert waiting.waiting() == spool.Waiting(0, 0)
    assert waiting.waiting_samples() == []
    first = samples([series.FIGURE], 5)
    assert waiting.unsent(first) == first
    assert not waiting.path.exists()


def test_held_samples_wait_with_their_reason_until_delivered(tmp_path):
    waiting = spool.Spool(tmp_path / 'results-export.db', STORE)
    night = samples([series.FIGURE, series.FIGURE_PASSED], 5)
    waiting.hold(night, 'HTTP 429')
    waiting.hold(night, 'HTTP 500')
    left = waiting.waiting()
    assert (left.figures, left.samples, left.reason) == (1, 2, 'HTTP 500')
    assert waiting.waiting_samples() == night
    assert waiting.waiting_count(night + samples([series.FIGURE], 6)) == 2

    waiting.delivered(night)
    assert waiting.waiting().samples == 0
    assert waiting.unsent(night + samples([series.FIGURE], 6)) == \
        samples([series.FIGURE], 6)
    assert waiting.taken(night) == 2


def test_what_one_store_took_is_unsent_to_another(tmp_path):
    path = tmp_path / 'results-export.db'
    night = samples([series.FIGURE, series.FIGURE_PASSED], 5)
    spool.Spool(path, STORE).delivered(night)
    assert spool.Spool(path, NEW_STORE).unsent(night) == night
    assert spool.Spool(path, STORE).unsent(night) == []
    assert spool.Spool(path).stores() == {STORE: 2}


def test_what_a_store_lost_is_unsent_to_it_again(tmp_path):
    waiting = spool.Spool(tmp_path / 'results-export.db', STORE)
    night = samples([series.FIGURE, series.FIGURE_PASSED], 5)
    waiting.delivered(night)
    waiting.forget(night[:1])
    assert waiting.unsent(night) == night[:1]


def test_an_earlier_spool_s_deliveries_count_for_the_store_named_now(
        tmp_path):
    path = tmp_path / 'results-export.db'
    night = samples([series.FIGURE], 5)
    # the spool of the version that kept one list of what was sent
    with sqlite3.connect(path) as conn:
        conn.execute('CREATE TABLE sent (key TEXT PRIMARY KEY, '
                     'at REAL NOT NULL)')
        conn.execute('INSERT INTO sent VALUES (?, 1)',
                     (series.key(night[0]),))
    conn.close()

    assert spool.Spool(path).waiting() == spool.Waiting(0, 0)
    assert spool.Spool(path, STORE).unsent(night) == []
    assert spool.Spool(path, NEW_STORE).unsent(night) == night
    with sqlite3.connect(path) as conn:
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert 'sent' not in tables


HOLD = '''
import sys, time
from hpc_acceptance.core.export import spool
with spool.Spool(sys.argv[1], 'x').sending():
    print('held', flush=True)
    time.sleep(float(sys.argv[2]))
'''


def test_a_second_sender_waits_for_the_first_naming_it(tmp_path):
    waiting = spool.Spool(tmp_path / 'results-export.db', STORE)
    first = subprocess.Popen([sys.executable, '-c', HOLD, str(waiting.path),
                              '2'], stdout=subprocess.PIPE, text=True)
    try:
        assert first.stdout.readline() == 'held\n'
        told = []
        started = time.monotonic()
        with waiting.sending(told.append):
            waited = time.monotonic() - started
    finally:
        first.wait()

    assert told == [str(first.pid)]
    assert waited > 0.5
    # free again: no wait, nothing said
    with waiting.sending(told.append):
        pass
    assert len(told) == 1


def test_a_reason_an_earlier_version_kept_with_a_password_is_shown_without(
        tmp_path):
    night = samples(['f1', 'f2'], 1795624054000)
    waiting = spool.Spool(tmp_path / 'results-export.db', 'http://m')
    waiting.hold(night, 'cannot reach http://alice:s3cret@m/api/v1/import')
    with sqlite3.connect(waiting.path) as conn:
        # as an earlier version wrote it, before hold() hid passwords
        conn.execute("UPDATE waiting SET reason = 'cannot reach "
                     "http://alice:s3cret@m/api/v1/import'")

    assert waiting.waiting().reason == \
        'cannot reach http://***@m/api/v1/import'
    waiting.hold(night, 'HTTP 401 for http://bob:pw@m/')
    with sqlite3.connect(waiting.path) as conn:
        kept = conn.execute('SELECT reason FROM waiting').fetchall()
    assert kept == [('HTTP 401 for http://***@m/',)] * len(night)
