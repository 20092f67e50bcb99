'''Indirect (gather) dot product per memory level.

TACC's ``s = s + x(i)*y(ind(i))`` with ``ind`` a random permutation, the
access pattern of sparse matrix-vector products. With all cores each thread
runs its own instance, like the paper's independent MPI tasks, so the
per-thread time shows how the memory system shares out.

The logic is in :mod:`hpc_acceptance.memory` (base check, build) and
:mod:`hpc_acceptance.core.topology` (sizes).
'''

import reframe as rfm

from hpc_acceptance.core import topology
from hpc_acceptance.memory.check import MemoryKernelCheck


@rfm.simple_test
class MemoryGatherDotCheck(MemoryKernelCheck):
    '''Time per gather-dot iteration for L1, L2, L3 and memory, in ns.'''

    program = 'mem_gatherdot'

    def program_options(self):
        return [topology.sizes_option(self.per_thread_working_sets())]

    def expected_figures(self):
        return {f'time_per_iteration.{level}': 'ns'
                for level in self.working_sets()}
