'''Reading a run report written with retries
(hpc_acceptance.tools.results.runs.report_testcases).'''

import json

import pytest

from helpers.fleet_cases import SESSION
from hpc_acceptance.tools.results.runs import (ResultsError, Unreadable,
                                               final_attempts, last_records,
                                               report_session,
                                               report_testcases)


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


def test_the_last_records_are_the_final_attempts_uncopied():
    '''What a night's counts are made of: each test case's last record,
    itself, where the same name in another partition is another case.'''
    attempts = [case('A', 'fail', 1.0), case('B', 'fail', 2.0),
                dict(case('A', 'pass', 3.0), partition='other'),
                case('B', 'pass', 4.0), case('A', 'pass', 5.0)]
    last = list(last_records(attempts))
    assert sorted(map(id, last)) == sorted(
        id(attempts[i]) for i in (2, 3, 4))
    assert sorted((c['display_name'], c['partition'], c['result'])
                  for c in last) == sorted(
        (c['display_name'], c['partition'], c['result'])
        for c in final_attempts(attempts))


@pytest.mark.parametrize('text', ['[]', '{}', '{"runs": [{}]}'])
def test_a_report_without_runs_names_the_file(tmp_path, text):
    path = tmp_path / 'report.json'
    path.write_text(text)
    with pytest.raises(ResultsError, match=str(path)):
        report_testcases(path)


def _session(path, uuid, start, cases, **extras):
    path.write_text(json.dumps({
        'session_info': {'uuid': uuid, 'time_start': start, **extras},
        'runs': [{'testcases': cases}]}))
    return path


RUN = '00000000-0000-4000-8000-000000000001'


def test_a_rerun_is_read_after_its_run_whatever_the_order_given(tmp_path):
    '''The confirmation rerun of a fleet run (its session extras) replaces
    the run's first attempt, named before or after it; the session read
    is the run's.'''
    run = _session(tmp_path / 'run.json', RUN, '20261124T020000+0000',
                   [case('A', 'pass', 1.0), case('B', 'pass', 2.0)],
                   fleet='yes')
    rerun = _session(tmp_path / 'rerun.json', SESSION,
                     '20261124T030000+0000', [case('B', 'pass', 3.0)],
                     fleet='confirm', fleet_confirms=RUN)
    for order in ((run, rerun), (rerun, run)):
        cases = {c['display_name']: c for c in report_testcases(*order)}
        assert cases['B']['perfvalues']['local:default:triad'][0] == 3.0
        assert [a['perfvalues']['local:default:triad'][0]
                for a in cases['B']['earlier_attempts']] == [2.0]
        assert report_session(*order)['uuid'] == RUN
    # read alone, a rerun's session is its own (the node jobs' collector
    # stores it by it); its test cases need their run
    assert report_session(rerun)['uuid'] == SESSION


def test_a_rerun_is_read_after_its_run_whatever_the_times_say(tmp_path):
    run = _session(tmp_path / 'run.json', RUN, '20261124T030000+0000',
                   [case('B', 'pass', 2.0)], fleet='yes')
    rerun = _session(tmp_path / 'rerun.json', SESSION,
                     '20261124T020000+0000', [case('B', 'pass', 3.0)],
                     fleet='confirm', fleet_confirms=RUN)
    (only,) = report_testcases(rerun, run)
    assert only['perfvalues']['local:default:triad'][0] == 3.0


def test_reports_are_read_in_the_order_their_sessions_ran(tmp_path):
    later = _session(tmp_path / 'b.json', SESSION, '20261124T030000+0000',
                     [case('A', 'pass', 3.0)])
    earlier = _session(tmp_path / 'a.json', RUN, '20261124T020000+0000',
                       [case('A', 'pass', 2.0)])
    (only,) = report_testcases(later, earlier)
    assert only['perfvalues']['local:default:triad'][0] == 3.0


def test_a_rerun_without_its_run_is_refused_by_name(tmp_path):
    rerun = _session(tmp_path / 'rerun.json', SESSION,
                     '20261124T030000+0000', [case('B', 'pass', 3.0)],
                     fleet='confirm', fleet_confirms=RUN)
    with pytest.raises(Unreadable, match=f'{rerun} is the confirmation '
                                         f'rerun of the fleet run {RUN}'):
        report_testcases(rerun)
