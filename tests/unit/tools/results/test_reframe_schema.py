'''ReFrame's run report schema, compiled (hpc_acceptance.tools.results.
reframe_schema): it accepts and refuses what ReFrame's own check does,
and a refused report is named in ReFrame's words.'''

import copy
import json

import fastjsonschema
import jsonschema
import pytest
from reframe.core.exceptions import ReframeError

from conftest import DATA_DIR
from hpc_acceptance.tools.results import reframe_schema

REPORT = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'


def _case(report):
    return report['runs'][0]['testcases'][0]


#: Changes to a real report, each against a rule of the schema or not.
CHANGES = {
    'none': lambda r: None,
    'a test case without its result': lambda r: _case(r).pop('result'),
    'a result that is a number': lambda r: _case(r).update(result=1),
    'a fixture flag that is a string': lambda r: _case(r).update(
        fixture='no'),
    'a null fail reason': lambda r: _case(r).update(fail_reason=None),
    'perfvalues a list': lambda r: _case(r).update(perfvalues=[]),
    'a key of its own on a test case': lambda r: _case(r).update(
        node_state={'turbo': True}),
    'runs an object': lambda r: r.update(runs={}),
    'no session info': lambda r: r.pop('session_info'),
    'a session uuid that is a number': lambda r: r['session_info'].update(
        uuid=7),
    'test cases a string': lambda r: r['runs'][0].update(testcases='x'),
    'a test case that is a number': lambda r: r['runs'][0][
        'testcases'].append(1),
    'the last test case without its result': lambda r: r['runs'][0][
        'testcases'][-1].pop('result'),
    'a restored test case with a number for a result': lambda r: r.update(
        restored_cases=[dict(_case(r), result=1)]),
    'a restored test case as it ran': lambda r: r.update(
        restored_cases=[_case(r)]),
    'a failure\'s information without its traceback': lambda r: _case(
        r).update(fail_info={'exc_type': 'E', 'exc_value': 'v'}),
    'a failure\'s information': lambda r: _case(r).update(
        fail_info={'exc_type': 'E', 'exc_value': 'v', 'traceback': None}),
}


@pytest.mark.parametrize('change', CHANGES)
def test_it_decides_as_reframe_s_own_check(tmp_path, change):
    report = json.loads(REPORT.read_text())
    CHANGES[change](report)
    path = tmp_path / 'report.json'
    path.write_text(json.dumps(report))
    with open(reframe_schema.SCHEMA) as fp:
        reframe_says = jsonschema.Draft7Validator(json.load(fp)).is_valid(
            copy.deepcopy(report))
    try:
        reframe_schema.check(report, str(path))
    except ReframeError as err:
        # refused in ReFrame's words, naming the file
        assert not reframe_says
        assert str(err).startswith(f"failed to validate report '{path}': ")
    else:
        assert reframe_says


def test_the_unchanged_report_is_accepted_and_some_changes_are_not():
    # the cases above hold both answers, so each is tested
    assert 'none' in CHANGES and 'runs an object' in CHANGES
    with open(reframe_schema.SCHEMA) as fp:
        validator = jsonschema.Draft7Validator(json.load(fp))
    report = json.loads(REPORT.read_text())
    assert validator.is_valid(report)
    report['runs'] = {}
    assert not validator.is_valid(report)


def test_a_schema_asking_more_of_the_records_is_checked_whole():
    '''Where ReFrame's schema (another ReFrame than the pinned one) asks
    more of a run's records than each be a test case, the report is
    checked whole, not record by record.'''
    with open(reframe_schema.SCHEMA) as fp:
        schema = json.load(fp)
    schema['properties']['runs']['items']['properties']['testcases'][
        'minItems'] = 1
    check = reframe_schema._Checks(schema)
    report = json.loads(REPORT.read_text())
    check(report)
    report['runs'][0]['testcases'] = []
    with pytest.raises(fastjsonschema.JsonSchemaException):
        check(report)
