'''A fleet night's node reports collected into one run report
(hpc_acceptance.tools.node_jobs.collect), on a real night: four namespaced
nodes each ran MemoryDaxpyCheck in a job of its own
(tests/fixtures/data/fleet_night/), and the faults a night meets made of
it: a job that did not start, a run stopped at its time limit, a run that
died, a truncated report, a node whose job was never submitted.'''

import io
import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from conftest import DATA_DIR
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.node_jobs import gather
from hpc_acceptance.tools.node_jobs.night import STATUS_MAX_BYTES, Night
from hpc_acceptance.tools.outcome import finished_run, summary_text
from hpc_acceptance.tools.results import database, runs

NODES = ['n1', 'n2', 'n3', 'n4']
DAXPY = ('MemoryDaxpyCheck %isa=native %turbo=as-configured '
         '%smt=as-configured %threads=single %.part=slurm-nodes:compute')


@pytest.fixture
def night(tmp_path, monkeypatch):
    '''``(report path, Night)`` of a copy of the real night, its plan
    pointing at folders of the test's own.'''
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))
    report = tmp_path / 'reports' / 'fleet.json'
    folder = Night.of_report(str(report)).folder
    shutil.copytree(DATA_DIR / 'fleet_night', folder)
    here = Night(folder)
    plan = json.loads(open(here.plan).read())
    plan.update(perflogs=str(tmp_path / 'perflogs'),
                stage=str(tmp_path / 'stage'),
                output=str(tmp_path / 'output'))
    open(here.plan, 'w').write(json.dumps(plan))
    (tmp_path / 'reports' / 'fleet-nodes.json').write_text(json.dumps({
        'slurm-nodes:compute': {'state': 'idle', 'covered': NODES,
                                'left_out': []}}))
    return str(report), here


def _edit(path, change):
    value = json.loads(open(path).read())
    change(value)
    open(path, 'w').write(json.dumps(value))


def _collected(path, **given):
    '''``(report, status)`` of the night at ``path`` collected, its
    report as written.'''
    _, status = gather.collect(path, **given)
    return runs.read_report(path), status


def _cases(report, node=None):
    return [c for c in runs.final_testcases(report)
            if not c['fixture'] and (node is None or
                                     c['display_name'].endswith(node))]


def test_a_night_is_one_session_the_tools_and_reframe_read(night, tmp_path):
    path, _ = night
    db = str(tmp_path / 'results.db')
    text, status = gather.collect(path, now=1795895800.0)
    assert status == 0
    report = runs.read_report(path)
    assert report['session_info'] == text.session_info
    assert {key: value for key, value in report.items() if key != 'runs'} \
        == {key: value for key, value in text.head.items() if key != 'runs'}
    assert [run['testcases'] for run in report['runs']] == [
        [json.loads(record.json()) for record in run] for run in text.runs]
    info = report['session_info']
    assert info['fleet'] == 'yes' and info['suite_mode'] == 'nightly'
    cases = [c for run in report['runs'] for c in run['testcases']]
    assert [c['uuid'] for c in cases] == [
        f'{info["uuid"]}:0:{i}' for i in range(len(cases))]
    assert {c['session_uuid'] for c in cases} == {info['uuid']}
    # ReFrame's counts, the session's and its run's
    assert (info['num_cases'], info['num_failures'], info['num_aborted'],
            info['num_skipped']) == (len(cases), 0, 0, 0)
    assert [run['num_cases'] for run in report['runs']] == [len(cases)]
    # each node's figures with its own name, node and job node list
    for node in NODES:
        (case,) = _cases(report, node)
        assert case['display_name'] == f'{DAXPY} %.nid={node}'
        assert case['node'] == case['job_nodelist'] == node
        assert case['result'] == 'pass' and case['perfvalues']
        assert case['node_session_uuid'] != info['uuid']
    # each node built its own: the builds are named after their node
    builds = [c['display_name'] for c in cases if c['fixture']]
    assert len(builds) == len(set(builds)) == 3 * len(NODES)
    # ReFrame's own storage takes it as one session
    assert database.import_reports(db, [path])[0] == [path]
    run = finished_run.of_reports([path], db_path=db)
    assert [f.nodes for f in run.fleets] == [NODES]


