'''The run lock starts before the setup made .venv (ci/post-upgrade.sh and
ci/acceptance.sh run it with the python3 on PATH): it and what it imports
must not need ReFrame.'''

import subprocess
import sys

from conftest import PROJECT_DIR


def test_the_lock_imports_without_reframe():
    done = subprocess.run(
        [sys.executable, '-c',
         "import sys; sys.modules['reframe'] = None; "
         "import hpc_acceptance.tools.launch.lock"],
        cwd=PROJECT_DIR, env={'PYTHONPATH': str(PROJECT_DIR / 'checks')},
        capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
