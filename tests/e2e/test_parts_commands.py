'''ci/README.md, "A night stored in parts": ReFrame's commands that list a
night with its parts and delete it, run as written (tests/helpers/
doc_blocks.py) on a night stored in parts by ``hpc-acceptance db import``
(SQLite's limit on one value made small, as in
tests/unit/tools/results/test_session_parts.py).'''

import json
import os
import shutil
import sqlite3

from conftest import DATA_DIR

from helpers import doc_blocks, sqlite_limit
from hpc_acceptance.tools import cli

FIXTURE = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'
SESSION = json.loads(FIXTURE.read_text())['session_info']['uuid']


def _stored(db):
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute('SELECT uuid FROM sessions')}


def test_the_manual_s_commands_list_and_delete_a_night_with_its_parts(
        tmp_path, monkeypatch):
    report = tmp_path / 'nightly.json'
    shutil.copy(FIXTURE, report)
    db = str(tmp_path / 'results.db')
    with monkeypatch.context() as limited:
        sqlite_limit.limit(limited, 9_000)
        assert cli.main(['db', 'import', '--db', db, str(report)]) == 0
    stored = _stored(db)
    assert SESSION in stored and len(stored) > 1

    listing, parts, night = doc_blocks.commands(
        doc_blocks.block('ci/README.md', 'A night stored in parts').text,
        {'<night>': SESSION, '<start>': '20261124'})
    session = doc_blocks.Session(dict(os.environ, RFM_SQLITE_DB_FILE=db),
                                 timeout=300)
    listed = session.run(listing).stdout
    assert all(uuid in listed for uuid in stored)
    assert 'part_of' in listed
    session.run(parts)
    assert _stored(db) == {SESSION}
    session.run(night)
    assert _stored(db) == set()
