'''ci/acceptance.sh when its results cannot be stored: a results database
damaged during a run or before it, and a full disk under var/. Each run
is one cheap check (MemoryReadBandwidthCheck, one timed run per figure).
'''

import json
import os
import shlex
import shutil
import subprocess

from conftest import DATA_DIR, HPC_ACCEPTANCE, ONE_TIMED_RUN
from helpers.acceptance_run import (acceptance, environment, start_acceptance,
                                    wait_for)
import pytest

from hpc_acceptance.tools.results import database

CHECK = ('-n', 'MemoryReadBandwidthCheck', *ONE_TIMED_RUN)
#: A real run's report: a run stored before the ones of the test.
EARLIER = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'


def session_of(report):
    return json.loads(report.read_text())['session_info']['uuid']


def store_an_earlier_run(db, reports):
    reports.mkdir(parents=True, exist_ok=True)
    earlier = reports / 'earlier.json'
    shutil.copy(EARLIER, earlier)
    subprocess.run([HPC_ACCEPTANCE, 'db', 'import', '--db', str(db),
                    str(earlier)], check=True, capture_output=True)
    return earlier


def recovery_commands(output):
    '''The recovery steps a refused run printed, as argument lists.'''
    steps = [line.split('    #')[0].strip() for line in output.splitlines()
             if line.startswith(('  mv ', '  cp ', f'  {HPC_ACCEPTANCE} '))]
    return [shlex.split(step) for step in steps]


def test_a_damaged_database_fails_the_run_and_import_restores_it(tmp_path):
    db, reports = tmp_path / 'results.db', tmp_path / 'reports'
    earlier = store_an_earlier_run(db, reports)

    # damaged while the check runs: ReFrame only warns that it could not
    # store the results, the run is not green and says where they are
    report_a = reports / 'a.json'
    run = start_acceptance(tmp_path, *CHECK, env=dict(
        environment(tmp_path), RFM_REPORT_FILE=str(report_a)))
    wait_for(tmp_path / 'prefix' / 'stage', run)
    with open(db, 'r+b') as fp:
        fp.truncate(4096)
    out, _ = run.communicate(timeout=1800)
    assert run.returncode == 5, out[-3000:]
    assert 'acceptance passed' in out
    assert (f'is not in the results database {db} (database disk image is '
            f'malformed); its results are only in {report_a}') in out
    assert 'acceptance NOT STORED' in out.splitlines()[-1]

    # the next run stops before any check, with the recovery steps
    report_b = reports / 'b.json'
    done = acceptance(tmp_path, *CHECK, env=dict(
        environment(tmp_path), RFM_REPORT_FILE=str(report_b)))
    assert done.returncode == 5, done.stdout[-3000:]
    assert 'acceptance NOT RUN' in done.stdout
    assert not report_b.with_suffix('.log').exists()
    steps = recovery_commands(done.stdout)
    # the damaged file is moved aside, the backup taken before run A is
    # restored, and the reports newer than it are imported: run A's
    assert [s[:2] for s in steps] == [['mv', str(db)], ['cp', steps[1][1]],
                                      [str(HPC_ACCEPTANCE), 'db']]
    assert steps[2][2:] == ['import', '--db', str(db), str(report_a)]
    for step in steps:
        subprocess.run(step, check=True, capture_output=True)

    database.check(str(db))
    assert database.stored(str(db), session_of(earlier))
    assert database.stored(str(db), session_of(report_a))
    # run A's trends, drawn from the database again
    page = subprocess.run(
        [HPC_ACCEPTANCE, 'page', '--session', session_of(report_a),
         '--output', str(tmp_path / 'page')],
        env=environment(tmp_path), text=True, capture_output=True)
    assert page.returncode == 0, page.stderr
    figures = sum(len(c['perfvalues']) for c in
                  json.loads(report_a.read_text())['runs'][-1]['testcases']
                  if not c['fixture'])
    assert len(list((tmp_path / 'page').glob('trend-*.png'))) == figures > 0


@pytest.fixture
def small_var(tmp_path):
    '''A 16 MiB tmpfs as the runs' var/.'''
    if os.geteuid() != 0:
        pytest.skip('mounting a tmpfs needs root')

    var = tmp_path / 'var'
    var.mkdir()
    mounted = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=16m',
                              'tmpfs', str(var)], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        pytest.skip(f'cannot mount a tmpfs: {mounted.stderr.strip()}')

    yield var
    subprocess.run(['umount', str(var)], check=True)


def in_var(tmp_path, var, name):
    return dict(environment(tmp_path),
                RFM_PREFIX=str(var / 'prefix'),
                RFM_PERFLOG_DIR=str(var / 'perflogs'),
                RFM_REPORT_FILE=str(var / 'reports' / f'{name}.json'),
                RFM_REPORT_JUNIT=str(var / 'reports' / 'junit.xml'),
                RFM_SQLITE_DB_FILE=str(var / 'results.db'))


def test_a_full_var_fails_the_run_and_keeps_what_was_stored(tmp_path,
                                                            small_var):
    db = small_var / 'results.db'
    earlier = store_an_earlier_run(db, small_var / 'reports')
    kept = earlier.read_bytes()

    run = start_acceptance(tmp_path, *CHECK,
                           env=in_var(tmp_path, small_var, 'full'))
    wait_for(small_var / 'prefix' / 'stage', run)
    filler = small_var / 'filler'
    subprocess.run(['dd', 'if=/dev/zero', f'of={filler}', 'bs=1M'],
                   capture_output=True)
    out, _ = run.communicate(timeout=1800)
    assert run.returncode != 0, out[-3000:]
    assert f'no space left on the file system of {small_var}' in out
    assert 'acceptance passed' not in out

    # what earlier runs stored is intact
    assert earlier.read_bytes() == kept
    database.check(str(db))
    assert database.stored(str(db), session_of(earlier))

    filler.unlink()
    done = acceptance(tmp_path, *CHECK,
                      env=in_var(tmp_path, small_var, 'next'))
    assert done.returncode == 0, done.stdout[-3000:]
    assert database.stored(str(db), session_of(
        small_var / 'reports' / 'next.json'))
