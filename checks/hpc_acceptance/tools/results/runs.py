'''Test cases of past runs: from ReFrame's results database or a JSON report.

Both give ReFrame's test-case records (``display_name``, ``result``,
``system``, ``partition``, ``environ``, ``perfvalues``, ...).
'''

import datetime
import functools
import os
import re
import sqlite3
import sys
from collections import OrderedDict

from hpc_acceptance.core.paths import PROJECT_DIR
from hpc_acceptance.tools.common import console, identifiers
from hpc_acceptance.tools.results import (bounded_json, database,
                                          measurement, plausible,
                                          report_shape, session_parts)

#: The reframe next to this Python: the one of the project's environment.
REFRAME = os.path.join(os.path.dirname(sys.executable), 'reframe')

#: The project's configuration.
CONFIG = PROJECT_DIR / 'config' / 'settings.py'

#: Results of a test case that count as failed: it failed, was aborted, or
#: could not run because a dependency failed.
FAILED_RESULTS = frozenset({'fail', 'abort', 'fail_deps'})
_PARAM = re.compile(r'%(?P<name>[A-Za-z_]\w*)=(?P<value>\S+)')
_DEFAULT_PARAMETERS = {'%isa=native', '%turbo=as-configured',
                       '%smt=as-configured'}


class ResultsError(RuntimeError):
    '''Past results cannot be read; the message says from where.'''


class Unreadable(ResultsError):
    '''A run report or the results database cannot be read: the message,
    one line, names the file and what is wrong. The commands exit 3 on
    it, as for a run that wrote no report.'''


def one_line(text):
    '''``text`` (an error's) on one line.'''
    return ' '.join(str(text).split())


def _stored(query, sessions, db_path):
    '''What ReFrame's own storage holds for ``query`` (a period, session
    UUID or filter, as ``reframe --describe-stored-testcases`` takes it):
    the sessions, else their test cases, in the results database
    ``db_path``; read in this process, as the ``reframe`` command would
    (a process each cost a second or two, and a fleet run's tools ask
    many times).'''
    from reframe.frontend.reporting.utility import parse_query_spec

    return _fetch(lambda: parse_query_spec(query), query, sessions, db_path)


def _fetch(selector, query, sessions, db_path):
    ''':func:`_stored` of the selector ``selector()`` makes, ``query``
    the words that name it in an error, from the results database at
    ``db_path``; what it holds checked at the door (:func:`_checked`).'''
    from reframe.core.exceptions import ReframeError

    path = str(db_path)
    if not os.path.exists(path):
        return []

    try:
        storage = database.reframe_storage(path)
        found = (storage.fetch_sessions(selector()) if sessions
                 else storage.fetch_testcases(selector()))
    except (ReframeError, ValueError, sqlite3.DatabaseError) as err:
        raise Unreadable(f'cannot read the results database {path} '
                         f'({query}): {one_line(err)}') from None

    return _checked(found, path, sessions)


#: The refusals said once per process: a tool reads the database many
#: times.
_REFUSED = set()


def _refused(path, why):
    if (path, why) not in _REFUSED:
        _REFUSED.add((path, why))
        print(f'results database {path}: left out: {why}', file=sys.stderr)


def _checked(found, path, sessions):
    '''The sessions (``sessions``: by their UUID) or test cases
    ``found`` in the database at ``path`` whose identifiers have their
    kinds' forms (:func:`.report_shape.identifiers`); each other one is
    left out, said on standard error naming it: an id that is no UUID
    would become a query of ReFrame's storage (where a filter is Python),
    a node name that is no node name a word of an ``scontrol`` line.'''
    kept = []
    for item in found:
        try:
            if sessions:
                identifiers.session((item.get('session_info') or {}).get(
                    'uuid'), 'session_info: uuid')
            else:
                session = identifiers.shown(item.get('session_uuid'))
                report_shape.identifiers(item, f'a test case of session '
                                               f'{session}')
        except ValueError as err:
            _refused(path, str(err))
            continue

        kept.append(item)

    return kept


def session_testcases(session, db_path):
    ''':func:`stored_testcases` of the one stored session of UUID
    ``session`` in the results database ``db_path``, with the test cases
    of its parts where it was stored in parts (:mod:`.session_parts`),
    each asked of ReFrame's storage by its UUID alone, never as a query
    text.

    :raises identifiers.BadIdentifier: if ``session`` is no session UUID.
    '''
    from reframe.frontend.reporting.utility import QuerySelectorTestcase

    identifiers.session(session)
    cases = []
    for part in session_parts.sessions(
            session, lambda uuid: database.stored(str(db_path), uuid)):
        cases += _fetch(lambda: QuerySelectorTestcase(uuid=part), part,
                        False, db_path)

    return final_stored(cases)


