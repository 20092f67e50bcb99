'''``hpc-acceptance suspects`` and the fleet comparison of the verdict on
runs whose identifiers and strings were crafted: a session id that is
Python (ReFrame evaluates a session filter, ``?...``), a node name or a
figure that is a shell command. Nothing of it runs; what cannot be used is
refused naming it.'''

import json
import shlex
import sqlite3
import time

import pytest

from helpers import fleet_cases
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.fleet import fleet_run
from hpc_acceptance.tools.results import runs

#: A session filter ReFrame would evaluate: it writes a file.
CRAFTED = "?__import__('os').system('touch {marker}')==0 and False"


@pytest.fixture(autouse=True)
def own_database(tmp_path, monkeypatch):
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))
    runs._REFUSED.clear()


def _fleet_report(tmp_path, name, session, start, **changes):
    cases = fleet_cases.fleet(6, slow={'n5': (0.6, ('StreamCheck',))},
                              session=session)
    for case in cases:
        case.update(changes.get(case['node'], {}))
    made = fleet_cases.as_report(cases, session=session, start=start,
                                 extras={'fleet': 'yes'})
    path = tmp_path / name
    path.write_text(json.dumps(made))
    return str(path)


def test_a_session_option_that_is_a_filter_is_a_usage_error(tmp_path,
                                                            capsys):
    marker = tmp_path / 'ran'
    with pytest.raises(SystemExit) as stop:
        cli.main(['suspects', '--session', CRAFTED.format(marker=marker)])
    assert stop.value.code == 2
    assert "argument --session: session \"?__import__('os')" in \
        capsys.readouterr().err
    assert not marker.exists()


def test_a_report_whose_session_id_is_python_is_unreadable(tmp_path,
                                                          capsys):
    marker = tmp_path / 'ran'
    path = _fleet_report(tmp_path, 'r.json', CRAFTED.format(marker=marker),
                         time.time())
    assert cli.main(['suspects', '--run-report', path]) == 3
    assert cli.main(['verdict', path, '0']) == 3
    assert capsys.readouterr().err.count('is not a ReFrame session UUID') \
        == 2
    assert not marker.exists()


def test_a_crafted_session_in_the_database_is_never_a_query(tmp_path,
                                                           capsys):
    # stored as a run is, then changed in the database behind the tools
    marker = tmp_path / 'ran'
    stored = fleet_cases.session_id(11)
    path = _fleet_report(tmp_path, 'stored.json', stored,
                         time.time() - 7200)
    assert cli.main(['db', 'import', path]) == 0
    crafted = CRAFTED.format(marker=marker)
    with sqlite3.connect(tmp_path / 'results.db') as conn:
        conn.execute('UPDATE sessions SET uuid = ?, json_blob = '
                     'replace(json_blob, ?, ?)', (crafted, stored, crafted))
        conn.execute('UPDATE testcases SET session_uuid = ?, uuid = '
                     'replace(uuid, ?, ?)', (crafted, stored, crafted))
    capsys.readouterr()

    # the latest fleet run, and the earlier runs of another fleet run
    assert cli.main(['suspects']) == 2
    tonight = _fleet_report(tmp_path, 'tonight.json',
                            fleet_cases.session_id(12), time.time())
    assert cli.main(['verdict', tonight, '0']) == 1
    err = capsys.readouterr().err
    assert "left out: session_info: uuid \"?__import__('os')" in err
    assert not marker.exists()


def test_drain_lines_quote_every_word_a_report_wrote(tmp_path, capsys):
    # a kernel string and a figure that are shell commands
    kernel = '6.1.0 $(id>F) `id>F`; rm -rf ~ "x"'
    path = _fleet_report(tmp_path, 'r.json', fleet_cases.session_id(3),
                         time.time(), n5={'node_software': f'kernel={kernel}'})
    assert cli.main(['suspects', '--run-report', path, '--format',
                     'slurm']) == 1
    (line,) = capsys.readouterr().out.splitlines()
    words = shlex.split(line)
    assert words[:4] == ['scontrol', 'update', 'NodeName=n5', 'State=DRAIN']
    assert len(words) == 5 and words[4].startswith('Reason=hpc-acceptance: ')
    assert 'differs: kernel 6.1.0 $(id>F) `id>F`' in words[4]


def test_a_node_name_with_a_newline_never_reaches_the_rerun(tmp_path):
    # the confirmation rerun's job script would have it as a line
    crafted = 'n5\n#SBATCH --uid=0'
    path = _fleet_report(tmp_path, 'r.json', fleet_cases.session_id(4),
                         time.time(), n5={'node': crafted,
                                          'job_nodelist': [crafted]})
    with pytest.raises(runs.Unreadable, match=r"node 'n5\\n#SBATCH"):
        fleet_run.rerun_args(path, str(tmp_path / 'none.json'), 'idle', [],
                             str(tmp_path / 'results.db'))
