'''``hpc-acceptance topology`` (hpc_acceptance.tools.node_topology).'''

from conftest import load_topology
from hpc_acceptance.core import topology
from hpc_acceptance.tools import node_topology

TWO_SOCKETS = load_topology('two-socket-icelake-smt')


def test_command_prints_the_sizes_the_checks_use(monkeypatch, capsys):
    monkeypatch.setattr(node_topology, 'cpuinfo', lambda: TWO_SOCKETS)
    assert node_topology.main([]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f'memory_working_set {topology.memory_working_set(TWO_SOCKETS)} B',
        'cores 72 cores',
        'sockets 2 sockets',
    ] + [f'working_set_{level} {size} B'
         for level, size in topology.level_working_sets(TWO_SOCKETS).items()
         if level != 'memory']


def test_command_without_caches_says_so(monkeypatch, capsys):
    monkeypatch.setattr(node_topology, 'cpuinfo', lambda: {'num_cpus': 2})
    assert node_topology.main([]) == 2
    assert 'no processor topology with caches' in capsys.readouterr().err


def test_command_without_a_core_count_says_so(monkeypatch, capsys):
    described = {k: v for k, v in TWO_SOCKETS.items()
                 if k != 'num_cpus_per_core'}
    monkeypatch.setattr(node_topology, 'cpuinfo', lambda: described)
    assert node_topology.main([]) == 2
    assert 'no num_cpus/num_cpus_per_core' in capsys.readouterr().err
