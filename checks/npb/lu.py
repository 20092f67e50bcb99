'''NPB LU -- Lower-upper Gauss-Seidel solver (SSOR) of a 3-D Navier-Stokes
system (pipelined, many small messages).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import bounded
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbLuCheck(NpbCheck):
    '''NPB LU: Mop/s in total and per process, and time.'''

    benchmark = 'lu'

    #: Ranks: powers of two up to ``classes.MAX_PROCESSES``, bounded by
    #: the partitions (:mod:`hpc_acceptance.npb.bounded`) (LU needs
    #: a process grid it can split evenly).
    #:
    #: :type: :class:`int`
    num_procs = parameter(bounded.process_counts('lu'), loggable=True)

    variants_left_out = bounded.left_out('lu')
