'''ci/acceptance.sh run by the tests, all of its state under the test's
directory: its own prefix, perflogs, reports, results database and lock.'''

import os
import subprocess
import time

from conftest import PROJECT_DIR

ACCEPTANCE = PROJECT_DIR / 'ci' / 'acceptance.sh'


def environment(tmp_path):
    return dict(os.environ,
                RFM_PREFIX=str(tmp_path / 'prefix'),
                RFM_PERFLOG_DIR=str(tmp_path / 'perflogs'),
                RFM_REPORT_FILE=str(tmp_path / 'report.json'),
                RFM_REPORT_JUNIT=str(tmp_path / 'junit.xml'),
                RFM_SQLITE_DB_FILE=str(tmp_path / 'results.db'),
                RFM_COLORIZE='n',
                HPC_ACCEPTANCE_LOCK_FILE=str(tmp_path / 'run.lock'),
                # setup prepares no Spack: these runs are about the verdict
                HPC_ACCEPTANCE_SPACK='off')


def acceptance(tmp_path, *args, env=None, script=ACCEPTANCE):
    return subprocess.run([str(script), *args],
                          env=env or environment(tmp_path), text=True,
                          timeout=1800,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def start_acceptance(tmp_path, *args, env=None):
    return subprocess.Popen(
        [str(ACCEPTANCE), *args],
        env=env or environment(tmp_path), text=True, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)


def wait_for(path, proc):
    for _ in range(1200):
        if path.exists():
            return

        assert proc.poll() is None, proc.communicate()[0][-3000:]
        time.sleep(0.1)

    raise AssertionError(f'{path} never appeared')
