'''What a fleet night costs (ci/bench/fleet_cost.py): Slurm's times of
each job read from real slurmctld and slurmd logs, the night's wall time
given to programs, jobs, Slurm, ReFrame and the tools around it, and the
growth fitted and projected.'''

import importlib.util
import io
import json
import sys
from datetime import datetime

import pytest

from conftest import DATA_DIR, PROJECT_DIR

BENCH = PROJECT_DIR / 'ci' / 'bench'
sys.path.insert(0, str(BENCH))
spec = importlib.util.spec_from_file_location('fleet_cost',
                                              BENCH / 'fleet_cost.py')
fleet_cost = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fleet_cost)

SLURM = DATA_DIR / 'slurm'


def at(text):
    return datetime.fromisoformat(f'2026-11-25T{text}').timestamp()


def test_slurm_s_own_times_of_each_job():
    jobs = fleet_cost.slurm_jobs(
        (SLURM / 'slurmctld-fleet.log').read_text(),
        [(SLURM / 'slurmd-fleet-n3.log').read_text()])
    # 73 was submitted before the lines begin: only its end is there
    assert sorted(jobs) == [73, 74, 75, 76]
    assert jobs[73]['submitted'] is None and jobs[73]['completed']
    times = {key: value for key, value in jobs[74].items() if key != 'node'}
    assert times == pytest.approx({
        'submitted': at('18:40:27.493'), 'allocated': at('18:40:29.474'),
        'launched': at('18:40:29.480'), 'done': at('18:40:46.313'),
        'completed': at('18:40:46.312')})
    assert jobs[74]['node'] == 'n3'
    # started by the backfill scheduler, not at submission
    assert jobs[75]['allocated'] == pytest.approx(at('18:40:49.500'))
    assert jobs[75]['node'] == 'n3'
    assert jobs[76]['launched'] == pytest.approx(at('18:40:59.547'))


def test_a_job_without_its_node_s_log_has_no_launch():
    jobs = fleet_cost.slurm_jobs(
        (SLURM / 'slurmctld-fleet.log').read_text(), [])
    assert jobs[76]['launched'] is None and jobs[76]['done'] is None
    assert jobs[76]['completed'] == pytest.approx(at('18:41:07.847'))
    assert fleet_cost.per_job(jobs, [])['submission to start'] is None


def proc(pid, ppid, start, end, argv, cwd='/', cpu=0.0, child_cpu=0.0):
    return {'pid': pid, 'ppid': ppid, 'start': start, 'end': end,
            'zombie': None, 'argv': argv, 'cwd': cwd, 'cpu': cpu,
            'child_cpu': child_cpu}


STAGE = '/s/prefix/stage/slurm-nodes/compute/gnu/MemoryDaxpyCheck_1'


def night(t0=0.0):
    '''From t0, 0-100 s: acceptance.sh (pid 1); setup 0-5; reframe 5-80
    (sbatch 10-11, squeue 50-51); one job: submitted at 11, allocated
    12.5, launched 13, the batch script 13-40 in its stage directory
    (its parent slurmstepd, which the timeline does not follow), the
    program 15-35, done 40, seen ended by ReFrame at 43; the page
    85-95.'''
    timeline = {
        'command': ['ci/acceptance.sh'], 'pid': 1, 'status': 0,
        'interval': 0.1, 'start': t0, 'end': t0 + 100,
        'processes': [
            proc(1, 0, t0, t0 + 100, ['bash', 'ci/acceptance.sh']),
            proc(2, 1, t0, t0 + 5, ['bash', 'ci/setup.sh']),
            proc(3, 1, t0 + 5, t0 + 80, ['python', '/v/bin/reframe', '-r'],
                 cpu=20.0, child_cpu=1.5),
            proc(4, 3, t0 + 10, t0 + 11, ['sbatch', 'rfm_job.sh']),
            proc(5, 3, t0 + 50, t0 + 51, ['squeue', '-h']),
            proc(6, 999, t0 + 13, t0 + 40,
                 ['/bin/bash', '/spool/slurm_script'], cwd=STAGE),
            proc(7, 6, t0 + 13.5, t0 + 14.5, ['/c/core_clock'], cwd=STAGE),
            proc(8, 998, t0 + 15, t0 + 35, ['/b/mem_daxpy', '--span-ms=200'],
                 cwd=STAGE),
            proc(9, 1, t0 + 85, t0 + 95,
                 ['python', '/v/bin/hpc-acceptance', 'page'], cpu=8.0),
        ],
    }
    jobs = {7: {'submitted': t0 + 11, 'allocated': t0 + 12.5, 'node': 'n1',
                'launched': t0 + 13, 'done': t0 + 40, 'completed': t0 + 40}}
    cases = [{'jobid': '7', 'name': 'MemoryDaxpyCheck %.nid=n1',
              'fixture': False, 'executable': '/b/mem_daxpy',
              'job_completion_time_unix': t0 + 43}]
    return timeline, jobs, cases


