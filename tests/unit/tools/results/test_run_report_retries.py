'''Reading a run report written with retries
(hpc_acceptance.tools.results.runs.report_testcases).'''

import json

import pytest

from helpers.fleet_cases import SESSION
from hpc_acceptance.tools.results.runs import ResultsError, report_testcases


def case(name, result, value):
    return {'display_name': name, 'system': 'local', 'partition': 'default',
            'environ': 'gnu', 'result': result,
            'perfvalues': {'local:default:triad': [value, 0, 0, 0, 'MB/s']}}


def test_a_retried_case_is_its_last_attempt_and_the_others_stay(tmp_path):
    path = tmp_path / 'report.json'
    path.write_text(json.dumps({'session_info': {'uuid': SESSION}, 'runs': [
        {'testcases': [case('A', 'pass', 1.0), case('B', 'fail', 2.0)]},
        {'testcases': [case('B', 'pass', 3.0)]},
    ]}))
    cases = {c['display_name']: c for c in report_testcases(path)}
    assert sorted(cases) == ['A', 'B']
    assert cases['B']['result'] == 'pass'
    assert cases['B']['perfvalues']['local:default:triad'][0] == 3.0


@pytest.mark.parametrize('text', ['[]', '{}', '{"runs": [{}]}'])
def test_a_report_without_runs_names_the_file(tmp_path, text):
    path = tmp_path / 'report.json'
    path.write_text(text)
    with pytest.raises(ResultsError, match=str(path)):
        report_testcases(path)
