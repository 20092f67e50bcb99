'''Post-upgrade runs shaped as ReFrame stores them, for the tests of
``hpc-acceptance post-upgrade``.

A session is a JSON run report of ReFrame's own schema: a real report
(``tests/fixtures/data/reframe_runs/acceptance-report.json``) with other
test cases, session extras as ``--session-extras`` sets them
(``post_upgrade=before``, ``suite_mode=nightly``, ``fleet=yes``) and each
test case's ``uuid`` ``<session>:<run index>:<test index>``. The same
report is judged with ``--report``, stored in a real results database
with ``hpc-acceptance db import`` (ReFrame's storage code), or served by
:class:`Store`, which stands in for the database where the baseline module
asks ReFrame (``session_rows``, ``stored_testcases``).
'''

import copy
import datetime
import json
import uuid

from conftest import DATA_DIR

#: A real report of ReFrame 4.10: its session info and a test case with
#: figures are the shape every session here takes.
TEMPLATE = json.loads(
    (DATA_DIR / 'reframe_runs' / 'acceptance-report.json').read_text())
_CASE = next(case for case in TEMPLATE['runs'][0]['testcases']
             if case['perfvalues'])

#: The session info ReFrame writes itself (the template's session extra
#: left out).
_INFO = {key: value for key, value in TEMPLATE['session_info'].items()
         if key != 'suite_mode'}
#: The columns ReFrame's ``--list-stored-sessions`` gives every session.
_COLUMNS = {'uuid': 'UUID', 'time_start': 'Start time',
            'time_end': 'End time'}

NOW = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)

#: The results database's path the code under test is given where a
#: :class:`Store` answers in the database's place: no file is read.
SERVED = '/nonexistent/served-results.db'


def ago(**delta):
    '''A time before now (``days=``, ``hours=``).'''
    return NOW - datetime.timedelta(**delta)


def case(display_name, figures=None, *, result='pass', identity='',
         skip_reason='', node='vm', system='local', partition='default'):
    '''A test case of ``display_name`` with ``figures`` ``{name: (value,
    unit)}``; a skipped one with the reason its check recorded.'''
    made = copy.deepcopy(_CASE)
    made.update(
        display_name=display_name, name=display_name,
        unique_name=display_name.split()[0], system=system,
        partition=partition, result=result, identity=identity,
        skip_reason=skip_reason, node=node if result != 'skip' else None,
        job_nodelist=[node] if result != 'skip' else [],
        fail_phase='sanity' if result == 'fail' else None,
        fail_reason='validation failed' if result == 'fail' else None,
        perfvalues={
            f'{system}:{partition}:{name}': [value, 0, None, None, unit,
                                             result]
            for name, (value, unit) in (figures or {}).items()})
    return made


def session(cases, start, **extras):
    '''The JSON report of a session started at ``start`` that ran
    ``cases``, tagged with ``extras``.'''
    report = copy.deepcopy(TEMPLATE)
    session_id = str(uuid.uuid4())
    end = start + datetime.timedelta(minutes=10)
    report['session_info'] = dict(_INFO)
    report['session_info'].update(
        uuid=session_id, time_start=start.strftime('%Y%m%dT%H%M%S%z'),
        time_start_unix=start.timestamp(),
        time_end=end.strftime('%Y%m%dT%H%M%S%z'),
        time_end_unix=end.timestamp(), num_cases=len(cases),
        num_skipped=sum(c['result'] == 'skip' for c in cases),
        num_failures=sum(c['result'] == 'fail' for c in cases), **extras)
    run = report['runs'][0]
    run.update(num_cases=len(cases),
               num_skipped=report['session_info']['num_skipped'],
               num_failures=report['session_info']['num_failures'],
               testcases=[])
    for index, made in enumerate(cases):
        made = dict(made, session_uuid=session_id, run_index=0,
                    uuid=f'{session_id}:0:{index}',
                    job_completion_time_unix=start.timestamp() + 60 * index)
        run['testcases'].append(made)

    return report


def write(report, path):
    path.write_text(json.dumps(report, indent=1))
    return str(path)


class Store:
    '''The results database holding ``reports``, as the baseline module
    reads it through ReFrame: a query ``PERIOD?EXPRESSION`` selects the
    sessions whose session info the expression holds for (ReFrame's
    ``eval`` of it, a name the session lacks failing it), a UUID one
    session; every session is in any period. The database's path the
    module is given (``db_path``) is the one it stands for, whichever.'''

    def __init__(self, reports):
        self.reports = reports

    def _selected(self, query):
        selector, _, expression = query.partition('?')
        for report in self.reports:
            info = report['session_info']
            # a period holds every session here; anything else is a UUID
            if ':' not in selector and selector != info['uuid']:
                continue

            try:
                if not expression or eval(expression, None, dict(info)):
                    yield report
            except NameError:
                continue

    def sessions(self, query, db_path):
        selected = list(self._selected(query))
        extras = sorted({key for report in selected
                         for key in report['session_info']
                         if key not in _INFO})
        rows = [dict({column: report['session_info'][key]
                      for key, column in _COLUMNS.items()},
                     **{extra: str(report['session_info'].get(extra, ''))
                        for extra in extras})
                for report in selected]
        return sorted(rows, key=lambda row: row['Start time'])

    def testcases(self, query, db_path):
        return [made for report in self._selected(query)
                for run in report['runs'] for made in run['testcases']]