def test_every_second_of_the_night_goes_to_one_class():
    timeline, jobs, cases = night()
    spans = list(fleet_cost.process_spans(timeline, {'mem_daxpy'})) + \
        list(fleet_cost.job_spans(jobs, cases))
    per_class, per_label, _ = fleet_cost.suite_cost.attribute(
        spans, 0, 100, order=fleet_cost.CLASSES)
    assert dict(per_class) == pytest.approx({
        'setup': 5, 'programs': 20, 'jobs': 27 - 20, 'slurm': 13 - 11,
        'polling': 3, 'commands': 1 + 1, 'reframe': 5 + 7 + 29,
        'reports': 10, 'other': 5 + 5})
    # the job's own processes, adopted from the stage directory
    assert per_label['jobs', 'core_clock'] == pytest.approx(1)
    assert per_label['commands', 'sbatch'] == pytest.approx(1)
    assert per_label['reports', 'page'] == pytest.approx(10)


def test_cpu_of_reframe_counts_its_commands_once():
    timeline, _, _ = night()
    assert fleet_cost.cpu_of(timeline, 'reframe') == pytest.approx(21.5)
    assert fleet_cost.cpu_of(timeline, 'hpc-acceptance') == \
        pytest.approx(8.0)


def test_the_tools_cpu_leaves_out_the_reframe_they_start():
    # hpc-acceptance run (1.5 s of its own) starts ReFrame (20 + 1.5 s)
    # and reaps it: its children's time holds ReFrame's
    timeline = {'processes': [
        proc(1, 0, 0, 100, ['python', '/v/bin/hpc-acceptance', 'run'],
             cpu=1.5, child_cpu=21.5 + 8.0),
        proc(3, 1, 5, 80, ['python', '/v/bin/reframe', '-r'], cpu=20.0,
             child_cpu=1.5),
        proc(4, 3, 10, 11, ['sbatch', 'rfm_job.sh']),
        proc(9, 1, 85, 95, ['python', '/v/bin/hpc-acceptance', 'page'],
             cpu=8.0),
    ]}
    assert fleet_cost.cpu_of(timeline, 'reframe') == pytest.approx(21.5)
    assert fleet_cost.cpu_of(timeline, 'hpc-acceptance',
                             apart={'reframe'}) == pytest.approx(1.5 + 8.0)


def test_per_job_steps():
    _, jobs, cases = night()
    assert fleet_cost.per_job(jobs, cases) == pytest.approx({
        'submission to start': 2.0, 'scheduler': 1.5,
        'start on the node': 0.5, 'on the node': 27.0, 'noticed': 3.0})


