'''NPB FT -- 3-D fast Fourier transform of a PDE solution (all-to-all
communication).

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.npb import classes as npb_classes
from hpc_acceptance.npb.check import NpbCheck


@rfm.simple_test
class NpbFtCheck(NpbCheck):
    '''NPB FT: Mop/s in total and per process, and time.'''

    benchmark = 'ft'

    #: Ranks: powers of two up to ``npb_classes.MAX_PROCESSES`` (FT does
    #: not verify on other counts).
    #:
    #: :type: :class:`int`
    num_procs = parameter(npb_classes.process_counts('ft'), loggable=True)
