'''The suite's cost (ci/bench/suite_cost.py and process_timeline.py): a
real timeline of a small process tree, and the attribution of a nightly's
wall time to programs, job scripts, builds, polling and ReFrame.'''

import importlib.util
import io
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import PROJECT_DIR

BENCH = PROJECT_DIR / 'ci' / 'bench'


def load(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


suite_cost = load('suite_cost')


def test_the_timeline_sees_children_and_grandchildren(tmp_path):
    out = tmp_path / 'timeline.json'
    done = subprocess.run(
        [sys.executable, str(BENCH / 'process_timeline.py'), str(out),
         '--interval', '0.05', '--', 'bash', '-c',
         'sleep 0.6 & bash -c "sleep 0.4; true"; wait; exit 3'],
        timeout=60)
    assert done.returncode == 3
    timeline = json.loads(out.read_text())
    assert timeline['status'] == 3
    [root] = [p for p in timeline['processes'] if p['argv'][:1] == ['bash']
              and p['argv'][1] == '-c' and 'exit 3' in p['argv'][2]]
    sleeps = {p['argv'][1]: p for p in timeline['processes']
              if p['argv'][:1] == ['sleep']}
    assert set(sleeps) == {'0.6', '0.4'}
    inner = next(p for p in timeline['processes']
                 if p['argv'] == ['bash', '-c', 'sleep 0.4; true'])
    assert sleeps['0.4']['ppid'] == inner['pid']
    assert inner['ppid'] == root['pid'] == sleeps['0.6']['ppid']
    # start from the kernel, end late by a few looks (more on a loaded
    # machine, where the looks themselves wait for a core)
    took = sleeps['0.6']['end'] - sleeps['0.6']['start']
    assert 0.6 <= took <= 0.6 + 1.0
    assert timeline['start'] <= root['start'] + 0.05
    assert root['end'] <= timeline['end']


def test_the_timeline_adopts_processes_working_under_a_folder(tmp_path):
    '''A scheduler's job: started by its daemon, not by the command, in
    the stage directory; one elsewhere is not the run's.'''
    out, stage = tmp_path / 'timeline.json', tmp_path / 'stage' / 'Check_1'
    stage.mkdir(parents=True)
    timeline = subprocess.Popen(
        [sys.executable, str(BENCH / 'process_timeline.py'), str(out),
         '--interval', '0.05', '--also-under', str(tmp_path / 'stage'),
         '--', 'sleep', '2'])
    time.sleep(0.5)
    job = subprocess.Popen(['sleep', '0.8'], cwd=stage)
    other = subprocess.Popen(['sleep', '0.7'], cwd=tmp_path)
    for proc in (job, other, timeline):
        proc.wait(timeout=60)

    records = json.loads(out.read_text())['processes']
    adopted = [p for p in records if p['argv'][:1] == ['sleep']]
    assert [(p['argv'], p['cwd'], p['ppid']) for p in adopted] == [
        (['sleep', '2'], os.getcwd(), timeline.pid),
        (['sleep', '0.8'], str(stage), os.getpid())]
    assert all(p['cpu'] >= 0 and p['child_cpu'] >= 0 for p in records)


@pytest.mark.parametrize('argv, name', [
    (['/w/.venv/bin/python', '/w/.venv/bin/reframe', '-C', 'x'], 'reframe'),
    (['/bin/bash', 'ci/setup.sh'], 'setup.sh'),
    (['python3', '-m', 'hpc_acceptance.tools.launch.lock', '--'], 'lock'),
    (['/w/stage/Check/rfm_job.sh'], 'rfm_job.sh'),
    (['/usr/bin/python3', '-u', '/s/bin/spack', '-e', 'env'], 'spack'),
    ([], '?'),
])
def test_process_names(argv, name):
    assert suite_cost.process_name(argv) == name


def proc(pid, ppid, start, end, argv, cwd='/', zombie=None):
    return {'pid': pid, 'ppid': ppid, 'start': start, 'end': end,
            'zombie': zombie, 'argv': argv, 'cwd': cwd}


def nightly_timeline():
    '''0-100 s: acceptance.sh; setup 0-10; reframe 10-90; a build 15-25;
    a job 30-70 (spack load 30-35, mpirun 35-69, the program 36-66), an
    exited job script not reaped 70-74; summary 90-95.'''
    stage = '/v/stage/local/default/gnu/MemoryLatencyCheck_1'
    return {
        'command': ['ci/acceptance.sh'], 'status': 0, 'interval': 0.1,
        'start': 0.0, 'end': 100.0,
        'processes': [
            proc(1, 0, 0, 100, ['bash', 'ci/acceptance.sh']),
            proc(2, 1, 0, 10, ['bash', 'ci/setup.sh']),
            proc(3, 1, 10, 90, ['python', '/v/bin/reframe', '-r']),
            proc(4, 3, 12, 14, ['python', '/s/bin/spack', 'find']),
            proc(5, 3, 15, 25, ['/v/stage/B/rfm_build.sh'],
                 cwd='/v/stage/local/default/gnu/StreamInTreeBuild'),
            proc(6, 5, 16, 24, ['make']),
            proc(7, 3, 30, 74, [f'{stage}/rfm_job.sh'], cwd=stage,
                 zombie=70),
            proc(8, 7, 30, 35, ['python', '/s/bin/spack', 'load']),
            proc(9, 7, 35, 69, ['mpirun', '-np', '1', 'mem_latency']),
            proc(10, 9, 36, 66, ['/b/mem_latency', '--span-ms=2000']),
            proc(11, 1, 90, 95, ['python', '/v/bin/hpc-acceptance',
                                 'summary']),
        ],
    }


def test_every_second_goes_to_one_class():
    timeline = nightly_timeline()
    processes = suite_cost.Processes(timeline['processes'])
    spans = list(suite_cost.intervals(processes, {'mem_latency'}))
    per_class, per_label, per_test = suite_cost.attribute(spans, 0, 100)
    assert dict(per_class) == pytest.approx({
        'setup': 10, 'reframe': 2 + 1 + 5 + 16, 'commands': 2,
        'builds': 10, 'jobs': 5 + 1 + 3 + 1, 'programs': 30, 'polling': 4,
        'reports': 5, 'other': 5})
    assert sum(per_class.values()) == pytest.approx(100)
    # within the job: spack load, then mpirun around the program
    assert per_label['jobs', 'spack'] == pytest.approx(5)
    assert per_label['jobs', 'mpirun'] == pytest.approx(4)
    assert per_label['reports', 'summary'] == pytest.approx(5)
    assert per_test['polling', 'MemoryLatencyCheck_1'] == pytest.approx(4)
    assert per_test['builds', 'StreamInTreeBuild'] == pytest.approx(10)


def test_the_summary_names_the_ratio_and_the_rest(tmp_path):
    report = tmp_path / 'report.json'
    report.write_text(json.dumps({
        'session_info': {'time_elapsed': 80.0},
        'runs': [{'testcases': [
            {'display_name': 'StreamInTreeBuild', 'fixture': True,
             'time_run': None, 'time_compile': 10.0},
            {'display_name': 'MemoryLatencyCheck', 'fixture': False,
             'executable': '/b/mem_latency', 'time_run': 44.0,
             'time_compile': 0.0, 'job_submit_time': 30.0,
             'job_completion_time_unix': 74.0}]}]}))
    out = io.StringIO()
    suite_cost.summary(nightly_timeline(), [str(report)], out)
    lines = out.getvalue().splitlines()
    assert lines[1].split() == ['wall', 'time', '100.0', 's']
    assert lines[2].startswith('benchmark programs') and '30.0 s' in lines[2]
    assert 'mem_latency 30.0' in lines[2]
    assert lines[3].split()[:5] == ['ratio', 'wall', '/', 'programs', '3.33']
    assert 'where the rest goes (70.0 s):' in lines
    assert any(line.split()[:2] == ['ReFrame', 'itself'] and '24.0' in line
               for line in lines)
    assert ("ReFrame's report: session 80.0 s; 1 jobs from submission to "
            "completion 44.0 s; builds' time_compile 10.0 s") in lines
