'''SQLite itself holding at most a given number of bytes in one value, as
it holds at most 1,000,000,000 where built by default
(``SQLITE_LIMIT_LENGTH``): a fleet night's report that large, made small
enough for a test; reports imported under that limit, and the sessions a
results database then holds.'''

import sqlite3

from hpc_acceptance.tools import cli


def limit(monkeypatch, largest):
    '''Every SQLite connection this process opens from now on (ReFrame's
    storage's too) takes at most ``largest`` bytes in one value.'''
    connect = sqlite3.connect

    def limited(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, largest)
        return conn

    monkeypatch.setattr(sqlite3, 'connect', limited)


def imported(monkeypatch, report, db, largest):
    '''The exit status of ``hpc-acceptance db import`` of the report file
    ``report`` into the results database ``db``, SQLite taking at most
    ``largest`` bytes in one value while it stores (its own limit after).'''
    with monkeypatch.context() as limited:
        limit(limited, largest)
        return cli.main(['db', 'import', '--db', str(db), str(report)])


def stored_sessions(db):
    '''``{session UUID: bytes of its report}`` of the sessions the results
    database ``db`` holds.'''
    with sqlite3.connect(db) as conn:
        return dict(conn.execute(
            'SELECT uuid, length(json_blob) FROM sessions').fetchall())
