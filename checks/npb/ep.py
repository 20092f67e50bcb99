'''NPB EP -- Embarrassingly parallel: Gaussian pairs from a linear congruential
generator, no communication until the final sums.

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import bounded
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbEpCheck(NpbCheck):
    '''NPB EP: Mop/s in total and per process, and time.'''

    benchmark = 'ep'

    #: Ranks: powers of two up to ``classes.MAX_PROCESSES``, bounded by
    #: the partitions (:mod:`hpc_acceptance.npb.bounded`); EP takes
    #: any count, these line its figures up with the other benchmarks'.
    #:
    #: :type: :class:`int`
    num_procs = parameter(bounded.process_counts('ep'), loggable=True)

    variants_left_out = bounded.left_out('ep')
