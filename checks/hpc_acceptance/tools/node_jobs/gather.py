'''The per-node runs of a fleet night gathered into one run: each node's
session read from its log and report, the cases a node that stopped
early did not run counted as missing, the one report stored.
'''

import contextlib
import os
import re
import socket
import sys
import time
import uuid as uuids

from hpc_acceptance.tools.common import console, cyclic_gc, heap
from hpc_acceptance.tools.common.regular_file import open_regular
from hpc_acceptance.tools.fleet.model import another_node, natural_order
from hpc_acceptance.tools.fleet.node_map import (node_map_path, read_node_map,
                                                 write_node_map)
from hpc_acceptance.tools.node_jobs import perflogs, slurm_jobs
from hpc_acceptance.tools.node_jobs.night import Night
from hpc_acceptance.tools.results import database, runs, skips
from hpc_acceptance.tools.results.atomic_file import write_atomically
from hpc_acceptance.tools.results.report_text import Record, ReportText
from hpc_acceptance.tools.results.report_shape import TIME_FORMAT


#: The report's top-level key that says how the night ran.
KEY = 'fleet_night'

#: The ``session_info`` keys the night takes from its nodes' ReFrame: what
#: ran them, the same on each. Everything else of a node's session is its
#: own (its times, counts, folders) or the night's (its extras, as
#: planned): a node's report is its say, and an extra it added (the run it
#: "confirms") would relabel the whole night.
_FROM_NODES = ('data_version', 'version', 'config_files', 'user')

_NID = re.compile(r'\s+%\.nid=\S+')

#: What a missing test case (:func:`missing_case`) takes of another node's.
_TEMPLATE = ('display_name', 'system', 'partition', 'environ', 'filename',
             'scheduler')

# a test's name as ReFrame prints it, its parameters and fixtures' scopes
# after it: the node's log says where its run stopped, in a verdict's words,
# and is only the node's say
_STARTED = re.compile(r'^\[ RUN\s+\] (?P<name>[A-Za-z_]\w*'
                      r'(?: [%~][\w.:@+=~-]+)*) /(?P<hash>[0-9a-f]{8}) ')

_ENDED = re.compile(r'^\[\s*[A-Z]+\s*\] \(\s*\d+/\d+\) .+? '
                    r'/(?P<hash>[0-9a-f]{8}) ')

_STATE_WORDS = {'TIMEOUT': "its job's time limit",
                'CANCELLED': 'its job was cancelled',
                'NODE_FAIL': 'its node failed (Slurm: NODE_FAIL)',
                'OUT_OF_MEMORY': 'out of memory',
                'PREEMPTED': 'its job was preempted',
                'DEADLINE': "its job's deadline",
                'BOOT_FAIL': 'its node failed to boot'}


def short(display_name):
    '''A test case's name without ReFrame's ``%.`` parameters.'''
    return ' '.join(w for w in display_name.split()
                    if not w.startswith('%.'))


def running_at_end(log_text):
    '''The test cases ReFrame's output started and did not end: where a
    run that was stopped or died stopped.'''
    started, ended = {}, set()
    for line in log_text.splitlines():
        match = _STARTED.match(line)
        if match:
            started[match['hash']] = match['name']
        match = _ENDED.match(line)
        if match:
            ended.add(match['hash'])

    return [runs.short_name(short(name)) for key, name in started.items()
            if key not in ended]


def _read_log(path):
    try:
        with open_regular(path, errors='replace') as fp:
            return fp.read()
    except OSError:
        return ''


def _why_stopped(state, status, minutes):
    if state == 'TIMEOUT' and minutes:
        return f"its job's time limit ({minutes} min)"
    if state in _STATE_WORDS:
        return _STATE_WORDS[state]
    if status.get('signal'):
        return f'signal {status["signal"]}'
    return f'Slurm: {state}' if state else 'its job ended'


def _where(night, node, report):
    '''Where ``node``'s run stopped, as `` at <check>``: the test cases
    ReFrame aborted, else those its output started and never ended; ''
    where neither says. Read only for a node that did not do its work:
    its log is the night's largest file a node.'''
    stopped_at = [runs.short_name(short(c['display_name']))
                  for c in runs.final_testcases(report or {})
                  if c['result'] == 'abort'] or \
        running_at_end(_read_log(night.log(node)))
    return f' at {stopped_at[0]}' if stopped_at else ''


