'''NPB FT -- 3-D fast Fourier transform of a PDE solution (all-to-all
communication).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import bounded
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbFtCheck(NpbCheck):
    '''NPB FT: Mop/s in total and per process, and time.'''

    benchmark = 'ft'

    #: Ranks: powers of two up to ``classes.MAX_PROCESSES``, bounded by
    #: the partitions (:mod:`hpc_acceptance.npb.bounded`) (FT does
    #: not verify on other counts).
    #:
    #: :type: :class:`int`
    num_procs = parameter(bounded.process_counts('ft'), loggable=True)

    variants_left_out = bounded.left_out('ft')
