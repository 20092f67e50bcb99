'''Streaming from local vs remote NUMA memory.

TACC's ``A(i,j) = time*A(i,j)`` kernel: every thread first touches its own
block, then rescales either that block (local) or the block of its partner,
a thread on another socket (or, on one socket, another NUMA node): remote.
The check decides the partners from the processor topology and the program
verifies that each is on another NUMA node where it ran. On a node with
one NUMA domain with CPUs there is no remote memory: the check is skipped
and says so.

The logic is in :mod:`hpc_acceptance.memory` (base check, build, the
partners in :mod:`~hpc_acceptance.memory.layout`) and
:mod:`hpc_acceptance.core.topology` (sizes).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.core import topology
from hpc_acceptance.core.node_shape import Inapplicable
from hpc_acceptance.memory import layout
from hpc_acceptance.memory.check import MemoryKernelCheck


@rfm.simple_test
class MemoryNumaCheck(MemoryKernelCheck):
    '''Local and remote streaming bandwidth and the remote penalty.'''

    program = 'mem_numa'

    # Every NUMA node needs threads to own and to fetch memory.
    threads = parameter(['all_cores'], loggable=True)

    @property
    def partners(self):
        '''The thread whose block each thread rescales in the remote pass
        (:func:`hpc_acceptance.memory.layout.numa_partners`); skips the
        check where there is no remote memory to pair with.'''
        try:
            return layout.numa_partners(self.processor_info,
                                        self.layout_plan.places)
        except (Inapplicable, topology.TopologyError) as err:
            self.skip(f'{self.current_partition.fullname}: {err}')

    def program_options(self):
        memory = self.working_sets()['memory']
        return [f'--size={topology.format_size(memory)}',
                '--partners=' + ','.join(map(str, self.partners))]

    def expected_figures(self):
        return {'bandwidth.local': 'MB/s', 'bandwidth.remote': 'MB/s',
                'remote_penalty': 'ns'}

    def refusal(self, text):
        # mem_numa refuses on a "# numa: <why>" line, without figures
        # (threads not on the NUMA nodes the check placed them on)
        return [line[2:] for line in text.splitlines()
                if line.startswith('# numa: ')]
