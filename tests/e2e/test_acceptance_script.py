'''ci/acceptance.sh: a run that validated nothing is not a success.'''

import json
import os
import re
import shutil
import signal
import subprocess
import time

from conftest import DATA_DIR, ONE_TIMED_RUN, PROJECT_DIR, REFRAME
from helpers import doc_blocks
from helpers.acceptance_run import (acceptance, environment, start_acceptance,
                                    wait_for)


EARLIER = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'


def test_no_check_selected_is_not_validated(tmp_path):
    # an earlier run's report and log at RFM_REPORT_FILE's fixed name: kept
    # (the database's recovery imports it), never read as this run's
    shutil.copy(EARLIER, tmp_path / 'report.json')
    (tmp_path / 'report.log').write_text('its output')
    done = acceptance(tmp_path, '-n', 'NoSuchCheck')
    assert done.returncode == 2
    assert ('acceptance NOT VALIDATED: no check was selected'
            in done.stdout)
    [kept] = tmp_path.glob('report-*Z.json')
    assert kept.read_bytes() == EARLIER.read_bytes()
    assert kept.with_suffix('.log').read_text() == 'its output'
    assert f"report.json kept as {kept}" in done.stdout


def test_everything_skipped_is_not_validated(tmp_path):
    # RFM_REPORT_FILE with ReFrame's {sessionid}: this run is number 1
    reports = tmp_path / 'reports'
    reports.mkdir()
    shutil.copy(EARLIER, reports / 'run-0.json')
    done = acceptance(tmp_path, '-n', 'MemoryNumaCheck', env=dict(
        environment(tmp_path),
        RFM_REPORT_FILE=str(reports / 'run-{sessionid}.json')))
    assert done.returncode == 2, done.stdout[-3000:]
    assert 'every check was skipped' in done.stdout
    assert (reports / 'run-0.json').read_bytes() == EARLIER.read_bytes()
    cases = json.loads((reports / 'run-1.json').read_text())['runs'][0][
        'testcases']
    assert {c['result'] for c in cases if not c['fixture']} == {'skip'}
    assert "ReFrame's output goes to " \
        f"{reports / 'run-1.log'}" in done.stdout


def test_a_passing_check_is_validated(tmp_path):
    # the quick start's command as README.md writes it, the selection
    # narrowed to one check
    quick_start = doc_blocks.block('README.md', 'Quick start')
    [[script, *words]] = doc_blocks.commands(quick_start.text, {})
    done = acceptance(tmp_path, *words, '-n', 'MemoryDaxpyCheck',
                      *ONE_TIMED_RUN, script=PROJECT_DIR / script)
    assert done.returncode == 0, done.stdout[-3000:]
    # nightly runs the default variants only; this system has no
    # reference file, and the verdict says so
    assert ('acceptance passed — not judged against references (2 pass)'
            in done.stdout)


def test_a_nightly_runs_the_system_it_names(tmp_path):
    done = acceptance(tmp_path, '-n', 'NoSuchCheck',
                      script=PROJECT_DIR / 'ci' / 'nightly.sh',
                      env=dict(environment(tmp_path),
                               HPC_ACCEPTANCE_SYSTEM='example-cluster',
                               # the tests run as root on CI
                               HPC_ACCEPTANCE_NIGHT_AS_ROOT='1'))
    assert done.returncode == 2, done.stdout[-3000:]
    log = (tmp_path / 'report.log').read_text()
    assert re.search(r"selected system:\s+'example-cluster'", log), log


def failing_once(bindir, build, program):
    '''``bindir/program``: fails its first run (a crash, a figure out of
    its band: anything that fails a check), then runs the real program
    built in ``build``.'''
    shutil.copytree(PROJECT_DIR / 'src' / 'memory', build)
    subprocess.run(['make', 'clean', 'all', 'CFLAGS=-O2 -march=native'],
                   cwd=build, check=True, capture_output=True)
    bindir.mkdir()
    marker = bindir / 'failed-once'
    script = bindir / program
    script.write_text(
        '#!/bin/sh\n'
        f'if [ ! -e "{marker}" ]; then\n'
        f'    touch "{marker}"; echo "injected failure" >&2; exit 1\n'
        'fi\n'
        f'exec "{build / program}" "$@"\n'
    )
    script.chmod(0o755)
    return bindir


