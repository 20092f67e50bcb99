'''The ``hpc-acceptance`` command (hpc_acceptance.tools.cli), run as a
sysadmin runs it: the console script pip installed.'''

import subprocess
import sys

import pytest

from conftest import HPC_ACCEPTANCE
from helpers import host
from hpc_acceptance.tools import cli


def run(*args):
    return subprocess.run([HPC_ACCEPTANCE, *args], text=True,
                          capture_output=True)


def test_without_a_subcommand_it_lists_them_and_fails():
    done = run()
    assert done.returncode == 2
    for name in cli.SUBCOMMANDS:
        assert name in done.stderr


def test_a_subcommand_imports_only_its_own_room():
    # the verdict, run after every nightly, without the page's plotting
    done = subprocess.run(
        [sys.executable, '-c',
         'import sys\n'
         'from hpc_acceptance.tools import cli\n'
         'status = cli.main(["verdict", "/nonexistent.json", "0"])\n'
         'print(status, "matplotlib" in sys.modules,'
         ' "hpc_acceptance.tools.page.page" in sys.modules)'],
        text=True, capture_output=True)
    assert done.stdout.split() == ['2', 'False', 'False'], done.stderr


def test_an_unknown_subcommand_is_named():
    done = run('propose')
    assert done.returncode == 2
    assert "unknown subcommand 'propose'" in done.stderr


def test_a_subcommand_parses_its_own_options():
    done = run('propose-references', '--help')
    assert done.returncode == 0
    assert done.stdout.startswith('usage: hpc-acceptance propose-references')


def test_topology_prints_this_node_s_figures():
    done = run('topology', '--format', 'figures')
    assert done.returncode == 0, done.stderr
    names = [line.split()[0] for line in done.stdout.splitlines()]
    assert names[:3] == ['memory_working_set', 'cores', 'sockets']
    # one working set per cache level this host's sysfs lists
    assert names[3:] == [f'working_set_l{level}'
                         for level in host.cache_levels()]


def test_verdict_without_a_report_is_not_validated(tmp_path):
    done = run('verdict', str(tmp_path / 'none.json'), '0')
    assert done.returncode == 2
    assert 'no check was selected' in done.stderr


def test_every_subcommand_lives_in_the_module_of_its_name():
    for name in cli.SUBCOMMANDS:
        module = cli.module_of(name)
        assert module.__name__.rsplit('.', 1)[-1] == name.replace('-', '_')
        assert module.__doc__


@pytest.mark.parametrize('name', sorted(cli.SUBCOMMANDS))
def test_every_subcommand_keeps_one_contract(name):
    '''Spack's: a line for --help, its options, the command; no ``main``
    for another module to call with an argv.'''
    module = cli.module_of(name)
    assert isinstance(module.description, str) and module.description
    assert callable(module.setup_parser) and callable(module.command)
    assert not hasattr(module, 'main')
