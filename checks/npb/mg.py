'''NPB MG -- Multigrid V-cycles on a 3-D Poisson problem (short- and
long-range communication).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import bounded
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbMgCheck(NpbCheck):
    '''NPB MG: Mop/s in total and per process, and time.'''

    benchmark = 'mg'

    #: Ranks: powers of two up to ``classes.MAX_PROCESSES``, bounded by
    #: the partitions (:mod:`hpc_acceptance.npb.bounded`) (MG leaves
    #: ranks idle on other counts).
    #:
    #: :type: :class:`int`
    num_procs = parameter(bounded.process_counts('mg'), loggable=True)

    variants_left_out = bounded.left_out('mg')
