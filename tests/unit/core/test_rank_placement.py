'''Asking the launcher for a rank distribution
(hpc_acceptance.core.rank_placement).'''

import pytest

from hpc_acceptance.core.rank_placement import PlacementError, options_for


@pytest.mark.parametrize('launcher, distribution, options', [
    ('mpirun', 'block', ['--map-by', 'core', '--bind-to', 'core']),
    ('mpirun', 'sockets', ['--map-by', 'socket', '--bind-to', 'core']),
    ('mpirun', 'one_per_node', ['--map-by', 'ppr:1:node', '--bind-to',
                                'core']),
    ('mpirun', 'oversubscribed', ['--oversubscribe', '--bind-to', 'none']),
    ('srun', 'block', ['--distribution=block:block', '--cpu-bind=cores']),
    ('srun', 'sockets', ['--distribution=block:cyclic', '--cpu-bind=cores']),
    # SMT on: one rank per hardware thread, both threads of a core in turn
    ('mpirun', 'block_threads', ['--map-by', 'hwthread', '--bind-to',
                                 'hwthread']),
    ('srun', 'block_threads', ['--distribution=block:block',
                               '--cpu-bind=threads']),
    ('mpirun', 'sockets_threads', ['--map-by', 'socket', '--bind-to',
                                   'hwthread']),
    ('srun', 'sockets_threads', ['--distribution=block:cyclic',
                                 '--cpu-bind=threads']),
    ('mpirun-openmpi', 'block', ['--map-by', 'core', '--bind-to', 'core']),
])
def test_each_launcher_gets_its_own_options(launcher, distribution,
                                            options):
    assert options_for(launcher, distribution) == options


def test_a_launcher_without_known_options_is_named():
    with pytest.raises(PlacementError,
                       match=r"known for mpirun, mpirun-openmpi, srun; the "
                             r"partition uses 'aprun'"):
        options_for('aprun', 'block')
