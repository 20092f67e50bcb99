'''The post-upgrade verdict after real nightly runs (ci/post-upgrade.sh's
command, hpc-acceptance post-upgrade).

Two nightly runs of a memory check fill a private results database; the
post-upgrade run of the same inputs is judged against them, one of other
inputs has no baseline and exits 2. Whether this loaded machine's figures
land within noise is not asserted: the verdict's shape and the baseline
it found are.
'''

import json
import os
import subprocess

from conftest import HPC_ACCEPTANCE, ONE_TIMED_RUN, PROJECT_DIR

SELECT = ['-c', 'checks/memory', '-n', 'MemoryDaxpyCheck',
          '--exclude-tag=variant', *ONE_TIMED_RUN]


def post_upgrade(tmp_path, *reframe_args):
    env = dict(os.environ, RFM_SQLITE_DB_FILE=str(tmp_path / 'results.db'),
               RFM_PREFIX=str(tmp_path / 'prefix'),
               RFM_PERFLOG_DIR=str(tmp_path / 'perflogs'), RFM_COLORIZE='n')
    out = tmp_path / 'verdict'
    done = subprocess.run(
        [HPC_ACCEPTANCE, 'post-upgrade', '--min-runs', '2',
         '--output-dir', str(out),
         '--json', str(out / 'verdict.json'), '--', *reframe_args],
        cwd=PROJECT_DIR, env=env, text=True, capture_output=True,
        timeout=1800)
    return done, json.loads((out / 'verdict.json').read_text())


def test_verdict_against_stored_nightly_runs_of_the_same_inputs(
        run_reframe, tmp_path):
    for _ in range(2):
        done = run_reframe(*SELECT, '-r',
                           '--session-extras=suite_mode=nightly')
        assert done.returncode == 0, done.stdout[-2000:]

    done, verdict = post_upgrade(tmp_path, *SELECT)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    figures = verdict['figures']
    assert figures and all(f['baseline_runs'] == 2 for f in figures)
    assert {f['verdict'] for f in figures} <= {'regressed', 'within noise',
                                               'improved'}
    assert verdict['exit_status'] == done.returncode
    # ReFrame's own output first, then the table: one line per figure
    header, *lines = done.stdout[done.stdout.rindex('\nverdict '):].split(
        '\n')[1:-1]
    assert header.split()[:3] == ['verdict', 'check', '/']
    assert len(lines) == len(figures)

    # other inputs: nothing to compare with, and that is not a success
    done, verdict = post_upgrade(tmp_path, *SELECT[:-1], 'repeats=2')
    assert done.returncode == 2, done.stderr[-2000:]
    assert {f['verdict'] for f in verdict['figures']} == {'no baseline'}