def stored_testcases(query, db_path):
    '''Test cases of the stored sessions selected by ``query`` (a period,
    session UUID or filter, as ``--describe-stored-testcases`` takes), each
    session's test cases by their final attempt (:func:`final_attempts`);
    a night stored in parts is one session (:mod:`.session_parts`).

    The database keeps every attempt of a retried test case, where a JSON
    report's reader (:func:`report_testcases`) sees the last: both give
    the same test cases, so that every tool judges a run alike.
    ``db_path``: the results database's path.
    '''
    if identifiers.SESSION.fullmatch(query.strip()):
        return session_testcases(query.strip(), db_path)

    return final_stored(_stored(query, False, db_path))


def final_stored(cases):
    '''Stored test cases of one or more sessions (in any order) by their
    final attempt in their own session, sessions in their first test
    case's order.'''
    sessions = OrderedDict()
    for case in cases:
        sessions.setdefault(case.get('session_uuid'), []).append(case)

    return [final for session in sessions.values()
            for final in final_attempts(sorted(session, key=run_index))]


def run_index(case):
    '''The attempt a test case record is: ReFrame's ``run_index`` (0 the
    first run, 1 the first retry, ...), else the middle field of its
    ``uuid`` (``<session>:<run>:<test>``), else 0.'''
    if case.get('run_index') is not None:
        return int(case['run_index'])

    parts = str(case.get('uuid') or '').split(':')
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else 0


def session_rows(query, db_path):
    '''``[{column: value}]`` of the stored sessions selected by ``query``
    (``UUID``, ``Start time``, and the session extras such as
    ``suite_mode``) in the results database ``db_path``, as
    ``--list-stored-sessions`` lists them, oldest first.'''
    rows = [dict({key: str(value) for key, value in info.items()
                  if isinstance(value, (str, int, float))},
                 **{'UUID': info['uuid'], 'Start time': info['time_start']})
            for info in (session['session_info']
                         for session in _stored(query, True, db_path))
            if not session_parts.is_part(info)]
    return sorted(rows, key=lambda row: row['Start time'])


def final_testcases(report):
    '''Each test case's final attempt in a parsed ReFrame JSON report
    (:func:`final_attempts` of its runs in order).

    With ``--max-retries`` (the nightly mode retries a failed check once,
    so that noise is not called a regression) the first run holds every
    test case and each later run only the ones retried. Reports read one
    after the other (a fleet run's confirmation rerun after the run) are
    one report whose runs follow each other.
    '''
    return final_attempts([case for run in report.get('runs') or []
                           for case in run['testcases']])


def in_order(runs):
    '''The runs of one report, the first run first and each retry after
    it, by their ``run_index`` (the order ReFrame ran them, whatever
    order a file lists them in); runs without one keep their place.'''
    return sorted(runs, key=lambda run: run.get('run_index') or 0) \
        if all(isinstance(run.get('run_index'), int) for run in runs) \
        else list(runs)


def read_report(path):
    '''The parsed JSON run report at ``path``, its runs in order
    (:func:`in_order`).

    :raises Unreadable: naming the file and what is wrong with it, in one
        line (:mod:`.report_shape`).
    '''
    try:
        data = bounded_json.read(path)
        report_shape.check_size(data)
        report = bounded_json.parse(data)
        report_shape.check(report)
    except (OSError, ValueError) as err:
        raise Unreadable(f'cannot read the run report {path}: '
                         f'{one_line(err)}') from None

    return dict(report, runs=in_order(report['runs']))


def final_attempts(attempts):
    '''The last of each test case's records in ``attempts`` (oldest
    first), as a copy that keeps the earlier ones under
    ``earlier_attempts`` (``[{result, fail_reason, perfvalues}]``, oldest
    first; empty for a test case run once).'''
    earlier, final = {}, OrderedDict()
    for case in attempts:
        key = _case_id(case)
        if key in final:
            before = final.pop(key)
            earlier[key] = (earlier.get(key) or
                            list(before.get('earlier_attempts') or ())) + [
                {name: before.get(name) for name in
                 ('result', 'fail_reason', 'fail_phase', 'perfvalues')}]
        elif case.get('earlier_attempts'):
            earlier[key] = list(case['earlier_attempts'])

        final[key] = case

    return [dict(case, earlier_attempts=earlier.get(key, []),
                 **_shown_text(case))
            for key, case in final.items()]


