'''Streaming from local vs remote NUMA memory.

TACC's ``A(i,j) = time*A(i,j)`` kernel: every thread first touches its own
block, then rescales either that block (local) or the block of its partner,
a thread on another socket (or, on one socket, another NUMA node): remote.
The check decides the partners from the processor topology and the program
verifies that each is on another NUMA node where it ran. On a node with
one NUMA domain with CPUs there is no remote memory: the check is skipped
and says so.

Where the node's NUMA distances (the SLIT) are known before the job (a
partition with the local scheduler: :mod:`hpc_acceptance.core.node_facts`)
and its nodes are more than one distance apart, one more remote pass per
distance measures each class of link (``bandwidth.remote.d22``,
``remote_penalty.d22``): a 4-socket machine's two-hop links, a sub-NUMA
cluster's neighbour beside the other socket.

Where the node's NUMA nodes hold several kinds of memory (HBM or CXL
beside DRAM, told by the kernel's memory tiers or the firmware's access
bandwidths), local and remote are compared within DRAM: the threads run on
the cores of DRAM nodes only, and the nodes of other kinds are named as not
measured (``memory_kinds``).

The logic is in :mod:`hpc_acceptance.memory` (base check, build, the
partners in :mod:`~hpc_acceptance.memory.layout`) and
:mod:`hpc_acceptance.core.topology` (sizes).
'''

import reframe as rfm
from reframe.core.builtins import parameter, run_after, variable

from hpc_acceptance.core import node_facts, topology
from hpc_acceptance.core.node_shape import Inapplicable
from hpc_acceptance.memory import layout
from hpc_acceptance.memory.check import MemoryKernelCheck


@rfm.simple_test
class MemoryNumaCheck(MemoryKernelCheck):
    '''Local and remote streaming bandwidth and the remote penalty.'''

    program = 'mem_numa'
    measures_levels = False

    # Every NUMA node needs threads to own and to fetch memory.
    threads = parameter(['all_cores'], loggable=True)

    #: The NUMA distances measured apart, and those that could not be
    #: (:func:`hpc_acceptance.memory.layout.distance_classes`); empty where
    #: the SLIT is not known before the job or has one remote distance.
    #:
    #: :type: :class:`str`
    distance_classes = variable(str, value='', loggable=True)

    #: The NUMA nodes of other kinds of memory than the node's main memory
    #: (HBM, CXL or NVM, a device's: :mod:`hpc_acceptance.core.numa_memory`)
    #: the run may use, named as not measured; empty where there are none
    #: or the description tells no kinds.
    #:
    #: :type: :class:`str`
    memory_kinds = variable(str, value='', loggable=True)

    @property
    def layout_plan(self):
        '''The threads on the cores of the NUMA nodes of main memory only
        (:func:`hpc_acceptance.memory.layout.main_memory_cores`): local
        and remote compared within one kind of memory.'''
        try:
            return layout.plan(self.processor_info, self.threads,
                               self.threads_per_core > 1, self.node_kinds,
                               main_memory=True)
        except (topology.TopologyError, Inapplicable) as err:
            self.skip(f'{self.current_partition.fullname}: {err}')

    @run_after('setup')
    def name_other_kinds(self):
        self.memory_kinds = layout.other_kinds(self.processor_info)

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

    @property
    def partners_by_distance(self):
        '''``{distance: partners}`` of the extra remote passes.'''
        facts = node_facts.of_partition(self.current_partition)
        found, missing = layout.distance_classes(self.layout_plan.places,
                                                 facts.distances)
        measured = (f'measured apart: distance '
                    f'{", ".join(map(str, found))}' if found else '')
        self.distance_classes = '; '.join(
            [measured] * bool(measured) + list(missing.values()))
        return found

    def program_options(self):
        memory = self.working_sets()['memory']
        options = [f'--size={topology.format_size(memory)}',
                   '--partners=' + ','.join(map(str, self.partners))]
        classes = self.partners_by_distance
        if classes:
            # a thread without a partner at that distance rests: '-'
            options.append('--distances=' + '/'.join(
                f'{distance}:' + ','.join('-' if p is None else str(p)
                                          for p in partners)
                for distance, partners in classes.items()))
        return options

    def expected_figures(self):
        expected = {'bandwidth.local': 'MB/s', 'bandwidth.remote': 'MB/s',
                    'remote_penalty': 'ns'}
        for distance in self.partners_by_distance:
            expected[f'bandwidth.remote.d{distance}'] = 'MB/s'
            expected[f'remote_penalty.d{distance}'] = 'ns'
        return expected

    def refusal(self, text):
        # mem_numa refuses on a "# numa: <why>" line, without figures
        # (threads not on the NUMA nodes the check placed them on)
        return [line[2:] for line in text.splitlines()
                if line.startswith('# numa: ')]