def test_the_nodes_perflogs_join_the_run_s_once(night, tmp_path):
    path, _ = night
    gather.collect(path)
    gather.collect(path)
    lines = (tmp_path / 'perflogs' / 'slurm-nodes' / 'compute' /
             'MemoryDaxpyCheck.log').read_text().splitlines()
    assert lines[0].startswith('job_completion_time|')
    assert len(lines) == 2 and '%.nid=n1 ' in lines[1]


def _did_not_start(here):
    _edit(here.jobs, lambda jobs: jobs['n4'].update(
        state='PENDING', gave_up='ReqNodeNotAvail, UnavailableNodes:n4'))
    shutil.rmtree(here.node_dir('n4'))


def _timed_out(here):
    def stopped(report):
        case = next(c for c in report['runs'][0]['testcases']
                    if not c['fixture'])
        case.update(result='abort', fail_reason='aborted due to '
                                                'ForceExitError')
    _edit(here.report('n4'), stopped)
    _edit(here.status('n4'), lambda s: s.update(signal=15,
                                                reframe_status=1))
    _edit(here.jobs, lambda jobs: jobs['n4'].update(state='TIMEOUT'))


def _died(here):
    log = open(here.log('n4')).read()
    at = log.index('[ RUN      ] MemoryDaxpyCheck')
    open(here.log('n4'), 'w').write(log[:log.index('\n', at) + 1])
    os.remove(here.report('n4'))
    _edit(here.status('n4'), lambda s: s.pop('ended'))
    _edit(here.jobs, lambda jobs: jobs['n4'].update(state='NODE_FAIL'))


