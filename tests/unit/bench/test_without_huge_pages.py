'''ci/bench/without_huge_pages.py, which read_bandwidth_vs_likwid.sh puts
before mem_readbw so that it reads from the pages likwid-bench gets: the
command runs with transparent huge pages disabled, its exit status kept.'''

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROJECT_DIR

SCRIPT = PROJECT_DIR / 'ci' / 'bench' / 'without_huge_pages.py'


def _run(*command):
    return subprocess.run([sys.executable, str(SCRIPT), *command],
                          capture_output=True, text=True, timeout=30)


def test_the_command_runs_with_huge_pages_disabled():
    # THP_enabled in /proc/PID/status (Linux 5.0+) is the prctl's flag
    if 'THP_enabled:' not in Path('/proc/self/status').read_text():
        pytest.skip('this kernel does not show THP_enabled')
    result = _run('grep', '^THP_enabled:', '/proc/self/status')
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['THP_enabled:', '0']


def test_the_commands_exit_status_is_kept():
    assert _run('sh', '-c', 'exit 7').returncode == 7


def test_a_command_that_cannot_run_is_named():
    result = _run('/nonexistent/mem_readbw')
    assert result.returncode == 2
    assert 'cannot run /nonexistent/mem_readbw' in result.stderr


def test_no_command_is_a_usage_error():
    result = _run()
    assert result.returncode == 2
    assert result.stderr.startswith('usage: without_huge_pages.py')
