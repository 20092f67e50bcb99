'''NPB CG -- Conjugate gradient: smallest eigenvalue of a large sparse
symmetric matrix (irregular memory access and communication).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import bounded
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbCgCheck(NpbCheck):
    '''NPB CG: Mop/s in total and per process, and time.'''

    benchmark = 'cg'

    #: Ranks: powers of two up to ``classes.MAX_PROCESSES``, bounded by
    #: the partitions (:mod:`hpc_acceptance.npb.bounded`) (CG stops
    #: with an error on other counts).
    #:
    #: :type: :class:`int`
    num_procs = parameter(bounded.process_counts('cg'), loggable=True)

    variants_left_out = bounded.left_out('cg')
