'''Whether a parsed JSON file is a ReFrame run report the tools can judge.

A site hands over whatever a file holds: a report another ReFrame wrote
(another ``data_version``), one cut short by a full disk, one a script
rewrote, or no report at all. Every command that reads a report
(``verdict``, ``suspects``, ``post-upgrade``, ``db import``, the summary
and the page) checks it here first and refuses it in one line that names
the file and what is wrong, with the exit status of an unreadable run (3),
rather than judging half of it or stopping on a traceback.

A report must say which session it is (``session_info.uuid``, which
ReFrame writes in every report): :data:`NO_SESSION`.

What is checked is what the verdicts read: the runs and their test cases,
each test case's name, result, system, partition and environment, its
node, and the shape of its performance values (``[value, reference,
lower, upper, unit, ...]``). A figure's value itself may be anything: one
that is no number is no measurement (:mod:`.measurement`), which the
verdicts name, not an unreadable report.

The identifiers in it are checked too (:func:`identifiers`): the session
UUIDs, the nodes' names (the job's ``node``, its node list, the node
ReFrame's ``--distribute`` pinned it to), the system, partition and
environment names. The tools make database queries, paths, ``scontrol``
lines and job options of them: a report where one does not have its
kind's form (:mod:`..common.identifiers`) is refused, naming it.
'''

import datetime
import re

from hpc_acceptance.tools.common import console
from hpc_acceptance.tools.common import identifiers as names
from hpc_acceptance.tools.results import session_parts

#: How ReFrame writes a session's start.
TIME_FORMAT = '%Y%m%dT%H%M%S%z'

#: Results ReFrame gives a test case.
RESULTS = frozenset({'pass', 'fail', 'skip', 'abort', 'fail_deps', 'xfail',
                     'xpass'})

#: The most test case records (attempts, in all its runs) a report may
#: hold: a fleet night of 10,000 nodes, 38 test cases a node and a retry
#: of every tenth is about 420,000 (:mod:`.bounded_json`).
MAX_TESTCASES = 600_000

#: The major version of the report format of the ReFrame this checkout
#: runs (``data_version`` 4.x for ReFrame 4.10).
DATA_MAJOR = '4'


#: The key every test case record has, once, as JSON text.
_RECORD_KEY = b'"display_name"'

#: The node ReFrame's ``--distribute`` pinned a test to, in its name.
_PINNED = re.compile(r'%\.nid=(\S*)')

#: Why a report without its session's identity is refused: every run is
#: stored by it (``hpc-acceptance db import``), and judged against the
#: runs before it by it (the fleet's earlier runs, the nightly series);
#: judged without it, a fleet slow as a whole would pass as "judged across
#: its nodes only" where the same run with it fails.
NO_SESSION = ('session_info: no session uuid: ReFrame stores and judges a '
              'run by it (its earlier runs are found by it), so a report '
              'without one is neither stored nor judged')

_WHY_NEEDED = {('the report', 'session_info'): NO_SESSION,
               ('session_info', 'uuid'): NO_SESSION}


class ReportError(ValueError):
    '''What is wrong with a report, in one line.'''


def _kind(value):
    if value is None:
        return 'null'

    return {bool: 'a boolean', int: 'a number', float: 'a number',
            str: 'a string', list: 'a list', dict: 'an object'}.get(
                type(value), type(value).__name__)


def _need(container, key, where, types, optional=False):
    '''``container[key]``, one of ``types`` (``None`` for null).'''
    if key not in container:
        if optional:
            return None

        if (where, key) in _WHY_NEEDED:
            raise ReportError(_WHY_NEEDED[where, key])

        raise ReportError(f'{where}: no {key!r}')

    value = container[key]
    if type(value) in types or (value is None and None in types):
        # JSON's own types, as parsed: every field of every record of a
        # night passes here
        return value

    allowed = tuple(t for t in types if t is not None)
    if isinstance(value, allowed) and not (
            isinstance(value, bool) and bool not in allowed):
        return value

    raise ReportError(f'{where}: {key!r} is {_kind(value)}')


def _not_stored_parts(info):
    '''Refuse the session extras that only the results database writes, on
    a night it stored as parts (:mod:`.session_parts`): imported, a report
    naming another night as its own would be read as part of it.'''
    for key in (session_parts.PART_OF, session_parts.PARTS):
        if key in info:
            raise ReportError(
                f'session_info: {key!r} is the results database\'s own, on '
                f'a night it stored as parts; no run report carries it')