def last_records(attempts, key=None):
    '''The last of each test case's records in ``attempts`` (oldest
    first), as they are: what :func:`final_attempts` gives without its
    copies, where only their results are counted. ``key`` tells a
    record's test case (a parsed record's by default; a record kept as
    text, :class:`.report_text.Record`, by its own ``key``).'''
    return {(key or _case_id)(case): case for case in attempts}.values()


#: A test case's text for people that a node's job or ReFrame wrote: the
#: tools show it on one line (a console, a drain reason).
FREE_TEXT = ('fail_reason', 'node_hardware', 'node_software')


def _shown_text(case):
    '''``case``'s :data:`FREE_TEXT` on one line each, control characters
    spelled out (:func:`..common.console.one_line`): a newline in a fail
    reason or a kernel string starts no line of its own on a console.'''
    return {key: console.one_line(case[key]) for key in FREE_TEXT
            if isinstance(case.get(key), str)}


def passed_on_retry(case):
    '''Whether a final attempt (:func:`final_attempts`) passed after an
    earlier attempt failed: a flaky figure a sysadmin should see.'''
    return case['result'] == 'pass' and any(
        attempt['result'] in FAILED_RESULTS
        for attempt in case.get('earlier_attempts') or ())


def _case_id(case):
    return (case['display_name'], case.get('system'), case.get('partition'),
            case.get('environ'))


#: The session extra naming the fleet run a confirmation rerun confirms
#: (:mod:`..fleet.confirm`).
CONFIRMS = 'fleet_confirms'


def _started(report):
    '''When a report's session started (a POSIX time), or ``None`` where
    it does not say.'''
    text = (report.get('session_info') or {}).get('time_start')
    try:
        return datetime.datetime.strptime(
            text, report_shape.TIME_FORMAT).timestamp()
    except (TypeError, ValueError):
        return None


def in_session_order(reports):
    '''``reports`` (``[(path, parsed report)]``) in the order their
    sessions ran, whatever order they were given in: by the start of each
    session (a report that does not say keeps its place after the one
    before it), and a fleet run's confirmation rerun (the session extra
    :data:`CONFIRMS`) right after the run it confirms, whatever the times
    say: its test cases are later attempts of that run's.

    :raises Unreadable: naming a rerun whose run is none of ``reports``:
        its test cases would be taken as later attempts of another run's.
    '''
    uuids = {(report.get('session_info') or {}).get('uuid'): index
             for index, (_, report) in enumerate(reports)}
    starts, last = [], float('-inf')
    for _, report in reports:
        last = _started(report) if _started(report) is not None else last
        starts.append(last)

    keys = []
    for index, (path, report) in enumerate(reports):
        confirms = (report.get('session_info') or {}).get(CONFIRMS)
        if confirms is None:
            keys.append((starts[index], 0, starts[index], index))
        elif confirms in uuids:
            run = uuids[confirms]
            keys.append((starts[run], 1, starts[index], index))
        else:
            raise Unreadable(f'{path} is the confirmation rerun of the '
                             f'fleet run {one_line(confirms)[:80]}, which '
                             f'none of the reports given is: its test '
                             f'cases are that run\'s later attempts')

    return [reports[key[-1]] for key in sorted(keys)]


def read_reports(*paths):
    '''``[(path, parsed report)]`` of one run's ReFrame JSON reports in
    the order their sessions ran (:func:`in_session_order`).

    :raises Unreadable: as :func:`read_report` and
        :func:`in_session_order`.
    '''
    return in_session_order([(path, read_report(path)) for path in paths])


def report_testcases(*paths):
    '''Test cases of one run's ReFrame JSON reports, read in the order
    their sessions ran (:func:`read_reports`: a fleet run: the nodes' run,
    its confirmation rerun, the multi-node run) as one report, each by its
    final attempt (:func:`final_testcases`).'''
    return report_run(*paths)[0]


def report_run(*paths):
    '''``(test cases, session_info)`` of one run's ReFrame JSON reports,
    each read once: the test cases as :func:`report_testcases` gives
    them, the session as :func:`report_session` does. A fleet run's
    reports are a gigabyte at 10,000 nodes, and reading them twice was a
    third of judging them.

    :raises Unreadable: as :func:`read_reports`.
    '''
    reports = read_reports(*paths)
    testcases = final_testcases({'runs': [run for _, report in reports
                                          for run in report['runs']]})
    return testcases, reports[0][1].get('session_info') or {}


