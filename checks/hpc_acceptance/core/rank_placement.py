'''Where the ranks of an MPI check run, asked of the partition's launcher.

A benchmark of communication measures the path between the cores it runs
on, so the checks never leave placement to the launcher's defaults. They
ask for a *distribution* with the launcher's own options, and the program
reports where each rank ran: :mod:`hpc_acceptance.network.rank_report`
compares that with the partition's processor topology.

:class:`PlacedRanks` asks the launcher for a distribution, records what it
asked (``launcher_options``) and skips, saying why, on a launcher whose
options are not known.

Distributions:

- ``block``: consecutive ranks on consecutive cores, each bound to its
  core; a socket is filled before the next, a node before the next;
- ``sockets``: consecutive ranks alternate between the sockets, each bound
  to a core;
- ``one_per_node``: one rank per node, bound to a core (the job asks for
  one task per node);
- ``oversubscribed``: more ranks than cores on one node, not bound (bound
  ranks would be stacked on the same cores);
- ``block_threads``: as ``block``, one rank per hardware thread (SMT on):
  consecutive ranks on the hardware threads of one core, then the next;
- ``sockets_threads``: as ``sockets``, each rank bound to a hardware thread
  (SMT on).
'''

import reframe as rfm
from reframe.core.builtins import run_before, variable

# Options of Open MPI's mpirun and of Slurm's srun per distribution.
_LAUNCHER_OPTIONS = {
    'mpirun': {
        'block': ['--map-by', 'core', '--bind-to', 'core'],
        'sockets': ['--map-by', 'socket', '--bind-to', 'core'],
        'one_per_node': ['--map-by', 'ppr:1:node', '--bind-to', 'core'],
        'oversubscribed': ['--oversubscribe', '--bind-to', 'none'],
        # (--use-hwthread-cpus comes with every smt=on variant)
        'block_threads': ['--map-by', 'hwthread', '--bind-to', 'hwthread'],
        'sockets_threads': ['--map-by', 'socket', '--bind-to', 'hwthread'],
    },
    'srun': {
        'block': ['--distribution=block:block', '--cpu-bind=cores'],
        'sockets': ['--distribution=block:cyclic', '--cpu-bind=cores'],
        'one_per_node': ['--distribution=block:block', '--cpu-bind=cores'],
        'oversubscribed': ['--overcommit', '--cpu-bind=none'],
        'block_threads': ['--distribution=block:block', '--cpu-bind=threads'],
        'sockets_threads': ['--distribution=block:cyclic',
                            '--cpu-bind=threads'],
    },
}
_LAUNCHER_OPTIONS['mpirun-openmpi'] = _LAUNCHER_OPTIONS['mpirun']


class PlacementError(ValueError):
    '''A placement cannot be asked of a launcher; the message says why.'''


def options_for(launcher, distribution):
    '''The options that make ``launcher`` place ranks as ``distribution``.

    :raises PlacementError: for a launcher whose options are not known.
    '''
    try:
        return list(_LAUNCHER_OPTIONS[launcher][distribution])
    except KeyError:
        raise PlacementError(
            f'placement needs the launcher\'s own options, known for '
            f'{", ".join(sorted(_LAUNCHER_OPTIONS))}; the partition uses '
            f'{launcher!r}'
        ) from None


class PlacedRanks(rfm.RegressionTestPlugin):
    '''Places an MPI check's ranks with its partition's launcher.'''

    #: The launcher options that placed the ranks (recorded, not settable).
    #:
    #: :type: :class:`str`
    launcher_options = variable(str, value='', loggable=True)

    def place_with(self, distribution):
        '''Ask the partition's launcher for ``distribution``; call it from a
        setup hook.'''
        partition = self.current_partition
        try:
            options = options_for(
                partition.launcher_type.registered_name, distribution
            )
        except PlacementError as err:
            self.skip(f'{partition.fullname}: {err}')

        self.launcher_options = ' '.join(options)

    @run_before('run')
    def apply_launcher_options(self):
        self.job.launcher.options = (self.launcher_options.split() +
                                     self.job.launcher.options)
