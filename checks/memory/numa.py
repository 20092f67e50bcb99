'''Streaming from local vs remote NUMA memory.

TACC's ``A(i,j) = time*A(i,j)`` kernel: every thread first touches its own
block, then rescales either that block (local) or the block of a thread on
another NUMA node (remote). On a node with one NUMA domain there is no
remote memory: the check is skipped and says so.

The logic is in :mod:`hpc_acceptance.memory` (base check, build) and
:mod:`hpc_acceptance.core.topology` (sizes).
'''

import reframe as rfm
from reframe.core.builtins import parameter, run_after

from hpc_acceptance.core import topology
from hpc_acceptance.memory.check import MemoryKernelCheck


@rfm.simple_test
class MemoryNumaCheck(MemoryKernelCheck):
    '''Local and remote streaming bandwidth and the remote penalty.'''

    program = 'mem_numa'

    # Every NUMA node needs threads to own and to fetch memory.
    threads = parameter(['all_cores'], loggable=True)

    @run_after('setup')
    def require_two_numa_nodes(self):
        nodes = self.current_partition.processor.num_numa_nodes or 1
        self.skip_if(
            nodes < 2,
            f'{self.current_partition.fullname} has {nodes} NUMA node: '
            f'local and remote memory are the same, there is nothing to '
            f'compare'
        )

    def program_options(self):
        memory = self.working_sets()['memory']
        return [f'--size={topology.format_size(memory)}']

    def expected_figures(self):
        return {'bandwidth.local': 'MB/s', 'bandwidth.remote': 'MB/s',
                'remote_penalty': 'ns'}