def _read_report(path, node):
    '''``(report, why unreadable, refused)`` of ``node``'s report at
    ``path``: its parsed report, or ``None`` and why it cannot be read
    (``None`` where there is no file) or why it was refused (``None``
    where it was not).

    A node's report is checked here, at its door, as a report read is
    (:func:`..results.database.checked`): one that ReFrame would refuse
    names its node and is left out, where checked in the night's report
    it would keep the whole night from being stored. The night's report
    is made of these and is not checked again (:func:`store`). A report
    whose test cases say they ran on another node is refused too: its
    figures would be put down to that node, and the node itself would
    not be judged.'''
    from reframe.core.exceptions import ReframeError

    from hpc_acceptance.tools.results import reframe_schema

    try:
        report = runs.read_report(path)
    except runs.Unreadable as err:
        if os.path.exists(path) and not os.path.isfile(path):
            # a pipe or a device: nothing was cut short
            return None, None, (f'left no regular file where its report '
                                f'goes ({err})')
        return None, (str(err) if os.path.exists(path) else None), None

    try:
        reframe_schema.check(report, path)
    except ReframeError as err:
        return None, None, (f'wrote a report ReFrame refuses '
                            f'({console.one_line(f"ReFrame: {err}")})')

    for run in report['runs']:
        for case in run['testcases']:
            other = another_node(case, node)
            if other:
                return None, None, (
                    f'wrote a report of another node '
                    f'({console.one_line(short(case["display_name"]))}: '
                    f'{console.one_line(other)})')

    return report, None, None


def _lost(unreadable, refused):
    if refused:
        return f'; it {refused}'
    return f': its report is {"truncated" if unreadable else "missing"}'


def outcome(night, node, job, status, minutes=None):
    '''``(report, fault, left_out)`` of ``node``, whose job wrote the
    record ``status`` (:meth:`.Night.read_status`): its parsed report
    (``None`` if none can be read), why it is named (``None``: it did its
    work), why it was left out of the night (``None``: it was not).'''
    if not job:
        return None, None, ('not submitted: the night stopped before its '
                            'job was')
    if job.get('refused'):
        return None, f'did not start: sbatch refused its job: ' \
                     f'{job["refused"]}', None
    if job.get('gave_up'):
        return None, f'did not start: its job pended for ' \
                     f'{job["gave_up"]}', None
    if job.get('cancelled_by_collect'):
        return None, None, ('cancelled by hpc-acceptance collect --cancel '
                            'before it ended: its results are not used')

    state = job.get('state') or ''
    report, unreadable, refused = _read_report(night.report(node), node)

    if not status.get('started'):
        return report, (f'its job ended ({state or "state unknown"}) '
                        f'before the run on the node started; see '
                        f'{night.folder}/slurm-{job.get("job")}.out'), None

    if status.get('ended') is None:
        lost = '' if report is not None else _lost(unreadable, refused)
        why = job.get('lost') or _why_stopped(state, status, None)
        return report, (f'died{_where(night, node, report)} '
                        f'({why}){lost}'), None

    if report is None and not unreadable and not refused and \
            status.get('reframe_status') == 0 and not status.get('signal'):
        # ReFrame writes no report where no test case ran: nothing selected
        return None, None, None

    if refused:
        return None, f'{refused}: its results are not used', None

    if report is None:
        what = (f'wrote a truncated report ({unreadable})' if unreadable
                else f'ReFrame ended with status '
                     f'{status.get("reframe_status")} and wrote no report')
        return None, f'{what}; it stopped{_where(night, node, report)}', None

    # a job of several nodes ends as its last node does (one that died
    # holds it to its time limit): a node whose run ended on its own,
    # unsignalled, did its work, whatever the job's end
    shared = (job.get('nodes') or 1) > 1
    if status.get('signal') or (state in _STATE_WORDS and not shared):
        return report, (f'stopped{_where(night, node, report)}: '
                        f'{_why_stopped(state, status, minutes)}'), None

    return report, None, None


