'''Post-upgrade validation as sysadmins do it, for real: ``ci/post-upgrade.sh
--before``, the "upgrade", then ``ci/post-upgrade.sh``, on a memory check
of this machine, each run with a results database of the test's own.

A quiet "after" run must find every figure within noise and name what
changed (the binary came from PATH this time); an "after" run whose
benchmark is slowed for real (held to 30 % of a core in a cgroup) must call
its figures regressed; an interrupted ``--before`` run is no baseline.
The noise floor is the one this kind of VM needs (ci/bench/README.md,
"The quiet proof of 2026-11-23").
'''

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ONE_TIMED_RUN, PROJECT_DIR
from helpers.report_cases import CLOCK_FIGURES
from hpc_acceptance.core.references import unbounded
from hpc_acceptance.tools.upgrade.judgement import NOT_JUDGED, RECOVERED

SELECT = ['-n', 'MemoryDaxpyCheck.*single', '--exclude-tag=variant',
          '-S', 'span_ms=200']
CGROUP_V1 = Path('/sys/fs/cgroup/cpu')


def environment(tmp_path, **extra):
    return dict(os.environ, RFM_SQLITE_DB_FILE=str(tmp_path / 'results.db'),
                RFM_PREFIX=str(tmp_path / 'prefix'),
                RFM_PERFLOG_DIR=str(tmp_path / 'perflogs'),
                RFM_REPORT_JUNIT=str(tmp_path / 'junit.xml'),
                RFM_REPORT_FILE=str(tmp_path / 'reports' / 'report.json'),
                RFM_COLORIZE='n', NOISE_FLOORS='Memory=0.5',
                HPC_ACCEPTANCE_LOCK_FILE=str(tmp_path / 'run.lock'),
                HPC_ACCEPTANCE_SPACK='off', HPC_ACCEPTANCE_SYSTEM='local',
                **extra)


def script(tmp_path, *args, env=None, preexec_fn=None):
    return subprocess.run(
        [str(PROJECT_DIR / 'ci' / 'post-upgrade.sh'), *args],
        env=env or environment(tmp_path), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1800,
        preexec_fn=preexec_fn)


def verdict_of(done):
    path = done.stdout.rsplit('post-upgrade: verdict table in ', 1)[1]
    return json.loads(Path(path.split()[0]).read_text())


def judged(done):
    '''The rows of the verdict table that were judged: not those of how
    steady the repetitions were (the median one, best/median), which are
    shown and never judged.'''
    rows = verdict_of(done)['figures']
    steadiness = [f for f in rows if f['verdict'] == NOT_JUDGED]
    assert {f['figure'] for f in steadiness} == {
        f['figure'] for f in rows if unbounded(f['figure'])}
    return [f for f in rows if f not in steadiness]


def native_build_on_path(tmp_path):
    '''The in-tree build the --before run used, copied onto PATH: the same
    program, from another source.'''
    [built] = (tmp_path / 'prefix' / 'stage').rglob('native/mem_daxpy')
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    shutil.copy2(built, bindir / 'mem_daxpy')
    return environment(tmp_path, PATH=f'{bindir}:{os.environ["PATH"]}')


def test_before_then_a_quiet_after_is_within_noise_and_says_what_changed(
        tmp_path):
    # two baseline runs, as a site takes several: a single --before run
    # once read an L1 figure at 58 % of the after's (a full test run, the
    # test alone on the cores: the host's noise), and a one-run baseline
    # then rightly says "improved"
    for runs in (1, 2):
        before = script(tmp_path, '--before', *SELECT, '--keep-stage-files')
        assert before.returncode == 0, before.stdout[-3000:]
        assert 'post-upgrade --before recorded: ' in before.stdout
        assert f'the baseline now holds {runs} --before session(s)' \
            in before.stdout

    after = script(tmp_path, *SELECT, env=native_build_on_path(tmp_path))
    assert after.returncode == 0, after.stdout[-3000:]
    figures = judged(after)
    # a figure the host's noise put out of its band on the first run
    # (seen in a full CI run: another job's writeback beside it) is rerun,
    # and is within noise on its rerun: the verdict's own way with noise
    assert figures and {f['verdict'] for f in figures} <= {
        'within noise', RECOVERED}, figures
    assert any(f['verdict'] == 'within noise' for f in figures), figures
    assert all(f['baseline'] == 'before' and f['baseline_runs'] == 2 and
               f['note'] == 'few baseline runs' for f in figures)
    changed = after.stdout[after.stdout.index('what changed since'):]
    assert 'MemoryDaxpyCheck %threads=single: binary in-tree:' in changed
    assert f'-> path:{tmp_path}/bin/mem_daxpy' in changed


