'''Read bandwidth per memory level, one thread and all cores.

The kernel is TACC's ``s = s + a(i); t = t + b(i)`` (Figs. 7 and 8 of the
Xeon/Opteron study, Pleiades' Fig. 3): two read streams, no stores.

The logic is in :mod:`hpc_acceptance.memory` (base check, build) and
:mod:`hpc_acceptance.core.topology` (sizes).
'''

import reframe as rfm

from hpc_acceptance.core import topology
from hpc_acceptance.memory.check import MemoryKernelCheck


@rfm.simple_test
class MemoryReadBandwidthCheck(MemoryKernelCheck):
    '''Read bandwidth of L1, L2, L3 and memory in MB/s.'''

    program = 'mem_readbw'

    def program_options(self):
        return [topology.sizes_option(self.working_sets())]

    def expected_figures(self):
        return {f'bandwidth.{level}': 'MB/s' for level in self.working_sets()}
