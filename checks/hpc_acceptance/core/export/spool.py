'''What waits for the store, and what it already took: one SQLite file
beside the results database (``var/results-export.db`` beside
``var/results.db``).

- ``waiting``: the samples a run logged and has not sent yet (its
  handler's queue, which a killed run leaves behind), and those the
  store did not take, with the reason, until the next run or
  ``hpc-acceptance export --replay`` delivers them;
- ``sent``: the key (:func:`.series.key`: series and time) of every
  sample the store took, so that a replay, a backfill or the same figure
  read back from the database is never sent twice. The store keeps every
  sample it is given, duplicates included (VictoriaMetrics drops them only
  with ``-dedup.minScrapeInterval``).

SQLite, so that a run killed mid-write leaves the file whole.
'''

import contextlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from hpc_acceptance.core.export import series

_SCHEMA = '''
CREATE TABLE IF NOT EXISTS waiting (
    key TEXT PRIMARY KEY, name TEXT NOT NULL, sample TEXT NOT NULL,
    since REAL NOT NULL, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sent (key TEXT PRIMARY KEY, at REAL NOT NULL);
'''


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
    '''The spool at ``path``; each call opens it, so that no connection
    outlives a failed one.'''

    def __init__(self, path):
        self.path = Path(path)

    @contextlib.contextmanager
    def _connection(self, write=False):
        if not write and not self.path.exists():
            yield None
            return

        conn = sqlite3.connect(self.path, timeout=30)
        try:
            with conn:
                conn.executescript(_SCHEMA)
                yield conn
        finally:
            conn.close()

    def unsent(self, samples):
        '''Those of ``samples`` the store has not taken.'''
        with self._connection() as conn:
            if conn is None or not samples:
                return list(samples)

            keys = [series.key(s) for s in samples]
            sent = set()
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                sent.update(row[0] for row in conn.execute(
                    f'SELECT key FROM sent WHERE key IN '
                    f'({",".join("?" * len(chunk))})', chunk))

        return [s for s, k in zip(samples, keys) if k not in sent]

    def hold(self, samples, reason):
        '''Keep ``samples`` until delivered, saying ``reason``.'''
        now = time.time()
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
            conn.executemany('INSERT OR IGNORE INTO sent VALUES (?, ?)',
                             [(k, now) for k, in keys])
            conn.executemany('DELETE FROM waiting WHERE key = ?', keys)

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

        return Waiting(figures or 0, samples, since,
                       reason[0] if reason else '')
