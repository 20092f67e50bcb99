'''*In parts as whole*: a night split into any number of parts for the
results database (..results.session_parts) holds every attempt of a test
case in one part, each record where ReFrame's storage looks for it by its
``uuid`` (``<part>:<run>:<test>``), and put together again it is the night
it was: its session, its runs, the same test cases by their final
attempts, the first run's in its order (a retry's run may list its test
cases in another); the parts are left as they were stored.'''

import json

from hypothesis import given
from hypothesis import strategies as st

from helpers import fleet_cases
from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools.results import runs, session_parts
from hpc_acceptance.tools.results.report_text import ReportText

SESSION = fleet_cases.session_id(11)


def _night(nodes, retried):
    cases = fleet_cases.fleet(nodes, seed=nodes)
    retries = []
    for again in retried:
        # each retry run the cases it retried, as ReFrame's --max-retries
        chosen = [cases[i % len(cases)] for i in again]
        retries.append([json.loads(json.dumps(c)) for c in chosen])
    return fleet_cases.as_report(cases, *retries, session=SESSION, start=0)


def _case(case):
    return (case['display_name'], case['result'], case['perfvalues'],
            case['run_index'], [a['result'] for a in case['earlier_attempts']])


@examples(60)
@given(st.integers(1, 5),
       st.lists(st.lists(st.integers(0, 60), max_size=4), max_size=3),
       st.integers(1, 40))
def test_a_night_in_parts_is_the_night_it_was(nodes, retried, parts):
    night = _night(nodes, retried)
    # each part as the text the results database keeps
    made = [json.loads(part.stored()) for part in session_parts.split(
        ReportText.of(json.loads(json.dumps(night))), parts)]
    stored = json.dumps(made)

    assert 1 <= len(made) <= parts
    owner = {}
    for number, part in enumerate(made):
        uuid = part['session_info']['uuid']
        assert uuid == (SESSION if number == 0 else
                        session_parts.part_uuid(SESSION, number))
        assert len(part['runs']) == len(night['runs'])
        for position, run in enumerate(part['runs']):
            for index, case in enumerate(run['testcases']):
                assert case['uuid'] == f'{uuid}:{position}:{index}'
                assert case['session_uuid'] == SESSION
                assert owner.setdefault(case['display_name'], uuid) == uuid

    (back,) = session_parts.merged(made)
    assert json.dumps(made) == stored
    assert {k: v for k, v in back.items() if k != 'runs'} == \
        {k: v for k, v in night.items() if k != 'runs'}
    assert [dict(run, testcases=None) for run in back['runs']] == \
        [dict(run, testcases=None) for run in night['runs']]
    assert [c['display_name'] for c in back['runs'][0]['testcases']] == \
        [c['display_name'] for c in night['runs'][0]['testcases']]
    assert sorted(map(_case, runs.final_testcases(back))) == \
        sorted(map(_case, runs.final_testcases(night)))