def _case_key(case):
    '''What a test case is on any node: its name without the node, its
    environment.'''
    return _NID.sub('', case['display_name']), case.get('environ')


def expect_cases(expected, report):
    '''Add to ``expected``, ``{partition: {name without node: what of a
    test case a missing one is made of}}``, the non-fixture test cases of
    the node's report ``report`` it does not hold yet.'''
    for run in report['runs']:
        for case in run['testcases']:
            if not case.get('fixture'):
                found = expected.setdefault(
                    f'{case["system"]}:{case["partition"]}', {})
                key = _case_key(case)
                if key not in found:
                    found[key] = {field: case[field] for field in
                                  _TEMPLATE if field in case}


def missing_case(template, node, fault, when, job, night):
    '''A failed test case of ``node`` for the test case ``template`` of
    another node (:func:`expect_cases`), its reason ``fault``, of the
    first run of the night ``night`` (its UUID).'''
    name = _NID.sub('', template['display_name']) + f' %.nid={node}'
    return {
        'display_name': name, 'name': name, 'unique_name': name,
        'system': template['system'], 'partition': template['partition'],
        'environ': template.get('environ'),
        'filename': template.get('filename', ''),
        'fixture': False, 'result': 'fail', 'fail_phase': 'run',
        'fail_reason': fault, 'fail_severe': False,
        'fail_info': None, 'perfvalues': {},
        'scheduler': template.get('scheduler'),
        'job_completion_time_unix': when,
        'job_completion_time': time.strftime(TIME_FORMAT,
                                             time.localtime(when)),
        'jobid': (job or {}).get('job'), 'job_nodelist': node,
        'node': None, 'time_total': None,
        'session_uuid': night, 'run_index': 0,
    }


def _counted(results):
    '''ReFrame's counts of a run or session of test cases of
    ``results``, their results.'''
    results = list(results)
    return {'num_cases': len(results),
            'num_failures': sum(r in ('fail', 'fail_deps') for r in results),
            'num_aborted': results.count('abort'),
            'num_skipped': results.count('skip')}


def _node_records(report, node, fault, night):
    '''``[[Record]]`` of a node's report, run by run, as the night
    ``night`` (its UUID) holds them: the report's own test cases made the
    night's in place, then kept as text (:mod:`..results.report_text`),
    their ``uuid`` given where the night's runs are joined.'''
    session = report.get('session_info') or {}
    each = []
    for index, run in enumerate(report['runs']):
        for case in run['testcases']:
            case.update(node_session_uuid=session.get('uuid'),
                        node_session_start_unix=session.get(
                            'time_start_unix'),
                        session_uuid=night, run_index=index)
            if case.get('fixture'):
                case['display_name'] += f' %.nid={node}'
            if fault and case['result'] == 'abort':
                # ReFrame's own: "aborted due to ForceExitError"
                case['fail_reason'] = fault
        each.append([Record(case) for case in run['testcases']])

    return each


def session_info(uuid, first, started, ended, extras, stage, output):
    '''The night's ``session_info``: what ran the nodes' ReFrame (its
    version and configuration, :data:`_FROM_NODES`, of ``first``, a
    node's session), the session ``extras`` the night was planned with,
    the night's ``uuid``, times and folders.'''
    info = {k: v for k, v in (first or {}).items() if k in _FROM_NODES}
    info.update(extras)
    info.update(
        data_version=info.get('data_version', '4.2'),
        uuid=uuid, hostname=socket.gethostname(),
        cmdline=' '.join(sys.argv), workdir=os.getcwd(),
        time_start=time.strftime(TIME_FORMAT, time.localtime(started)),
        time_start_unix=started,
        time_end=time.strftime(TIME_FORMAT, time.localtime(ended)),
        time_end_unix=ended, time_elapsed=ended - started,
        prefix_stage=stage, prefix_output=output)
    return info


