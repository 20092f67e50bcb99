'''SQLite itself holding at most a given number of bytes in one value, as
it holds at most 1,000,000,000 where built by default
(``SQLITE_LIMIT_LENGTH``): a fleet night's report that large, made small
enough for a test.'''

import sqlite3


def limit(monkeypatch, largest):
    '''Every SQLite connection this process opens from now on (ReFrame's
    storage's too) takes at most ``largest`` bytes in one value.'''
    connect = sqlite3.connect

    def limited(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, largest)
        return conn

    monkeypatch.setattr(sqlite3, 'connect', limited)
