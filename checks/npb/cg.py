'''NPB CG -- Conjugate gradient: smallest eigenvalue of a large sparse
symmetric matrix (irregular memory access and communication).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import classes as npb_classes
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbCgCheck(NpbCheck):
    '''NPB CG: Mop/s in total and per process, and time.'''

    benchmark = 'cg'

    #: Ranks: powers of two up to ``npb_classes.MAX_PROCESSES`` (CG stops
    #: with an error on other counts).
    #:
    #: :type: :class:`int`
    num_procs = parameter(npb_classes.process_counts('cg'), loggable=True)