@cyclic_gc.paused()
def collect(report_path, minutes=None, now=None):
    '''Collect the night of ``report_path`` into that report (written),
    its perflogs into the run's and its node list updated; ``(report,
    status)``: the report as written, as text
    (:class:`..results.report_text.ReportText`), and 0 when every node did
    its work and ReFrame passed on each, else 1. Each node's report is
    read, checked and made text in turn: the night is never held as
    objects.

    :raises ValueError: if the night's plan cannot be read.
    '''
    heap.keep_freed()
    night = Night.of_report(report_path)
    plan = night.read_plan()
    jobs = night.read_jobs()
    now = time.time() if now is None else now
    minutes = minutes or plan.get('minutes')
    nodes = sorted(plan['nodes'], key=natural_order)
    uuid = str(uuids.uuid4())

    read, held, have, expected, first = [], {}, {}, {}, None
    faults, left_out, status = {}, {}, 0
    for node in nodes:
        node_status = night.read_status(node)
        report, fault, left = outcome(night, node, jobs.get(node),
                                      node_status, minutes)
        if fault:
            faults[node] = fault
        if left:
            left_out[node] = left
        if fault or (report is not None and
                     node_status.get('reframe_status') not in (0, None)):
            status = 1
        if report is None or left:
            continue

        read.append(node)
        first = first or report.get('session_info')
        _explain_skips(report, night.log(node))
        expect_cases(expected, report)
        held[node] = _node_records(report, node, fault, uuid)
        if fault:
            have[node] = {_case_key(c) for run in report['runs']
                          for c in run['testcases'] if not c.get('fixture')}

    per_run = []
    for node in nodes:
        each = held.pop(node, [[]])
        if node in faults:
            for partition in plan['nodes'][node]:
                system = f'{plan["system"]}:{partition}'
                each[0] += [Record(missing_case(
                    case, node, faults[node], now, jobs.get(node), uuid))
                            for key, case in sorted(
                                expected.get(system, {}).items())
                            if key not in have.get(node, ())]
        for index, records in enumerate(each):
            while len(per_run) <= index:
                per_run.append([])
            per_run[index] += records

    for index, records in enumerate(per_run):
        for number, record in enumerate(records):
            record.uuid = f'{uuid}:{index}:{number}'

    started = min((j['submitted'] for j in jobs.values()
                   if j.get('submitted')), default=plan.get('started', now))
    info = session_info(uuid, first, started, now, plan.get('extras', {}),
                        plan['stage'], plan['output'])
    # ReFrame's counts of a session: each test case's last attempt
    info.update(_counted(record.result for record in runs.last_records(
        (record for records in per_run for record in records),
        key=Record.key)))
    not_its_own = _add_perflogs(night, plan, read)
    head = {
        'session_info': info,
        'runs': [dict(_counted(record.result for record in records),
                      run_index=index)
                 for index, records in enumerate(per_run)],
        'restored_cases': [],
        KEY: {'mode': 'node-jobs', 'folder': night.folder,
              'nodes': len(nodes),
              'jobs': len({j['job'] for j in jobs.values()
                           if j.get('job')}),
              'nodes_per_job': plan.get('nodes_per_job', 1),
              'bounds': plan.get('bounds', []),
              'notes': plan.get('notes', []),
              'faults': faults, 'left_out': left_out, 'status': status},
    }
    if not_its_own:
        head[KEY]['perflog_lines_not_its_own'] = not_its_own
    merged = ReportText(head, per_run)
    write_atomically(report_path, merged.chunks())
    _leave_out(report_path, plan, left_out)
    return merged, status


def _add_perflogs(night, plan, nodes):
    '''Add the perflogs of ``nodes`` to the run's, each node's once;
    ``{node: lines}`` of the lines left out as another node's.'''
    with perflogs.RunPerflogs(plan['perflogs']) as run_perflogs:
        for node in nodes:
            merged_mark = os.path.join(night.node_dir(node),
                                       'perflogs.merged')
            if (os.path.isdir(night.perflogs(node)) and
                    not _marked(merged_mark)):
                run_perflogs.merge(night.perflogs(node), node)
                _mark(merged_mark)

    return run_perflogs.not_its_own


def _marked(path):
    '''Whether the mark ``path`` (:func:`_mark`) is there: a file, not a
    link or anything else a node's job left in its place.'''
    return os.path.isfile(path) and not os.path.islink(path)


