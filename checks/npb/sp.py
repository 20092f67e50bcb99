'''NPB SP -- Scalar penta-diagonal solver of a 3-D compressible Navier-Stokes
system (ADI).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import bounded
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbSpCheck(NpbCheck):
    '''NPB SP: Mop/s in total and per process, and time.'''

    benchmark = 'sp'

    #: Ranks: square counts (SP decomposes over a square grid of
    #: processes) up to ``classes.MAX_PROCESSES``, bounded by
    #: the partitions (:mod:`hpc_acceptance.npb.bounded`).
    #:
    #: :type: :class:`int`
    num_procs = parameter(bounded.process_counts('sp'), loggable=True)

    variants_left_out = bounded.left_out('sp')
