'''NPB IS -- Integer sort: bucket sort of random keys (all-to-all, integer
performance).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import bounded
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbIsCheck(NpbCheck):
    '''NPB IS: Mop/s in total and per process, and time.'''

    benchmark = 'is'

    #: Ranks: powers of two up to ``classes.MAX_PROCESSES``, bounded by
    #: the partitions (:mod:`hpc_acceptance.npb.bounded`) (IS stops
    #: with an error on other counts).
    #:
    #: :type: :class:`int`
    num_procs = parameter(bounded.process_counts('is'), loggable=True)

    variants_left_out = bounded.left_out('is')
