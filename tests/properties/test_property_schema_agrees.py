'''*Agrees with ReFrame*: a report whose test case records are changed in
any way (a field dropped, or given a value of any JSON type, lists and
objects nested in it), in any of its records, is accepted or refused by
the compiled check and its check by types (tools/results/reframe_schema)
exactly as ReFrame's own ``jsonschema`` check decides.'''

import copy
import json

import jsonschema
from hypothesis import example, given
from hypothesis import strategies as st
from reframe.core.exceptions import ReframeError

from conftest import DATA_DIR
from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools.results import reframe_schema

with open(reframe_schema.SCHEMA) as _fp:
    SCHEMA = json.load(_fp)

#: ReFrame's own check of a report.
REFRAME = jsonschema.Draft7Validator(SCHEMA)

#: A real report of five test cases, their lists of dependencies filled.
REPORT = json.loads(
    (DATA_DIR / 'reframe_runs' / 'acceptance-report.json').read_text())
for _case in REPORT['runs'][0]['testcases']:
    _case.update(dependencies_actual=[['a', 'b']],
                 dependencies_conceptual=['a'])

#: The fields the schema gives rules, and one it does not.
FIELDS = sorted(SCHEMA['defs']['testcase_type']['properties']) + ['node']

DROP = object()

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() |
    st.text(max_size=2),
    lambda inner: st.lists(inner, max_size=3) |
    st.dictionaries(st.sampled_from(['exc_type', 'exc_value', 'traceback',
                                     'x']), inner, max_size=4),
    max_leaves=6)

CHANGES = st.lists(st.tuples(st.integers(0, 4), st.sampled_from(FIELDS),
                             st.just(DROP) | VALUES), min_size=1, max_size=3)


@examples(150)
@given(CHANGES)
@example([(4, 'dependencies_actual', [['a'], [1]])])
@example([(3, 'fail_info', {'exc_type': 'a', 'exc_value': 'b',
                            'traceback': None})])
@example([(2, 'fail_info', {'exc_type': 'a', 'exc_value': 'b'})])
@example([(1, 'time_total', True)])
@example([(0, 'job_completion_time_unix', float('nan'))])
@example([(4, 'uuid', None)])
def test_the_check_decides_as_reframe_s_own(tmp_path, changes):
    report = copy.deepcopy(REPORT)
    for index, field, value in changes:
        case = report['runs'][0]['testcases'][index]
        if value is DROP:
            case.pop(field, None)
        else:
            case[field] = value
    path = tmp_path / 'report.json'
    path.write_text(json.dumps(report))
    try:
        reframe_schema.check(report, str(path))
    except ReframeError:
        assert not REFRAME.is_valid(report)
    else:
        assert REFRAME.is_valid(report)