def _truncated(here):
    text = open(here.report('n4')).read()
    open(here.report('n4'), 'w').write(text[:len(text) // 2])
    _edit(here.status('n4'), lambda s: s.update(reframe_status=0))


def _refused_by_reframe(here):
    # our reading takes it (the verdicts do not read a case's times);
    # ReFrame's schema, which its database keeps, does not
    _edit(here.report('n4'), lambda report: [
        case.update(time_total='soon')
        for case in report['runs'][0]['testcases']])


def _another_node_s(here):
    # n4's job wrote a report whose cases say they ran on n3: n3's figures
    # twice (one of them taken as an earlier attempt of the other), n4's
    # never judged, and the night passed
    def claims_n3(report):
        for case in report['runs'][0]['testcases']:
            for key in ('display_name', 'name', 'unique_name'):
                case[key] = case[key].replace('%.nid=n4', '%.nid=n3')
            case.update(node='n3', job_nodelist=['n3'])
    _edit(here.report('n4'), claims_n3)


@pytest.mark.parametrize('fault, named', [
    (_did_not_start, 'did not start: its job pended for ReqNodeNotAvail, '
                     'UnavailableNodes:n4'),
    (_timed_out, "stopped at MemoryDaxpyCheck %threads=single: its job's "
                 'time limit (120 min)'),
    (_died, 'died at MemoryDaxpyCheck %threads=single (its node failed '
            '(Slurm: NODE_FAIL)): its report is missing'),
    (_truncated, 'wrote a truncated report (cannot read the run report '),
    (_refused_by_reframe, "wrote a report ReFrame refuses (ReFrame: failed "
                          "to validate report '"),
    (_another_node_s, 'wrote a report of another node (SpackEnvironmentBuild'
                      ' ~slurm-nodes:compute+gnu: its job ran on n3): its '
                      'results are not used'),
])
def test_a_node_that_did_not_do_its_work_is_named_the_others_judged(
        night, tmp_path, fault, named):
    path, here = night
    fault(here)
    text, status = gather.collect(path)
    report = runs.read_report(path)
    assert status == 1
    assert report[gather.KEY]['faults']['n4'].startswith(named)
    (case,) = _cases(report, 'n4')
    assert case['result'] in ('fail', 'abort')
    assert case['fail_reason'] == report[gather.KEY]['faults']['n4']
    info = report['session_info']
    assert info['num_failures'] + info['num_aborted'] == 1
    assert [c['result'] for n in NODES[:3] for c in _cases(report, n)] == \
        ['pass'] * 3
    # the usual rule: it alone failed a check the others passed
    (fleet,) = finished_run.of_reports(
        [path], db_path=str(tmp_path / 'results.db')).fleets
    (suspect,) = fleet.suspects
    assert suspect.node == 'n4' and suspect.failures
    assert suspect.describe().startswith(f'n4: failed MemoryDaxpyCheck '
                                         f'%threads=single: {named}')
    # the night is stored as collected, unchecked: its every part passes
    # the checks of a report read (the nodes' at their door)
    assert database.checked(report, path) is report
    log = io.StringIO()
    assert gather.store(path, text, log, str(tmp_path / 'stored.db'))
    assert log.getvalue().startswith('Current session stored with UUID: ')


def test_a_node_that_died_in_a_job_of_several_names_itself_alone(night):
    # as on the test cluster: n2 of the job of n1 to n3 died (its record
    # has no end), which held the job to its time limit; n1 and n3 had
    # ended their runs long before
    path, here = night
    _edit(here.jobs, lambda jobs: [jobs[node].update(
        job='7', nodes=3, state='TIMEOUT') for node in ('n1', 'n2', 'n3')])
    _edit(here.status('n2'), lambda status: status.pop('ended'))
    os.remove(here.report('n2'))
    report, status = _collected(path, minutes=60)
    assert status == 1
    assert list(report[gather.KEY]['faults']) == ['n2']
    assert report[gather.KEY]['faults']['n2'].startswith('died ')
    assert [c['result'] for n in ('n1', 'n3', 'n4')
            for c in _cases(report, n)] == ['pass'] * 3


def test_a_dead_node_whose_job_the_coordinator_ended_says_why(night):
    # the coordinator cancelled the job n2 alone held once Slurm set n2
    # down (slurm_jobs.Watch): n2 died, the others did their work
    path, here = night
    _edit(here.jobs, lambda jobs: [jobs[node].update(
        job='7', nodes=3, state='CANCELLED') for node in ('n1', 'n2', 'n3')])
    _edit(here.jobs, lambda jobs: jobs['n2'].update(
        lost='Slurm set the node down: not responding'))
    _edit(here.status('n2'), lambda status: status.pop('ended'))
    os.remove(here.report('n2'))
    report, status = _collected(path, minutes=60)
    assert status == 1
    assert report[gather.KEY]['faults'] == {'n2': (
        'died (Slurm set the node down: not responding): its report is '
        'missing')}


def test_a_node_whose_reframe_ran_nothing_is_no_fault(night):
    path, here = night
    os.remove(here.report('n4'))
    report, _ = _collected(path)
    assert report[gather.KEY]['faults'] == {}
    assert _cases(report, 'n4') == []


def test_a_node_never_submitted_is_left_out_not_named(night, tmp_path):
    path, here = night
    _edit(here.jobs, lambda jobs: jobs.pop('n4'))
    report, _ = _collected(path)
    assert report[gather.KEY]['faults'] == {}
    assert 'n4' in report[gather.KEY]['left_out']
    assert _cases(report, 'n4') == []
    nodes = json.loads((tmp_path / 'reports' / 'fleet-nodes.json')
                       .read_text())['slurm-nodes:compute']
    assert nodes['covered'] == NODES[:3]
    assert nodes['left_out'][0]['node'] == 'n4'


def test_where_a_run_stopped_is_read_from_its_output():
    log = ('[ RUN      ] A %x=1 /0000000a @s:p+e\n'
           '[       OK ] (1/2) A %x=1 /0000000a @s:p+e\n'
           '[ RUN      ] B %isa=native %.nid=n1 /0000000b @s:p+e\n')
    assert gather.running_at_end(log) == ['B']
    # the node's log is the node's say: a line that names no test is none
    assert gather.running_at_end(
        log + '[ RUN      ] every check PASSED; see /0000000c @s:p+e\n'
        '[ RUN      ] C %x=$(id) /0000000d @s:p+e\n') == ['B']


def test_collect_finishes_an_interrupted_night_once(night, tmp_path, capsys,
                                                   monkeypatch):
    path, _ = night
    monkeypatch.setattr(gather.slurm_jobs, 'queue', lambda *a: {})
    assert cli.main(['collect', path]) == 0
    out = capsys.readouterr().out
    assert f'hpc-acceptance finish {path} 0 --nodes ' in out
    assert 'stored in the results database' in out
    session = runs.report_session(path)['uuid']
    assert database.stored(str(tmp_path / 'results.db'), session)
    assert cli.main(['collect', path]) == 0
    assert 'was collected already' in capsys.readouterr().out
    assert runs.report_session(path)['uuid'] == session


def test_collect_waits_for_jobs_still_queued(night, capsys, monkeypatch):
    path, here = night
    monkeypatch.setattr(gather.slurm_jobs, 'queue',
                        lambda *a: {'2': ('RUNNING', 'None')})
    cancelled = []
    monkeypatch.setattr(gather.slurm_jobs, 'cancel', cancelled.append)
    assert cli.main(['collect', path]) == 1
    assert 'still queued or running (n2)' in capsys.readouterr().err
    assert cli.main(['collect', '--cancel', path]) == 0
    assert cancelled == ['2']
    report = runs.read_report(path)
    assert 'n2' in report[gather.KEY]['left_out']
    assert report[gather.KEY]['faults'] == {}


def test_a_job_of_several_nodes_is_counted_and_cancelled_once(
        night, monkeypatch):
    path, here = night
    _edit(here.plan, lambda plan: plan.update(nodes_per_job=2))
    _edit(here.jobs, lambda jobs: [jobs[node].update(job='2', nodes=2)
                                   for node in ('n1', 'n2')])
    monkeypatch.setattr(gather.slurm_jobs, 'queue',
                        lambda *a: {'2': ('RUNNING', 'None')})
    cancelled = []
    monkeypatch.setattr(gather.slurm_jobs, 'cancel', cancelled.append)
    assert cli.main(['collect', '--cancel', path]) == 0
    assert cancelled == ['2']
    night_of = runs.read_report(path)[gather.KEY]
    assert sorted(night_of['left_out']) == ['n1', 'n2']
    assert gather.lines(runs.read_report(path))[0] == \
        'node jobs: 3 job(s) for 4 node(s), up to 2 a job'
    assert night_of['left_out']['n1'].startswith(
        'cancelled by hpc-acceptance collect --cancel')


def test_the_summary_says_how_the_night_ran_and_what_bound_it(night,
                                                               tmp_path):
    path, here = night
    db = str(tmp_path / 'results.db')
    _edit(here.plan, lambda plan: plan.update(bounds=[
        'at most 2 node job(s) queued at once of 4: MaxSubmitJobsPerUser 2 '
        'of QOS normal (root has 0 job(s) now)']))
    _did_not_start(here)
    gather.collect(path)
    lines = summary_text.summary_of(
        finished_run.of_reports([path], db_path=db), 200, db_path=db,
        site_dir=None).lines
    start = lines.index('node jobs: 4 job(s) for 4 node(s), one a node')
    assert lines[start + 1:start + 3] == [
        '  bound by: at most 2 node job(s) queued at once of 4: '
        'MaxSubmitJobsPerUser 2 of QOS normal (root has 0 job(s) now)',
        '  n4: did not start: its job pended for ReqNodeNotAvail, '
        'UnavailableNodes:n4']


@pytest.mark.parametrize('field, value', [
    # words where a number was: they never reach the verdict
    ('signal', '9; every check PASSED'),
    ('signal', True),
    ('reframe_status', '0'),
    ('ended', float('inf')),
])
def test_a_node_s_record_is_read_for_the_types_its_job_writes(night,
                                                               field, value):
    path, here = night
    _edit(here.status('n4'), lambda status: status.update({field: value}))
    assert field not in here.read_status('n4')
    report, _ = _collected(path)
    assert 'PASSED' not in json.dumps(report)
    fault = report[gather.KEY]['faults'].get('n4')
    if field == 'ended':
        # no end it could have written: the run did not end
        assert fault.startswith('died ')


def test_a_node_s_record_larger_than_a_record_is_none(night):
    path, here = night
    _edit(here.status('n4'), lambda status: status.update(
        padding='x' * STATUS_MAX_BYTES))
    assert here.read_status('n4') == {}
    report, status = _collected(path)
    # no record: its run is said not to have started, and named
    assert status == 1
    assert report[gather.KEY]['faults']['n4'].startswith(
        'its job ended (COMPLETED) before the run on the node started')


def test_a_skip_reframe_made_takes_its_reason_from_its_own_node_s_output(
        night):
    '''A skip ReFrame makes itself (a dependency skipped) records no
    reason: its SKIP line in the node's output is the only one, and the
    night's report keeps it. Each node's case takes its own node's line,
    never one another node wrote naming it (n4's forged line for n2 came
    last in the night's log, and was n2's reason). A node whose skips
    recorded their reasons keeps them, and its output unread.'''
    path, here = night
    line = ('[      SKIP ] (2/3) MemoryDaxpyCheck %isa=native '
            '%turbo=as-configured %smt=as-configured %threads=single '
            '%.part=slurm-nodes:compute %.nid={} /0a1b2c3d '
            '@slurm-nodes:compute+gnu [{}]\n')
    for node in ('n2', 'n3', 'n4'):
        with open(here.log(node), 'a') as fp:
            fp.write(line.format(node, f'why on {node}'))
    with open(here.log('n4'), 'a') as fp:
        fp.write(line.format('n2', 'n4 says: no reason to worry'))

    def skipped(reason):
        def change(report):
            case = next(c for c in report['runs'][0]['testcases']
                        if c['display_name'].startswith('MemoryDaxpyCheck'))
            # never submitted: no job, its node only in its name
            case.update(result='skip', perfvalues={}, skip_reason=reason,
                        job_nodelist=[], node=None)
        return change
    _edit(here.report('n2'), skipped(''))
    _edit(here.report('n3'), skipped('no Turbo control on this node'))
    _edit(here.report('n4'), skipped(None))
    # n3's output is no file to read: were it read, the night would hang
    os.unlink(here.log('n3'))
    os.mkfifo(here.log('n3'))
    report, _ = _collected(path)
    said = {case['node_session_uuid']: case['skip_reason']
            for case in report['runs'][0]['testcases']
            if case['result'] == 'skip'}
    sessions = {node: json.loads(Path(here.report(node)).read_text())[
        'session_info']['uuid'] for node in ('n2', 'n3', 'n4')}
    assert said == {sessions['n2']: 'why on n2',
                    sessions['n3']: 'no Turbo control on this node',
                    sessions['n4']: 'why on n4'}
    stored = json.loads(Path(path).read_text())
    assert [c['skip_reason'] for c in stored['runs'][0]['testcases']
            if c['result'] == 'skip'] == list(said.values())


def test_the_night_s_session_says_only_what_a_node_s_reframe_would(night):
    '''The night's session is the coordinator's: its extras are those the
    night was planned with, whatever a node's report says. A node's
    session naming a run it confirms made the whole night "the rerun of
    another run", which no verdict could read.'''
    path, here = night
    _edit(here.report('n1'), lambda report: report['session_info'].update(
        fleet_confirms='11111111-2222-3333-4444-555555555555',
        suite_mode='post-upgrade', fleet='no', nonsense='x'))
    report, status = _collected(path)
    info = report['session_info']
    assert status == 0
    assert info['suite_mode'] == 'nightly' and info['fleet'] == 'yes'
    assert not {'fleet_confirms', 'nonsense'} & set(info)
    assert info['version'] == '4.10.4' and info['data_version'] == '4.2'
    testcases, session = runs.report_run(path)
    assert session['uuid'] == info['uuid'] and len(testcases) == 16


def _fifo(path):
    '''``path`` made a named pipe no one writes: reading it waits for
    ever.'''
    if os.path.lexists(path):
        os.remove(path)
    os.mkfifo(path)


class Hung(Exception):
    '''No OSError: the readers' own handling of one must not take it.'''


@pytest.fixture
def deadline():
    '''Fail the test, rather than hang the suite, past 30 s.'''
    def expired(*_):
        raise Hung('the collecting hung')
    before = signal.signal(signal.SIGALRM, expired)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, before)


@pytest.mark.parametrize('part', ['report', 'status', 'log', 'perflog'])
def test_a_node_s_file_that_is_no_file_is_unreadable_not_waited_for(
        night, deadline, part):
    '''A node's job may leave anything where its files go: a named pipe
    opened for reading waits for a writer, and held the whole night's
    collecting.'''
    path, here = night
    if part == 'perflog':
        # n1's: the night's copy kept perflogs of one node
        _fifo(next(Path(here.perflogs('n1')).rglob('*.log')))
    else:
        if part == 'log':
            # its output is read where it did not end its work
            _edit(here.status('n4'), lambda s: s.pop('ended'))
        _fifo(getattr(here, part)('n4'))
    report, status = _collected(path)
    fault = report[gather.KEY]['faults'].get('n4')
    if part == 'report':
        assert fault.startswith('left no regular file where its report goes '
                                '(cannot read the run report ')
        assert fault.endswith(': not a regular file (a named pipe): not '
                              'read): its results are not used')
    elif part in ('status', 'log'):
        # no record: a run that did not start; no output: nowhere said
        assert fault.startswith(('its job ended', 'died ('))
    else:
        assert fault is None and status == 0
    assert [c['result'] for n in NODES[:3] for c in _cases(report, n)] == \
        ['pass'] * 3


def test_a_link_where_a_node_s_mark_goes_makes_no_file_elsewhere(
        night, tmp_path):
    '''The mark that a node's perflogs were added is made in its folder:
    a link the node left there is not followed (it would make or empty a
    file wherever it points), and the node's lines are added once.'''
    path, here = night
    mark = os.path.join(here.node_dir('n1'), 'perflogs.merged')
    for target in (tmp_path / 'elsewhere.db', tmp_path / 'kept.db'):
        if os.path.lexists(mark):
            os.remove(mark)
        if target.name == 'kept.db':
            target.write_text('data')
        os.symlink(target, mark)
        gather.collect(path)
        gather.collect(path)
        assert os.path.isfile(mark) and not os.path.islink(mark)
    assert not (tmp_path / 'elsewhere.db').exists()
    assert (tmp_path / 'kept.db').read_text() == 'data'
    # n1's one line, added by the first collecting only... and once more
    # after its mark was replaced by a link, which is no mark
    lines = (tmp_path / 'perflogs' / 'slurm-nodes' / 'compute' /
             'MemoryDaxpyCheck.log').read_text().splitlines()
    assert len(lines) == 3 and all('%.nid=n1 ' in l for l in lines[1:])


def test_a_node_s_perflog_lines_of_another_node_are_not_added(night,
                                                              tmp_path):
    '''n1's perflog says a line is n2's: the run's perflog would show a
    figure of n2 that n2 never measured. It is left out, and said.'''
    path, here = night
    perflog = next(Path(here.perflogs('n1')).rglob('MemoryDaxpyCheck.log'))
    own = perflog.read_text().splitlines()[1]
    with open(perflog, 'a') as fp:
        fp.write(own.replace('%.nid=n1 ', '%.nid=n2 ') + '\n')
    text, status = gather.collect(path)
    assert status == 0
    assert '  n1: 1 perflog line(s) of another node, not added' in \
        gather.lines(text.head)
    lines = (tmp_path / 'perflogs' / 'slurm-nodes' / 'compute' /
             'MemoryDaxpyCheck.log').read_text().splitlines()
    assert lines[1:] == [own]


def test_a_night_is_collected_and_stored_with_the_cyclic_collector_paused(
        night, tmp_path, monkeypatch):
    '''Each node's report read, and the night stored, with Python's
    cyclic garbage collector off (..common.cyclic_gc); on again after.'''
    import gc

    seen = []

    def watched(function):
        def call(*args, **kwargs):
            seen.append(gc.isenabled())
            return function(*args, **kwargs)
        return call

    monkeypatch.setattr(gather, 'outcome', watched(gather.outcome))
    monkeypatch.setattr(gather.database, 'store_validated',
                        watched(gather.database.store_validated))
    report, _ = night
    was_on = gc.isenabled()
    gc.enable()
    try:
        merged, _ = gather.collect(report)
        with open(tmp_path / 'store.log', 'w') as log:
            assert gather.store(report, merged, log,
                                str(tmp_path / 'results.db'))
        assert gc.isenabled()
    finally:
        (gc.enable if was_on else gc.disable)()
    assert len(seen) == len(NODES) + 1 and not any(seen)
