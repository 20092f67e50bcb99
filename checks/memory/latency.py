'''Dependent-load latency per memory level.

A random cyclic pointer chase, one cache line per hop, swept from 4 KiB to
beyond four times the last-level cache (TACC's latency kernel, Pleiades'
Fig. 2). Each level's figure is taken in the middle of that level; see
:mod:`hpc_acceptance.core.topology` for the sizing rule.

The logic is in :mod:`hpc_acceptance.memory` (base check, build) and
:mod:`hpc_acceptance.core.topology` (sizes).
'''

import reframe as rfm
from reframe.core.builtins import parameter, variable

from hpc_acceptance.core import topology
from hpc_acceptance.core.types import PositiveInt
from hpc_acceptance.memory.check import MemoryKernelCheck


@rfm.simple_test
class MemoryLatencyCheck(MemoryKernelCheck):
    '''Latency of L1, L2, L3 and memory in ns and core cycles per load.'''

    program = 'mem_latency'

    # A pointer chase is one dependent chain: more threads would not help.
    threads = parameter(['single'], loggable=True)

    #: Sweep points per doubling of the working set.
    #:
    #: :type: :class:`int`
    #: :default: ``2``
    steps_per_octave = variable(PositiveInt, value=2, loggable=True)

    def program_options(self):
        sizes = self.working_sets()
        linesize = topology.cache_levels(self.processor_info)[0].linesize
        return [
            '--min=4K',
            f'--max={topology.format_size(sizes["memory"])}',
            f'--steps-per-octave={self.steps_per_octave}',
            f'--line={linesize}',
            topology.sizes_option(sizes),
        ]

    def expected_figures(self):
        expected = {'core_clock': 'GHz'}
        for level in self.working_sets():
            expected[f'latency.{level}'] = 'ns'
            expected[f'cycles.{level}'] = 'cycles'

        return expected
