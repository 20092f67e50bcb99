'''A setup that cannot finish exits 6 naming the step and its tool's own
status, never with a status a run's reader takes for a check's (apt-get's
100, pip's 1). The tools that fail are stand-ins on PATH, in a copy of the
checkout: a real apt-get or pip cannot be made to fail on demand.'''

import os
import shutil
import subprocess
import sys

import pytest

from conftest import PROJECT_DIR


@pytest.fixture
def checkout(tmp_path):
    copy = tmp_path / 'checkout'
    shutil.copytree(PROJECT_DIR, copy, ignore=shutil.ignore_patterns(
        '.venv', 'var', '.spack', '.git', '__pycache__', 'tests', 'build',
        '*.egg-info', 'node_modules'))
    return copy


def stand_in(bindir, name, script):
    bindir.mkdir(exist_ok=True)
    (bindir / name).write_text(f'#!/bin/sh\n{script}\n')
    (bindir / name).chmod(0o755)


def setup(checkout, bindir, *args):
    env = dict(os.environ, PATH=f'{bindir}:{os.environ["PATH"]}',
               HPC_ACCEPTANCE_SPACK='off')
    return subprocess.run([str(checkout / 'ci' / 'setup.sh'), *args],
                          env=env, text=True, capture_output=True,
                          timeout=120)


def test_pip_failing_is_a_setup_failure(checkout, tmp_path):
    # every package there; python3 makes a .venv whose pip fails as pip
    # does, with 1
    bindir = tmp_path / 'bin'
    stand_in(bindir, 'dpkg-query', 'echo "install ok installed"')
    stand_in(bindir, 'python3', f'''
if [ "$1 $2" = "-m venv" ]; then
    mkdir -p "$3/bin"
    printf '#!/bin/sh\\necho "ERROR: no such version" >&2\\nexit 1\\n' \\
        > "$3/bin/python"
    chmod +x "$3/bin/python"
    exit 0
fi
exec {sys.executable} "$@"''')
    done = setup(checkout, bindir)
    assert done.returncode == 6, done.stderr
    assert ('setup: installing ReFrame and this checkout into .venv (pip) '
            'failed (exit 1): the machine is not set up; nothing was run') \
        in done.stderr


def test_apt_failing_is_a_setup_failure(checkout, tmp_path):
    if os.geteuid() != 0:
        pytest.skip('the setup installs packages only as root')

    bindir = tmp_path / 'bin'
    # one package missing, and apt-get failing as it does, with 100
    stand_in(bindir, 'dpkg-query', 'echo "deinstall ok config-files"')
    (checkout / 'ci' / 'install-packages.sh').write_text(
        '#!/bin/sh\necho "E: Unable to locate package gcc" >&2\nexit 100\n')
    done = setup(checkout, bindir)
    assert done.returncode == 6, done.stderr
    assert 'setup: installing Debian packages (ci/install-packages.sh gcc ' \
        in done.stderr
    assert 'failed (exit 100): the machine is not set up' in done.stderr
