'''NPB IS -- Integer sort: bucket sort of random keys (all-to-all, integer
performance).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import classes as npb_classes
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbIsCheck(NpbCheck):
    '''NPB IS: Mop/s in total and per process, and time.'''

    benchmark = 'is'

    #: Ranks: powers of two up to ``npb_classes.MAX_PROCESSES`` (IS stops
    #: with an error on other counts).
    #:
    #: :type: :class:`int`
    num_procs = parameter(npb_classes.process_counts('is'), loggable=True)
