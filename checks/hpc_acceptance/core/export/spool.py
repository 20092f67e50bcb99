'''What waits for the store, and what each store took: one SQLite file
beside the results database (``var/results-export.db`` beside
``var/results.db``).

- ``waiting``: the samples a run logged and has not sent yet (its
  handler's queue, which a killed run leaves behind), and those the
  store did not take, with the reason, until the next run or
  ``hpc-acceptance export --replay`` delivers them;
- ``delivered``: per store (its URL), the key (:func:`.series.key`:
  series and time) of every sample it took, so that a replay, a backfill
  or the same figure read back from the database is never sent to it
  twice, while a store the setting names anew gets everything. The store
  keeps every sample it is given, duplicates included (VictoriaMetrics
  drops them only with ``-dedup.minScrapeInterval``).

One sender at a time per spool (:meth:`Spool.sending`): two senders
reading what is unsent before either recorded what it sent would both
send it. SQLite, so that a run killed mid-write leaves the file whole.
'''

import contextlib
import fcntl
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from hpc_acceptance.core.export import series
from hpc_acceptance.core.export.settings import redact

_SCHEMA = '''
CREATE TABLE IF NOT EXISTS waiting (
    key TEXT PRIMARY KEY, name TEXT NOT NULL, sample TEXT NOT NULL,
    since REAL NOT NULL, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS delivered (
    store TEXT NOT NULL, key TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (store, key));
'''

#: Keys per SQL statement (SQLite's limit on parameters is 32766).
_CHUNK = 500


def path_beside(database):
    '''The spool of the results database ``database``.'''
    database = Path(database)
    return database.with_name(f'{database.stem}-export.db')


@dataclass(frozen=True)
class Waiting:
    '''What the spool holds for the store.'''
    figures: int
    samples: int
    #: when the oldest waiting sample was first refused (Unix time)
    since: Optional[float] = None
    #: why the latest one was not delivered
    reason: str = ''


class Spool:
    '''The spool at ``path`` of the store at URL ``store`` (the one the
    export setting names now; ``None``: only what waits can be read).
    Each call opens the file, so that no connection outlives a failed
    one. A spool written before deliveries were kept per store counts
    what it sent as sent to ``store``.'''

    def __init__(self, path, store=None):
        self.path = Path(path)
        self.store = store

    @property
    def lock_path(self):
        return self.path.with_name(f'{self.path.name}.lock')

    @contextlib.contextmanager
    def sending(self, waited=None):
        '''Held while one sender reads what is unsent, sends it and
        records it: a kernel ``flock`` on :attr:`lock_path`, gone with
        the process however it ends. Another sender waits for it;
        ``waited(pid)`` is called first when it has to, with the holder's
        process id as it wrote it.'''
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, 'a+') as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if waited:
                    lock.seek(0)
                    waited(lock.read().strip() or '?')
                fcntl.flock(lock, fcntl.LOCK_EX)
            lock.seek(0)
            lock.truncate()
            lock.write(str(os.getpid()))
            lock.flush()
            yield

    def _migrate(self, conn):
        # The spool of an earlier version kept one list of what was sent,
        # of no store: it was sent to the store of the setting then.
        legacy = conn.execute("SELECT 1 FROM sqlite_master WHERE "
                              "type = 'table' AND name = 'sent'").fetchone()
        if legacy and self.store:
            conn.execute('INSERT OR IGNORE INTO delivered '
                         'SELECT ?, key, at FROM sent', (self.store,))
            conn.execute('DROP TABLE sent')

    @contextlib.contextmanager
    def _connection(self, write=False):
        if not write and not self.path.exists():
            yield None
            return

        conn = sqlite3.connect(self.path, timeout=30)
        try:
            with conn:
                conn.executescript(_SCHEMA)
                self._migrate(conn)
                yield conn
        finally:
            conn.close()

    def _store(self):
        if not self.store:
            raise ValueError(f'{self.path}: which store took what is asked '
                             f'of a spool opened for none')

        return self.store

    def _delivered_keys(self, conn, keys):
        found = set()
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start:start + _CHUNK]
            found.update(row[0] for row in conn.execute(
                f'SELECT key FROM delivered WHERE store = ? AND key IN '
                f'({",".join("?" * len(chunk))})', [self._store(), *chunk]))

        return found

    def unsent(self, samples):
        '''Those of ``samples`` the store has not taken.'''
        with self._connection() as conn:
            if conn is None or not samples:
                return list(samples)

            keys = [series.key(s) for s in samples]
            sent = self._delivered_keys(conn, keys)

        return [s for s, k in zip(samples, keys) if k not in sent]

    def taken(self, samples):
        '''How many of ``samples`` the store took.'''
        return len(samples) - len(self.unsent(samples))

    def stores(self):
        '''``{store URL: samples it took}``.'''
        with self._connection() as conn:
            if conn is None:
                return {}

            return dict(conn.execute('SELECT store, COUNT(*) FROM '
                                     'delivered GROUP BY store'))

    def waiting_count(self, samples):
        '''How many of ``samples`` wait in the spool.'''
        with self._connection() as conn:
            if conn is None or not samples:
                return 0

            keys = [series.key(s) for s in samples]
            found = 0
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start:start + _CHUNK]
                found += conn.execute(
                    f'SELECT COUNT(*) FROM waiting WHERE key IN '
                    f'({",".join("?" * len(chunk))})', chunk).fetchone()[0]

        return found

    def hold(self, samples, reason):
        '''Keep ``samples`` until delivered, saying ``reason`` (any URL's
        user and password hidden).'''
        now = time.time()
        reason = redact(reason)
        with self._connection(write=True) as conn:
            conn.executemany(
                'INSERT INTO waiting VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) '
                'DO UPDATE SET reason = excluded.reason',
                [(series.key(s), s['metric']['__name__'], json.dumps(s),
                  now, reason) for s in samples])

    def delivered(self, samples):
        '''Record that the store took ``samples``.'''
        now = time.time()
        keys = [(series.key(s),) for s in samples]
        with self._connection(write=True) as conn:
            conn.executemany('INSERT OR IGNORE INTO delivered '
                             'VALUES (?, ?, ?)',
                             [(self._store(), k, now) for k, in keys])
            conn.executemany('DELETE FROM waiting WHERE key = ?', keys)

    def forget(self, samples):
        '''Record that the store does not hold ``samples`` after all
        (read back: it lost or dropped them).'''
        keys = [(self._store(), series.key(s)) for s in samples]
        with self._connection(write=True) as conn:
            conn.executemany('DELETE FROM delivered WHERE store = ? AND '
                             'key = ?', keys)

    def waiting_samples(self):
        '''Every waiting sample, oldest first.'''
        with self._connection() as conn:
            if conn is None:
                return []

            return [json.loads(row[0]) for row in conn.execute(
                'SELECT sample FROM waiting ORDER BY since, rowid')]

    def waiting(self):
        ''':class:`Waiting`: how much waits, since when and why.'''
        with self._connection() as conn:
            if conn is None:
                return Waiting(0, 0)

            figures, samples, since = conn.execute(
                'SELECT SUM(name = ?), COUNT(*), MIN(since) FROM waiting',
                (series.FIGURE,)).fetchone()
            reason = conn.execute('SELECT reason FROM waiting ORDER BY '
                                  'since DESC LIMIT 1').fetchone()

        # redacted again: a spool of an earlier version kept the reason
        # as the store's error said it, a URL's password included
        return Waiting(figures or 0, samples, since,
                       redact(reason[0]) if reason else '')
