'''DAXPY-style matrix-vector product per memory level.

TACC's ``y(i) = y(i) + A(i,j)*x(j)``, column by column so that ``A`` and
``y`` stream and ``x(j)`` stays in a register. Each thread multiplies its
own matrix, sized for the level under test.

The logic is in :mod:`hpc_acceptance.memory` (base check, build) and
:mod:`hpc_acceptance.core.topology` (sizes).
'''

import reframe as rfm

from hpc_acceptance.core import topology
from hpc_acceptance.memory.check import MemoryKernelCheck


@rfm.simple_test
class MemoryDaxpyCheck(MemoryKernelCheck):
    '''DAXPY matrix-vector MFLOP/s and time per iteration per level.'''

    program = 'mem_daxpy'

    def program_options(self):
        return [topology.sizes_option(self.per_thread_working_sets())]

    def expected_figures(self):
        expected = {}
        for level in self.working_sets():
            expected[f'flops.{level}'] = 'MFLOP/s'
            expected[f'time_per_iteration.{level}'] = 'ns'

        return expected