def _data_version(info):
    version = _need(info, 'data_version', 'session_info', (str,),
                    optional=True)
    if version is not None and version.split('.')[0] != DATA_MAJOR:
        raise ReportError(
            f'session_info: data_version {version!r}: written by a ReFrame '
            f'whose reports this one does not read (it reads '
            f'{DATA_MAJOR}.x)')


#: The types of a figure's reference and bounds, and of its unit, as JSON
#: is parsed (a number of another type, a ``NaN`` read back, goes to the
#: check that names what is wrong).
_BOUND_TYPES = frozenset({int, float, type(None)})
_UNIT_TYPES = frozenset({str, type(None)})


def _perfvalues(case, where):
    values = _need(case, 'perfvalues', where, (dict, None), optional=True)
    if not values:
        return

    # each figure told fine by the types of its fields alone, and the names
    # and units searched for control characters at once: a night has
    # millions; the figure at fault is found and named (_figures) only
    # where one may be
    for perf in values.values():
        if (type(perf) is not list or len(perf) < 5 or
                type(perf[1]) not in _BOUND_TYPES or
                type(perf[2]) not in _BOUND_TYPES or
                type(perf[3]) not in _BOUND_TYPES or
                type(perf[4]) not in _UNIT_TYPES):
            _figures(values, where)
            break

    units = [perf[4] or '' for perf in values.values()]
    if console.has_control(''.join([*values, *units])):
        _names_and_units(values, where)


def _figures(values, where):
    '''Raise :class:`ReportError` naming the first figure of ``values``
    that is not ReFrame's ``[value, reference, lower, upper, unit]``.'''
    for name, perf in values.items():
        here = f'{where}: perfvalues[{name!r}]'
        if not isinstance(perf, list) or len(perf) < 5:
            raise ReportError(f'{here} is {_kind(perf)}, not ReFrame\'s '
                              f'[value, reference, lower, upper, unit]')

        for index, label in ((1, 'reference'), (2, 'lower'), (3, 'upper')):
            bound = perf[index]
            if bound is not None and (isinstance(bound, bool) or
                                      not isinstance(bound, (int, float))):
                raise ReportError(f'{here}: the {label} is {_kind(bound)}')

        if not isinstance(perf[4], (str, type(None))):
            raise ReportError(f'{here}: the unit is {_kind(perf[4])}')


def _names_and_units(values, where):
    '''Raise :class:`ReportError` naming the first figure of ``values``
    whose name or unit holds a control character.'''
    for name, perf in values.items():
        here = f'{where}: perfvalues[{name!r}]'
        if console.has_control(name):
            raise ReportError(f'{here}: a control character in the name')
        if console.has_control(perf[4] or ''):
            raise ReportError(f'{here}: a control character in the unit')


def _testcase(case, where, fine):
    if not isinstance(case, dict):
        raise ReportError(f'{where} is {_kind(case)}, not a test case')

    name = _need(case, 'display_name', where, (str,))
    if not name.strip():
        raise ReportError(f'{where}: an empty display_name')

    where = f'{where} ({name.split()[0]})'
    result = _need(case, 'result', where, (str,))
    if result not in RESULTS:
        raise ReportError(f'{where}: result {result!r} is none of '
                          f'ReFrame\'s ({", ".join(sorted(RESULTS))})')

    _need(case, 'system', where, (str,))
    _need(case, 'partition', where, (str, None))
    _need(case, 'environ', where, (str, None))
    _need(case, 'fixture', where, (bool,), optional=True)
    _need(case, 'node', where, (str, None), optional=True)
    _need(case, 'job_nodelist', where, (list, str, None), optional=True)
    _need(case, 'run_index', where, (int, None), optional=True)
    for key in ('identity', 'node_hardware', 'node_software', 'fleet_floors',
                'fail_reason', 'session_uuid', 'uuid', 'hashcode'):
        _need(case, key, where, (str, None), optional=True)
    _need(case, 'job_completion_time_unix', where, (int, float, None),
          optional=True)
    _perfvalues(case, where)
    identifiers(case, where, fine)


