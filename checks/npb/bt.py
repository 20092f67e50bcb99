'''NPB BT -- Block tri-diagonal solver of a 3-D compressible Navier-Stokes
system (ADI, 5x5 blocks).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import bounded
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbBtCheck(NpbCheck):
    '''NPB BT: Mop/s in total and per process, and time.'''

    benchmark = 'bt'

    #: Ranks: square counts (BT decomposes over a square grid of
    #: processes) up to ``classes.MAX_PROCESSES``, bounded by
    #: the partitions (:mod:`hpc_acceptance.npb.bounded`).
    #:
    #: :type: :class:`int`
    num_procs = parameter(bounded.process_counts('bt'), loggable=True)

    variants_left_out = bounded.left_out('bt')
