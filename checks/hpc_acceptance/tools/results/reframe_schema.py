'''Whether a run report is one ReFrame restores: its run report schema
(``reframe/schemas/runreport.json``), which ReFrame checks a report
against before it restores a session or stores it again.

ReFrame checks with ``jsonschema``, which walks the report in Python at
about a millisecond a test case; a fleet night of 10,000 nodes holds
70,000. The same schema compiled by ``fastjsonschema`` accepts the same
reports a dozen times faster (``ci/bench/README.md``, "Collecting and
storing"). Where it refuses one, ReFrame's own check says why, in
ReFrame's words, and it alone decides: a report it accepts is accepted.

The test case records are most of a night's checking. Each is told valid
first by the types of its fields alone, as the schema's ``testcase_type``
gives them (:class:`_PlainRecord`); only one not plainly valid goes
through the compiled check of a record, and the report around them
through the compiled check of the whole with its test cases left out
(``ci/bench/README.md``, "A night's door, cheaper").
'''

import copy
import functools
import json
import os

import fastjsonschema
import reframe as rfm
from reframe.core.exceptions import ReframeError
from reframe.frontend import reporting

#: ReFrame's run report schema, in its installation.
SCHEMA = os.path.join(rfm.INSTALL_PREFIX, 'reframe', 'schemas',
                      'runreport.json')


#: Where the schema puts a report's test case records: each of its
#: ``testcase_type``, and nothing else asked of them.
_RECORDS = {'type': 'array', 'items': {'$ref': '#/defs/testcase_type'}}

#: The types of a parsed JSON value, by the schema's names of them (a
#: boolean is no number: ``True`` is of type ``bool``, not ``int``).
_TYPES = {'string': (str,), 'null': (type(None),), 'number': (int, float),
          'integer': (int,), 'boolean': (bool,), 'object': (dict,),
          'array': (list,)}


class _Absent:
    '''The value of a field a record does not have.'''


_ABSENT = _Absent()


def _types(rules):
    named = rules['type']
    return frozenset(kind for name in ([named] if isinstance(named, str)
                                       else named)
                     for kind in _TYPES[name])


def _by_types(rules):
    '''A check of a value against ``rules`` by types alone (its
    ``type``, and its items' where it is a list), or ``None`` where the
    rules ask more than that.'''
    if 'type' not in rules or not set(rules) <= {'type', 'items'}:
        return None

    types = _types(rules)
    if 'items' not in rules:
        return lambda value: type(value) in types

    each = _by_types(rules['items'])
    if each is None:
        return None

    return lambda value: type(value) in types and (
        type(value) is not list or all(map(each, value)))


class _PlainRecord:
    '''Whether a test case record is plainly of ReFrame's
    ``testcase_type`` (``rules``): every field it requires there, each of
    its fields of the types the rules give it (a list's items too), none
    with more rules than types (a ``fail_info``, which ReFrame writes of
    a test case that failed in Python). ``False`` says not that the
    record is invalid, only that the compiled check is to decide.'''

    def __init__(self, rules):
        self.required = frozenset(rules.get('required', ()))
        #: ``[(field, its types and _Absent)]``
        self.typed = []
        #: ``[(field, check by types)]`` of lists
        self.lists = []
        #: fields with more rules than types
        self.others = []
        for field, its in rules['properties'].items():
            by_types = _by_types(its)
            if by_types is None:
                self.others.append(field)
            elif 'items' in its:
                self.lists.append((field, by_types))
            else:
                self.typed.append((field, _types(its) | {_Absent}))

    def __call__(self, case):
        if type(case) is not dict or not case.keys() >= self.required:
            return False

        get = case.get
        for field, types in self.typed:
            if type(get(field, _ABSENT)) not in types:
                return False

        for field, by_types in self.lists:
            value = get(field, _ABSENT)
            if value is not _ABSENT and not by_types(value):
                return False

        return not any(field in case for field in self.others)


class _Checks:
    '''The schema's compiled checks: of a whole report, of one test case
    record, and the check by types of a record (:class:`_PlainRecord`);
    the last two ``None`` where the schema asks more of a report's
    records than each be of ``testcase_type``.'''

    def __init__(self, schema):
        runs = schema['properties']['runs']['items']['properties']
        self.record = self.plain = None
        if (runs['testcases'] == _RECORDS and
                schema['properties']['restored_cases'] == _RECORDS):
            # fastjsonschema changes the schema it compiles: a copy each
            self.record = fastjsonschema.compile(copy.deepcopy(
                {'$ref': '#/defs/testcase_type', 'defs': schema['defs']}))
            self.plain = _PlainRecord(schema['defs']['testcase_type'])
        self.whole = fastjsonschema.compile(schema)

    def __call__(self, report):
        '''Raise :class:`fastjsonschema.JsonSchemaException` where the
        schema refuses ``report``.'''
        apart = self.record and _apart(report)
        if not apart:
            self.whole(report)
            return

        around, records = apart
        self.whole(around)
        for case in records:
            if not self.plain(case):
                self.record(case)


def _apart(report):
    '''``(report without its records, the records)``, or ``None`` where
    its runs and restored test cases are not lists where the schema puts
    them (the whole check says so).'''
    if type(report) is not dict or type(report.get('runs')) is not list:
        return None

    runs, records = [], []
    for run in report['runs']:
        if type(run) is not dict or type(run.get('testcases')) is not list:
            return None
        runs.append(dict(run, testcases=[]))
        records += run['testcases']

    around = dict(report, runs=runs)
    restored = report.get('restored_cases')
    if type(restored) is list:
        around['restored_cases'] = []
        records += restored
    return around, records


@functools.lru_cache(maxsize=1)
def _validate():
    '''The schema's checks, compiled once a process (0.04 s).'''
    with open(SCHEMA) as fp:
        return _Checks(json.load(fp))


def check(report, path):
    '''Check the parsed run report ``report``, read from ``path``, as
    ReFrame does before it restores a session.

    :raises ReframeError: ReFrame's own, naming the file and the part at
        fault.
    '''
    try:
        _validate()(report)
    except fastjsonschema.JsonSchemaException:
        # ReFrame's check decides, and says why in its words
        reporting.restore_session(path)
    except RecursionError:
        raise ReframeError(f'failed to validate report {path!r}: nested '
                           f'too deeply') from None