def test_a_night_measured_from_its_folder(tmp_path):
    timeline, _, cases = night(at('19:00:00'))
    (tmp_path / 'timeline.json').write_text(json.dumps(timeline))
    (tmp_path / 'cluster.json').write_text(json.dumps({
        'nodes': 4, 'started': '2026-11-25T19:00:00Z', 'status': 0,
        'slurmctld_cpu': 0.42, 'load': [3.5, 4.25]}))
    (tmp_path / 'reports').mkdir()
    (tmp_path / 'reports' / 'fleet.json').write_text(json.dumps({
        'session_info': {'time_elapsed': 75.0},
        'runs': [{'testcases': cases}]}))
    slurm = tmp_path / 'slurm'
    slurm.mkdir()
    (slurm / 'slurmctld.log').write_text(
        '[2026-11-25T19:00:11.000] _slurm_rpc_submit_batch_job: JobId=7 '
        'InitPrio=4294901686 usec=481\n'
        '[2026-11-25T19:00:12.500] sched: Allocate JobId=7 NodeList=n1 '
        '#CPUs=1 Partition=compute\n')
    (slurm / 'slurmd-n1.log').write_text(
        '[2026-11-25T19:00:13.000] Launching batch job 7 for UID 0\n'
        '[2026-11-25T19:00:40.000] [7.batch] done with job\n')
    measured = fleet_cost.measure(tmp_path)
    assert measured['nodes'] == 4 and measured['jobs'] == 1
    assert measured['test cases'] == 1 and measured['sessions'] == [75.0]
    assert measured['wall'] == 100.0
    assert measured['cpu'] == {'reframe': 21.5, 'tools': 8.0,
                               'coordinator': 8.0, 'slurmctld': 0.4}
    # from the first submission (11 s) to the end (100 s); n1 busy 27 s,
    # the programs' 20 s shared by the 4 nodes
    assert measured['mode'] == 'node-jobs' and measured['night'] is None
    assert measured['to verdict'] == 89.0
    assert measured['per node'] == {'busy': 27.0, 'programs': 5.0,
                                    'overhead': 22.0}
    assert measured['per job'] == pytest.approx({
        'submission to start': 2.0, 'scheduler': 1.5,
        'start on the node': 0.5, 'on the node': 27.0, 'noticed': 3.0})
    assert measured['classes'] == pytest.approx({
        'setup': 5, 'programs': 20, 'jobs': 7, 'slurm': 2, 'polling': 3,
        'builds': 0, 'commands': 2, 'reframe': 41, 'reports': 10,
        'other': 10})


def test_the_fit_is_least_squares():
    assert fleet_cost.fit([1, 2, 3], [3, 5, 7]) == pytest.approx((1, 2))
    a, b = fleet_cost.fit([12, 24, 48, 96], [100, 160, 290, 540])
    # the residuals sum to zero and are orthogonal to x
    residuals = [y - a - b * x for x, y in
                 zip([12, 24, 48, 96], [100, 160, 290, 540])]
    assert sum(residuals) == pytest.approx(0, abs=1e-9)
    assert sum(r * x for r, x in zip(residuals, [12, 24, 48, 96])) == \
        pytest.approx(0, abs=1e-6)


def measures(nodes, jobs, wall, programs):
    rest = wall - programs
    return {'nodes': nodes, 'jobs': jobs, 'wall': wall, 'load': [4.0, 5.0],
            'classes': dict.fromkeys(fleet_cost.CLASSES, 0.0) | {
                'programs': programs, 'reframe': rest},
            'per job': {'submission to start': 2.0, 'noticed': 0.5},
            'cpu': {'reframe': 1.0 * jobs, 'tools': 5.0,
                    'slurmctld': 0.01 * jobs}}


def cells(row):
    return [cell.strip() for cell in row.strip('|').split('|')]