def _mark(path):
    '''Make the empty file ``path`` in a node's folder: never through a
    link the node's job left there (which would make or empty a file
    wherever it points), which is removed. A mark, not data: made, never
    synced (a sync a node was a quarter of the collecting).'''
    with contextlib.suppress(FileNotFoundError, IsADirectoryError,
                             PermissionError):
        os.remove(path)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _leave_out(report_path, plan, left_out):
    '''Move the nodes ``left_out`` (``{node: why}``) from covered to left
    out in the run's node list.'''
    path = node_map_path(report_path)
    if not left_out or not os.path.exists(path):
        return

    nodes = read_node_map(path)
    for partition, about in nodes.items():
        name = partition.split(':', 1)[-1]
        for node, why in left_out.items():
            if node in about['covered'] and name in plan['nodes'].get(
                    node, []):
                about['covered'].remove(node)
                about['left_out'].append({'node': node, 'state': 'not run',
                                          'reason': why})

    write_node_map(path, nodes)


def lines(report):
    '''What a night's report says of how it ran, for people: its jobs,
    the limits that bound it, each node named or left out.'''
    night = report.get(KEY) if isinstance(report, dict) else None
    if not isinstance(night, dict):
        return []

    per_job = night.get('nodes_per_job', 1)
    said = [f'node jobs: {night.get("jobs", 0)} job(s) for '
            f'{night.get("nodes", 0)} node(s), '
            + ('one a node' if per_job == 1 else f'up to {per_job} a job')]
    said += [f'  bound by: {line}' for line in night.get('bounds') or []]
    said += [f'  {node}: {why}' for node, why in sorted(
        (night.get('faults') or {}).items(),
        key=lambda item: natural_order(item[0]))]
    said += [f'  {node} left out: {why}' for node, why in sorted(
        (night.get('left_out') or {}).items(),
        key=lambda item: natural_order(item[0]))]
    said += [f'  {node}: {lines} perflog line(s) of another node, not added'
             for node, lines in sorted(
                 (night.get('perflog_lines_not_its_own') or {}).items(),
                 key=lambda item: natural_order(item[0]))]
    return said


def _explain_skips(report, node_log):
    '''Give each skipped test case of a node's ``report`` that recorded no
    reason the one its SKIP line in the node's ReFrame output
    ``node_log`` gives: the skips ReFrame makes itself (a dependency
    skipped), which only its output explains. A node's output is its say
    of itself: it explains its own test cases only, whatever node a line
    of it names. No other node's output is read: it is a node's largest
    file, a tenth of collecting a night.'''
    unexplained = [case for run in report['runs'] for case in run['testcases']
                   if case['result'] == 'skip' and not case.get('skip_reason')]
    if not unexplained:
        return

    try:
        with open_regular(node_log, errors='replace') as fp:
            said = dict(skips.parse(''.join(
                line for line in fp if line.startswith('[      SKIP ]'))))
    except OSError:
        return

    for case in unexplained:
        reason = said.get(skips.case_name(case))
        if reason:
            case['skip_reason'] = reason


@cyclic_gc.paused()
def store(report_path, report, log, db_path):
    '''Store the night's report ``report``, as :func:`collect` made it
    and wrote it to ``report_path``, in the results database ``db_path``,
    said in ``log`` (an open file) as ReFrame says it: whether it was
    stored. It is not read or checked again: its nodes' reports were, at
    their door (:func:`_read_report`), and the rest is made by
    :func:`collect` (``ci/bench/README.md``, "Where a record's time
    goes").'''
    heap.keep_freed()
    done, present, errors = database.store_validated(
        str(db_path), [(report_path, report)])
    if done or present:
        session = report.session_info.get('uuid')
        log.write(f'Current session stored with UUID: {session}\n')
        return True

    for error in errors:
        log.write(f'WARNING: failed to store results in the database: '
                  f'{error}\n')
    return False


def collected(report_path):
    '''The night's report where it was collected already (it holds
    :data:`KEY`), else ``None``: a night is collected, and stored, once.'''
    try:
        report = runs.read_report(report_path)
    except runs.Unreadable:
        return None

    return report if isinstance(report.get(KEY), dict) else None


def still_queued(night):
    '''``{node: job}`` of the night's jobs Slurm still holds queued or
    running.'''
    plan = night.read_plan()
    active = slurm_jobs.queue(plan['job_name']) or {}
    return {node: job['job'] for node, job in night.read_jobs().items()
            if job.get('job') in active}
