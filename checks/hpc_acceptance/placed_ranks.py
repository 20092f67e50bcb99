'''Placing an MPI check's ranks with its partition's launcher.

The distributions and the launcher options that give them are in
:mod:`hpc_acceptance.placement`; this mixin asks the launcher for one,
records what it asked (``launcher_options``) and skips, saying why, on a
launcher whose options are not known.
'''

import reframe as rfm
from reframe.core.builtins import run_before, variable

from hpc_acceptance import placement


class PlacedRanks(rfm.RegressionTestPlugin):
    #: The launcher options that placed the ranks (recorded, not settable).
    #:
    #: :type: :class:`str`
    launcher_options = variable(str, value='', loggable=True)

    def place_with(self, distribution):
        '''Ask the partition's launcher for ``distribution``; call it from a
        setup hook.'''
        partition = self.current_partition
        try:
            options = placement.launcher_options(
                partition.launcher_type.registered_name, distribution
            )
        except placement.PlacementError as err:
            self.skip(f'{partition.fullname}: {err}')

        self.launcher_options = ' '.join(options)

    @run_before('run')
    def apply_launcher_options(self):
        self.job.launcher.options = (self.launcher_options.split() +
                                     self.job.launcher.options)