def slowed_on_path(tmp_path, group):
    '''The environment of an after run whose benchmark, the in-tree build
    of the before run, comes from PATH through a wrapper that puts it in
    the cgroup ``group`` first: only the benchmark is slowed, as a slower
    node slows it, not ReFrame, the build or the clock probe beside it
    (the whole run at 30 % took four minutes).'''
    env = native_build_on_path(tmp_path)
    bindir = tmp_path / 'bin'
    (bindir / 'mem_daxpy').rename(bindir / 'mem_daxpy.real')
    wrapper = bindir / 'mem_daxpy'
    wrapper.write_text(
        '#!/bin/sh\n'
        f'echo $$ > {group}/cgroup.procs || exit 1\n'
        f'exec {bindir}/mem_daxpy.real "$@"\n')
    wrapper.chmod(0o755)
    return env


def test_a_slowed_benchmark_regresses(tmp_path):
    if not (CGROUP_V1 / 'cpu.cfs_quota_us').exists():
        pytest.skip('no cgroup v1 cpu controller to slow the run with')

    before = script(tmp_path, '--before', *SELECT, '--keep-stage-files')
    assert before.returncode == 0, before.stdout[-3000:]
    # 30 % of a core in 3.3 ms periods: no repetition goes through whole
    group = CGROUP_V1 / f'rfmacc-post-upgrade-{os.getpid()}'
    group.mkdir()
    try:
        (group / 'cpu.cfs_period_us').write_text('3333')
        (group / 'cpu.cfs_quota_us').write_text('1000')
        after = script(tmp_path, *SELECT,
                       env=slowed_on_path(tmp_path, group))
    finally:
        for pid in (group / 'cgroup.procs').read_text().split():
            (CGROUP_V1 / 'cgroup.procs').write_text(pid)
        group.rmdir()

    assert after.returncode == 1, after.stdout[-3000:]
    rows = judged(after)
    benchmark = [f for f in rows if f['figure'] not in CLOCK_FIGURES]
    regressed = {f['figure'] for f in benchmark
                 if f['verdict'] == 'regressed'}
    # most of the benchmark's figures (a repetition shorter than the 1 ms
    # quota may go through at full speed); the clock probe was not slowed
    assert len(regressed) >= 2 * len(benchmark) / 3, rows
    assert not any(f['verdict'] == 'improved' for f in rows)
    assert all(f['rerun_value'] is not None for f in rows
               if f['verdict'] == 'regressed')


def test_an_interrupted_before_run_is_no_baseline(tmp_path):
    run = subprocess.Popen(
        [str(PROJECT_DIR / 'ci' / 'post-upgrade.sh'), '--before', '-n',
         'MemoryDaxpyCheck|MemoryReadBandwidthCheck', '--exclude-tag=variant',
         *ONE_TIMED_RUN], env=environment(tmp_path), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 600
    while not list((tmp_path / 'prefix').glob('stage/*/*/*/Memory*Check*')):
        assert run.poll() is None and time.monotonic() < deadline
        time.sleep(0.2)

    run.send_signal(signal.SIGINT)
    out, _ = run.communicate(timeout=600)
    assert run.returncode == 1, out[-3000:]
    assert 'post-upgrade --before INTERRUPTED: this run is not a baseline' \
        in out

    after = script(tmp_path, *SELECT)
    assert 'was interrupted (aborted test cases): not used as a baseline' \
        in after.stdout
    assert 'baseline: 0 --before session(s)' in after.stdout
    assert after.returncode == 2, after.stdout[-3000:]


def test_other_work_than_the_baseline_is_missing_and_fails(tmp_path):
    '''The work changed after the upgrade (a span, as a task count would):
    the baseline's figures are missing, naming the input that changed, and
    the new ones have no baseline. RFM_REPORT_FILE holds ReFrame's
    {sessionid}: the runs' files go to its folder.'''
    reports = tmp_path / 'reports'
    env = dict(environment(tmp_path),
               RFM_REPORT_FILE=str(reports / 'run-report-{sessionid}.json'))
    before = script(tmp_path, '--before', *SELECT, env=env)
    assert before.returncode == 0, before.stdout[-3000:]
    after = script(tmp_path, *SELECT[:-1], 'span_ms=300', env=env)
    assert after.returncode == 1, after.stdout[-3000:]
    figures = judged(after)
    assert {f['verdict'] for f in figures} == \
        {'no baseline', 'missing after the upgrade'}
    missing = [f for f in figures
               if f['verdict'] == 'missing after the upgrade']
    assert len(missing) == len(figures) / 2
    assert all(f['note'].startswith('ran other work: executable_opts ') and
               '--span-ms=200 -> ' in f['note'] and
               f['note'].endswith('--span-ms=300') for f in missing), missing
    assert 'post-upgrade FAILED: ' in after.stdout.splitlines()[-1]
    assert len(list(reports.glob('post-upgrade-*-verdict.json'))) == 1
