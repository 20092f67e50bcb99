'''NPB LU -- Lower-upper Gauss-Seidel solver (SSOR) of a 3-D Navier-Stokes
system (pipelined, many small messages).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import classes as npb_classes
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbLuCheck(NpbCheck):
    '''NPB LU: Mop/s in total and per process, and time.'''

    benchmark = 'lu'

    #: Ranks: powers of two up to ``npb_classes.MAX_PROCESSES`` (LU needs
    #: a process grid it can split evenly).
    #:
    #: :type: :class:`int`
    num_procs = parameter(npb_classes.process_counts('lu'), loggable=True)