def test_the_table_projects_each_figure_to_the_fleet_s_size():
    out = io.StringIO()
    fleet_cost.table([measures(8, 24, 140, 48), measures(4, 12, 80, 24)],
                     1000, out)
    text = out.getvalue()
    rows = [cells(line) for line in text.splitlines()
            if line.startswith('| ')]
    # sorted by size, the benchmark's share of each night
    assert rows[1][:6] == ['4', '12', '80 s', '30%', '2.00 s', '0.50 s']
    assert rows[2][:4] == ['8', '24', '140 s', '34%']
    assert 'jobs = 0.0 + 3.00 x nodes: 3000 jobs at 1000 nodes' in text
    fitted = {row[0]: row[1:] for row in rows}
    # wall = 20 + 5 s a job; the programs 2 s a job, 40 % of it
    assert fitted['wall time (s)'] == ['20.0', '5.000', '15020 s', '']
    assert fitted['benchmark programs (s)'][2:] == ['6000 s', '40%']
    assert fitted['slurmctld CPU (s)'][1:] == ['0.010', '30 s', '']


def test_one_size_is_not_fitted():
    out = io.StringIO()
    fleet_cost.table([measures(4, 12, 80, 24)], 1000, out)
    assert '(one size: no fit)' in out.getvalue()


def test_the_fleet_mode_is_the_run_s():
    assert fleet_cost.mode_of(['--fleet-mode', 'distribute', '-n', 'x']) \
        == 'distribute'
    assert fleet_cost.mode_of(['--fleet-mode=node-jobs']) == 'node-jobs'
    assert fleet_cost.mode_of(['-n', 'x']) == 'node-jobs'
    assert fleet_cost.mode_of(['--fleet-mode', 'node-jobs',
                               '--nodes-per-job', '4']) == 'node-groups'
    assert fleet_cost.mode_of(['--nodes-per-job=4', '--fleet-mode',
                               'distribute']) == 'distribute'


def both_ways(nodes, mode):
    """A night of ``nodes`` nodes, 3 test cases each: one job per test
    case and node (and 5 more), 0.1 s of ReFrame a job; or one a node (and
    1 more), 0.005 s a node to submit and watch, 0.001 s a test case to
    collect and store."""
    cases = 3 * nodes
    if mode == 'distribute':
        jobs, night, reframe = 5 + cases, None, 10 + 0.1 * (5 + cases)
    else:
        sbatch = nodes if mode == 'node-jobs' else nodes // 4
        jobs, reframe = 1 + sbatch, 4.0
        night = {'submit and watch': 0.5 + 0.005 * sbatch,
                 'collect': 0.0005 * cases, 'store': 0.0005 * cases,
                 'sbatch': sbatch}
    return {'mode': mode, 'nodes': nodes, 'jobs': jobs, 'test cases': cases,
            'night': night, 'cpu': {'reframe': reframe,
                                    'slurmctld': 0.02 * jobs}}


def test_both_ways_are_projected_to_the_nightly_set_at_scale():
    nights = [both_ways(n, mode) for n in (4, 8, 16)
              for mode in ('distribute', 'node-jobs', 'node-groups')]
    found = fleet_cost.projected(nights, 10000, cases=30)
    jobs, cpu, ctld = found['distribute']
    assert jobs == pytest.approx(5 + 300000)
    assert cpu == pytest.approx(10 + 0.1 * (5 + 300000))
    assert ctld == pytest.approx(0.02 * (5 + 300000))
    jobs, cpu, ctld = found['node-jobs']
    assert jobs == pytest.approx(10001)
    assert cpu == pytest.approx(4 + 0.5 + 0.005 * 10000 +
                                0.001 * 10000 * 30)
    assert ctld == pytest.approx(0.02 * 10001)
    # the default's jobs of several nodes: 64 at 10,000 nodes
    jobs, cpu, ctld = found['node-groups']
    assert jobs == pytest.approx(64 + 1)
    assert cpu == pytest.approx(4 + 0.5 + 0.005 * 64 + 0.001 * 10000 * 30)
    assert ctld == pytest.approx(0.02 * 65)