def test_a_check_failing_once_passes_its_retry_and_is_named(tmp_path):
    bindir = failing_once(tmp_path / 'bin', tmp_path / 'build', 'mem_daxpy')
    done = subprocess.run(
        [str(PROJECT_DIR / 'ci' / 'acceptance.sh'), '-n', 'MemoryDaxpyCheck',
         *ONE_TIMED_RUN],
        env=dict(environment(tmp_path),
                 PATH=f'{bindir}:{os.environ["PATH"]}'),
        text=True, timeout=1800, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    assert done.returncode == 0, done.stdout[-3000:]
    assert '(2 pass); passed only when retried: MemoryDaxpyCheck' \
        in done.stdout, done.stdout[-3000:]


def test_the_run_ends_with_a_summary_and_a_report_page(tmp_path):
    env = environment(tmp_path)
    del env['RFM_COLORIZE']     # ReFrame's default: colours
    done = acceptance(tmp_path, '-n', 'MemoryDaxpyCheck', *ONE_TIMED_RUN,
                      env=env)
    assert done.returncode == 0, done.stdout[-3000:]
    # ReFrame's per-test lines and performance table stay in the log
    assert 'PERFORMANCE REPORT' not in done.stdout
    summary = done.stdout[done.stdout.index('== acceptance summary'):]
    assert len(summary.splitlines()) <= 40
    assert 'memory             2       0       0' in summary

    pages = list(tmp_path.glob('*/index.html'))
    assert len(pages) == 1, done.stdout[-3000:]
    assert f'acceptance: report page {pages[0]}' in done.stdout
    page = pages[0].read_text()
    assert 'PASSED' in page
    # one trend per figure of the two variants, each with its plot
    images = list(pages[0].parent.glob('trend-*.png'))
    assert len(images) >= 2
    assert page.count('<img ') == len(images)
    log = (tmp_path / 'report.log').read_text()
    assert 'PERFORMANCE REPORT' in log
    assert '\x1b[' not in log      # a file gets no colour codes


def test_a_second_run_refuses_naming_the_first(tmp_path):
    first = start_acceptance(tmp_path, '-n', 'MemoryDaxpyCheck',
                             *ONE_TIMED_RUN)
    try:
        wait_for(tmp_path / 'run.lock', first)
        while 'pid' not in (tmp_path / 'run.lock').read_text():
            time.sleep(0.1)

        second = acceptance(tmp_path, '-n', 'NoSuchCheck')
        assert second.returncode == 4
        assert f'pid {first.pid}' in second.stdout
        assert 'acceptance.sh -n MemoryDaxpyCheck' in second.stdout
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=600)


def test_sigterm_mid_run_leaves_a_readable_database_and_no_lock(tmp_path):
    run = start_acceptance(tmp_path, '-n', 'MemoryDaxpyCheck',
                           *ONE_TIMED_RUN)
    # ReFrame has started staging the checks
    wait_for(tmp_path / 'prefix' / 'stage', run)
    run.send_signal(signal.SIGTERM)
    out, _ = run.communicate(timeout=600)
    # 128 + 15, as the README's exit table says
    assert run.returncode == 143, out[-3000:]

    listed = subprocess.run(
        [str(REFRAME), '-C', str(PROJECT_DIR / 'config' / 'settings.py'),
         '--list-stored-sessions'], env=environment(tmp_path), text=True,
        capture_output=True)
    assert listed.returncode == 0, listed.stderr

    # the next run is not refused and works
    done = acceptance(tmp_path, '-n', 'NoSuchCheck')
    assert done.returncode == 2, done.stdout[-3000:]
