'''What ``hpc-acceptance verdict`` prints on a console of a run whose
strings a node crafted: terminal escapes and line breaks in a fail reason
are shown, not obeyed, so that no line can pass for the verdict.'''

import json

import pytest

from helpers import fleet_cases
from hpc_acceptance.tools import cli

FORGED = ('sanity\r\x1b[2K\x1b[1Aacceptance passed\n'
          'acceptance passed\x1b]0;owned\x07')


@pytest.fixture(autouse=True)
def own_database(tmp_path, monkeypatch):
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))


def _run(tmp_path, cases):
    path = tmp_path / 'r.json'
    path.write_text(json.dumps(fleet_cases.as_report(
        cases, session=fleet_cases.session_id(1), start=1795500000.0)))
    return str(path)


def test_a_forged_verdict_in_a_fail_reason_is_shown_not_obeyed(
        tmp_path, capsys):
    failed = fleet_cases.case('n1', 'StreamCheck', {}, system='local',
                              result='fail')
    failed['fail_reason'] = FORGED
    assert cli.main(['verdict', _run(tmp_path, [failed]), '0']) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    assert not any(c in text for c in '\x1b\r\x07')
    lines = text.splitlines()
    assert not any(line.startswith('acceptance passed') for line in lines)
    assert lines[-1].startswith('acceptance FAILED')
    assert 'sanity ^[[2K^[[1Aacceptance passed acceptance passed^[]0;' \
           'owned^G' in text


def test_a_node_name_with_an_escape_is_refused_and_shown(tmp_path, capsys):
    case = fleet_cases.case('n1', 'StreamCheck', {'triad': (1.0, 'MB/s')},
                            system='local')
    case['node'] = 'n1\x1b[2Kacceptance passed'
    assert cli.main(['verdict', _run(tmp_path, [case]), '0']) == 3
    err = capsys.readouterr().err
    assert "node 'n1\\x1b[2Kacceptance passed' is not a node name" in err
