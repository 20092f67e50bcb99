'''NPB SP -- Scalar penta-diagonal solver of a 3-D compressible Navier-Stokes
system (ADI).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import classes as npb_classes
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbSpCheck(NpbCheck):
    '''NPB SP: Mop/s in total and per process, and time.'''

    benchmark = 'sp'

    #: Ranks: square counts (SP decomposes over a square grid of
    #: processes) up to ``npb_classes.MAX_PROCESSES``.
    #:
    #: :type: :class:`int`
    num_procs = parameter(npb_classes.process_counts('sp'), loggable=True)
