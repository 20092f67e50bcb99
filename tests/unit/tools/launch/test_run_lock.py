'''One run per checkout (hpc_acceptance.tools.launch.lock), with real
processes: a second run refuses naming the first, a killed run leaves no
stale lock.'''

import json
import os
import signal
import subprocess
import sys
import time

from conftest import PROJECT_DIR
from hpc_acceptance.tools.common import command_settings
from hpc_acceptance.tools.launch import lock as run_lock

MODULE = [sys.executable, '-m', 'hpc_acceptance.tools.launch.lock']


def start(lock, *command, wait=False):
    return subprocess.Popen(
        MODULE + ['--lock-file', str(lock)] + ['--wait'] * wait +
        ['--', *command],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until_held(lock, proc):
    # the holder writes its details once it has the lock
    for _ in range(600):
        if run_lock.holder(lock).get('pid') == proc.pid:
            return

        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)

    raise AssertionError('the first run never took the lock')


def test_a_second_run_refuses_naming_the_running_one(tmp_path):
    lock = tmp_path / 'run.lock'
    first = start(lock, 'sleep', '60')
    try:
        wait_until_held(lock, first)
        second = start(lock, 'true')
        _, err = second.communicate(timeout=60)
        assert second.returncode == run_lock.BUSY
        assert f'pid {first.pid}' in err and 'sleep 60' in err
        assert 'started 20' in err
    finally:
        first.kill()
        first.wait()


def test_sigterm_reaches_the_run_and_leaves_no_stale_lock(tmp_path):
    lock = tmp_path / 'run.lock'
    first = start(lock, 'sleep', '60')
    wait_until_held(lock, first)
    first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=60) == 128 + signal.SIGTERM
    # the details are still there, the lock is not: the next run works
    assert json.loads(lock.read_text())['pid'] == first.pid
    after = start(lock, 'true')
    assert after.wait(timeout=60) == 0


def test_a_killed_holder_frees_the_lock_for_a_waiting_run(tmp_path):
    lock = tmp_path / 'run.lock'
    # the holder's command outlives a SIGKILL of the holder: keep it short
    first = start(lock, 'sleep', '5')
    wait_until_held(lock, first)
    waiting = start(lock, sys.executable, '-c',
                    'import os; print(os.environ["HPC_ACCEPTANCE_LOCK_HELD"])',
                    wait=True)
    said = waiting.stderr.readline()
    assert said.startswith(f'run_lock: waiting for pid {first.pid}')
    # SIGKILL: no handler runs, the kernel drops the lock anyway
    first.send_signal(signal.SIGKILL)
    first.wait()
    out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, err
    assert out.strip() == '1'


def test_the_command_exit_status_is_returned(tmp_path):
    done = start(tmp_path / 'run.lock', 'sh', '-c', 'exit 7')
    assert done.wait(timeout=60) == 7
    assert os.path.exists(tmp_path / 'run.lock')


def test_the_checkout_s_lock_lies_in_its_var_folder():
    # beside the results database, where git ignores it; the rooms'
    # move had put it in checks/var/
    assert command_settings.DEFAULT_LOCK == PROJECT_DIR / 'var' / 'run.lock'
    assert command_settings.read({}).lock_file == str(
        PROJECT_DIR / 'var' / 'run.lock')
