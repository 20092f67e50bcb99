'''What used the CPUs beside a quiet test (helpers/cpu_witness.py): a busy
process is named unless it is the test's own.'''

import os
import subprocess
import sys
import time

from helpers import cpu_witness

BUSY = ('import time\n'
        'end = time.monotonic() + 30\n'
        'while time.monotonic() < end: pass')


def test_a_busy_process_is_named_unless_it_is_below_the_test():
    before = cpu_witness.snapshot()
    busy = subprocess.Popen([sys.executable, '-c', BUSY])
    # the test as another process sees it: busy is not below that one
    stranger = subprocess.Popen(['sleep', '30'])
    try:
        time.sleep(1.5)
        after = cpu_witness.snapshot()
    finally:
        busy.kill()
        stranger.kill()

    own = '\n'.join(cpu_witness.beside(before, after, os.getpid()))
    assert f'pid {busy.pid} ' not in own
    assert own.startswith('steal (the host')

    seen_from_elsewhere = cpu_witness.beside(before, after, stranger.pid)
    [line] = [line for line in seen_from_elsewhere
              if line.startswith(f'pid {busy.pid} ')]
    assert float(line.split(': ')[1].split()[0]) >= cpu_witness.LEAST_SECONDS


def test_a_command_with_parentheses_and_spaces_is_read_whole(tmp_path):
    odd = tmp_path / 'a) b (c'
    odd.symlink_to('/bin/sleep')
    sleeping = subprocess.Popen([str(odd), '30'])
    try:
        time.sleep(0.3)
        name, parent, _ = cpu_witness.snapshot().processes[sleeping.pid]
    finally:
        sleeping.kill()

    assert name == 'a) b (c' and parent == os.getpid()
