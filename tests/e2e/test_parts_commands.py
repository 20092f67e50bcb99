'''ci/README.md, "A night stored in parts": ReFrame's commands that list a
night with its parts and delete it, run as written (tests/helpers/
doc_blocks.py) on a night stored in parts by ``hpc-acceptance db import``
(SQLite's limit on one value made small, as in
tests/unit/tools/results/test_session_parts.py).'''

import json
import os
import shutil

from conftest import DATA_DIR

from helpers import doc_blocks, sqlite_limit

FIXTURE = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'
SESSION = json.loads(FIXTURE.read_text())['session_info']['uuid']


def test_the_manual_s_commands_list_and_delete_a_night_with_its_parts(
        tmp_path, monkeypatch):
    report = tmp_path / 'nightly.json'
    shutil.copy(FIXTURE, report)
    db = str(tmp_path / 'results.db')
    assert sqlite_limit.imported(monkeypatch, report, db, 9_000) == 0
    stored = set(sqlite_limit.stored_sessions(db))
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
    assert set(sqlite_limit.stored_sessions(db)) == {SESSION}
    session.run(night)
    assert set(sqlite_limit.stored_sessions(db)) == set()