def report_session(*paths):
    '''The ``session_info`` of a ReFrame JSON report (its UUID, start
    time, the session extras such as ``fleet``); of several reports of one
    run, the first session's (:func:`read_reports`). One report is read
    alone: a confirmation rerun's own session is its own, whichever run it
    confirms (the node jobs' collector stores it by it).

    :raises Unreadable: as :func:`read_reports`.
    '''
    if len(paths) == 1:
        return read_report(paths[0]).get('session_info') or {}

    return read_reports(*paths)[0][1].get('session_info') or {}


def variant_of(display_name):
    '''``(class name, {parameter: value})`` from a ReFrame display name.

    Whole numbers come back as ``int``: ReFrame looks references up with
    the parameter's own value, and the numeric parameters are integers.
    '''
    name, params = _variant(_unpinned(display_name))
    return name, dict(params)


def _unpinned(display_name):
    '''``display_name`` without the node ReFrame's ``--distribute`` (or a
    node job) pinned it to, where that ends it: no parameter of a
    variant, and each node's own.'''
    head, pinned, node = display_name.rpartition(' %.nid=')
    alone = node.split() == [node] and '%' not in node
    return head if pinned and head.strip() and alone else display_name


@functools.lru_cache(maxsize=4096)
def _variant(display_name):
    # a fleet's figures are grouped by it at each step of judging them:
    # ten times a test case, a tenth of judging 10,000 nodes; without its
    # node a display name is one of a few hundred
    name = display_name.split()[0]
    return name, tuple({m['name']: int(m['value']) if m['value'].isdigit()
                        else m['value']
                        for m in _PARAM.finditer(display_name)}.items())


def short_name(display_name):
    '''The display name without the hardware variants at their defaults,
    so that a line fits a terminal.'''
    return ' '.join(word for word in display_name.split()
                    if word not in _DEFAULT_PARAMETERS)


def identity_of(case):
    '''The identity of a test case (:mod:`hpc_acceptance.core.identity`):
    the inputs that produced its figures, ``''`` for runs stored before
    checks recorded one.'''
    return case.get('identity') or ''


def figure_key(case):
    '''``(check, partition, environ, params, identity)`` of a test case:
    two runs with the same key measured the same thing. ``params`` is a
    tuple of ``(name, value)`` in the display name's order.

    References, baselines, trends and reports group runs by this one
    function.
    '''
    check, params = _variant(_unpinned(case['display_name']))
    return (check, f'{case["system"]}:{case["partition"]}', case['environ'],
            params, identity_of(case))


def _perfvalues(case):
    '''``(variable, value as recorded, unit)`` of each performance value
    of a test case; an entry of another shape than ReFrame's is one
    without a value.'''
    values = case.get('perfvalues')
    for name, perf in (values.items() if isinstance(values, dict) else ()):
        if isinstance(perf, (list, tuple)) and len(perf) >= 5:
            yield (str(name).split(':')[-1], perf[0],
                   perf[4] if isinstance(perf[4], str) else '')
        else:
            yield str(name).split(':')[-1], perf, ''


def _judged(case):
    '''``(variable, value or None, unit, why not)`` of each performance
    value of a test case: the value where it is a measurement
    (:mod:`.measurement`) a node could deliver (:mod:`.plausible`), else
    ``None`` and why not.'''
    for variable, raw, unit in _perfvalues(case):
        value = measurement.value(raw)
        why = (measurement.why_not(raw) if value is None else
               plausible.why_not(value, unit, case))
        yield variable, (value if why is None else None), unit, why


def figures_of(case):
    '''``{performance variable: (value, unit)}`` of the figures of a test
    case that are measurements (:mod:`.measurement`) its nodes could have
    delivered (:mod:`.plausible`), each value a float.'''
    return figures_and_unmeasured(case)[0]


def unmeasured(case):
    '''``{performance variable: (why, unit)}`` of the figures a test case
    recorded that are no measurement (:mod:`.measurement`), or beyond what
    its nodes could deliver (:mod:`.plausible`).'''
    return figures_and_unmeasured(case)[1]


def figures_and_unmeasured(case):
    '''``(figures_of(case), unmeasured(case))``, its values judged once
    (a reader that needs both, at every figure of a fleet).'''
    figures, missing = {}, {}
    for variable, value, unit, why in _judged(case):
        if value is None:
            missing[variable] = (why, unit)
        else:
            figures[variable] = (value, unit)

    return figures, missing


def describe_key(key):
    '''``check %param=value ... @system:partition+environ`` of a
    :func:`figure_key` (the identity is shown where the figures are).'''
    check, partition, environ, params, _ = key
    return ' '.join([check] + [f'%{p}={v}' for p, v in params] +
                    [f'@{partition}+{environ}'])