def _session_id(value, what):
    if value is not None:
        names.session(value, what)


def identifiers(case, where, fine=None):
    '''Raise :class:`ReportError` where an identifier of the test case
    ``case`` (a dictionary, as a report or the results database gives it)
    is not of its kind's form; ``where`` says which test case it is.
    ``fine``, a set kept across a report's test cases, holds the
    identifiers they share (session, system, partition, environment,
    nodes) once found fine: a node's forty test cases name the same.'''
    if console.has_control(case.get('display_name', '')):
        raise ReportError(f'{where}: a control character in display_name '
                          f'{names.shown(case["display_name"])}')

    listed = case.get('job_nodelist') or []
    shared = (case.get('session_uuid'), case.get('system'),
              case.get('partition'), case.get('environ'), case.get('node'),
              listed if isinstance(listed, str) else tuple(listed))
    try:
        if case.get('uuid') is not None:
            names.testcase(case['uuid'], 'uuid')

        for node in _PINNED.findall(str(case.get('display_name', ''))):
            names.node(node, 'the node of %.nid= in display_name')

        if fine is not None and _known(shared, fine):
            return

        _session_id(case.get('session_uuid'), 'session_uuid')
        names.name(case.get('system'), 'system')
        for key in ('partition', 'environ'):
            if case.get(key) is not None:
                names.name(case[key], key)

        if case.get('node'):
            # a multi-node check's nodes, as ReFrame abbreviates them
            names.node_list(case['node'], 'node')

        for node in [listed] if isinstance(listed, str) else listed:
            names.node_list(node, 'a node of job_nodelist')
    except names.BadIdentifier as err:
        raise ReportError(f'{where}: {err}') from None

    if fine is not None:
        fine.add(shared)


def _known(shared, fine):
    try:
        return shared in fine
    except TypeError:
        # a list or an object among them, no identifier: refused below
        return False


def check_size(data):
    '''Raise :class:`ReportError` where the report ``data`` (its bytes, not
    yet parsed) holds more test case records than :data:`MAX_TESTCASES`:
    counted as the keys ``"display_name"`` (one a record; within a string
    its quotes would be escaped), so that such a file is refused before
    the seconds and gigabytes of parsing it. A file too short to hold that
    many keys (a node's report) is not counted.'''
    if len(data) // len(_RECORD_KEY) > MAX_TESTCASES:
        _bounded(data.count(_RECORD_KEY))


def _bounded(records):
    if records > MAX_TESTCASES:
        raise ReportError(f'{records} test case records, more than the '
                          f'{MAX_TESTCASES} a report read may hold')


def check(report):
    '''Raise :class:`ReportError` saying what is wrong where ``report``
    (parsed JSON) is no run report the tools can judge.'''
    if not isinstance(report, dict):
        raise ReportError(f'{_kind(report)}, not a ReFrame run report')

    runs = _need(report, 'runs', 'the report', (list,))
    _bounded(sum(len(run['testcases']) for run in runs
                 if isinstance(run, dict) and
                 isinstance(run.get('testcases'), list)))
    info = _need(report, 'session_info', 'the report', (dict,))
    _data_version(info)
    _not_stored_parts(info)
    uuid = _need(info, 'uuid', 'session_info', (str, None))
    if uuid is None or not uuid.strip():
        raise ReportError(NO_SESSION)
    try:
        _session_id(uuid, 'uuid')
    except names.BadIdentifier as err:
        raise ReportError(f'session_info: {err}') from None
    started = _need(info, 'time_start', 'session_info', (str, None),
                    optional=True)
    if started is not None:
        try:
            datetime.datetime.strptime(started, TIME_FORMAT)
        except ValueError:
            raise ReportError(f'session_info: time_start {started!r} '
                              f'is not ReFrame\'s YYYYmmddTHHMMSS+zone'
                              ) from None

    fine = set()
    for number, run in enumerate(runs):
        where = f'runs[{number}]'
        if not isinstance(run, dict):
            raise ReportError(f'{where} is {_kind(run)}, not a run')

        _need(run, 'run_index', where, (int,), optional=True)
        cases = _need(run, 'testcases', where, (list,))
        for index, case in enumerate(cases):
            _testcase(case, f'{where}.testcases[{index}]', fine)
