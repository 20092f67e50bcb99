'''What new-system reads from Slurm
(hpc_acceptance.tools.new_system.slurm_facts), from the real output of the
four-node test cluster.'''

import pytest

from conftest import DATA_DIR
from hpc_acceptance.tools.new_system import slurm_facts
from hpc_acceptance.tools.new_system.slurm_facts import Partition, SlurmError

SLURM = DATA_DIR / 'slurm'


def test_a_node_as_scontrol_shows_it():
    [node] = slurm_facts.parse_nodes(
        (SLURM / 'scontrol-show-node.n1.txt').read_text())
    assert node == slurm_facts.Node(name='n1', sockets=1, cores_per_socket=2,
                                    threads_per_core=1,
                                    real_memory_mib=24105)


def test_the_mpi_plugins_srun_lists():
    assert slurm_facts.parse_mpi_list(
        (SLURM / 'srun-mpi-list.txt').read_text()) == [
        'pmix', 'none', 'cray_shasta', 'pmi2']


PARTITIONS = [Partition('debug', False, 'UP', 'n1', ('n1',), '30:00'),
              Partition('compute', True, 'UP', 'n[1-4]',
                        ('n1', 'n2', 'n3', 'n4'), 'UNLIMITED'),
              Partition('empty', False, 'UP', '(null)', (), 'UNLIMITED')]


def test_without_names_slurms_default_partition_is_taken():
    assert [p.name for p in slurm_facts.select(PARTITIONS, [])] == \
        ['compute']
    with pytest.raises(SlurmError, match='no default partition: name the '
                                         'partitions to bring in with '
                                         '--partition'):
        slurm_facts.select(PARTITIONS[:1], [])


def test_an_unknown_or_empty_partition_is_named():
    with pytest.raises(SlurmError,
                       match=r'no partition gpu in Slurm \(scontrol show '
                             r'partition: debug, compute \(default\), '
                             r'empty\): pass --partition'):
        slurm_facts.select(PARTITIONS, ['compute', 'gpu'])

    with pytest.raises(SlurmError, match='partition empty has no nodes'):
        slurm_facts.select(PARTITIONS, ['empty'])

    assert [p.name for p in slurm_facts.select(
        PARTITIONS, ['debug', 'compute', 'debug'])] == ['debug', 'compute']


@pytest.mark.parametrize('mpi, plugins, default, launcher, env_vars', [
    # Debian's Open MPI 4.1 starts only under PMIx
    ('openmpi', ['pmix', 'pmi2'], 'pmix', 'srun', []),
    ('openmpi', ['pmix', 'pmi2'], 'pmi2', 'srun',
     [['SLURM_MPI_TYPE', 'pmix']]),
    ('openmpi', ['pmi2', 'none'], 'pmi2', 'mpirun', []),
    ('mpich', ['pmix', 'pmi2'], 'pmix', 'srun', [['SLURM_MPI_TYPE', 'pmi2']]),
    ('some-mpi', ['pmix'], 'pmix', 'mpirun', []),
])
def test_ranks_start_with_the_plugin_their_mpi_needs(mpi, plugins, default,
                                                     launcher, env_vars):
    found = slurm_facts.launcher_for(mpi, plugins, default)
    assert (found.name, found.env_vars) == (launcher, env_vars)
    assert f'srun --mpi=list: {", ".join(plugins)}' in found.why


def test_the_partitions_left_out_are_named_with_their_size():
    chosen = slurm_facts.select(PARTITIONS, [])
    assert slurm_facts.left_out(PARTITIONS, chosen) == \
        'debug (1 node), empty (0 nodes)'
    assert slurm_facts.left_out(PARTITIONS, PARTITIONS) == ''
