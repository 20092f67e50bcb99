'''Dot product from memory with 2, 4, 6 and 8 prefetch streams.

TACC's prefetch kernel: the dot product's loop is bisected, trisected or
quadrisected so that the hardware prefetcher sees 4, 6 or 8 streams instead
of 2. The vectors are four times larger than the last-level caches.

The logic is in :mod:`hpc_acceptance.memory` (base check, build) and
:mod:`hpc_acceptance.core.topology` (sizes).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.core import topology
from hpc_acceptance.memory.check import MemoryKernelCheck


@rfm.simple_test
class MemoryDotStreamsCheck(MemoryKernelCheck):
    '''Dot-product bandwidth from memory for a number of prefetch streams.'''

    program = 'mem_dotstreams'
    measures_levels = False

    #: Concurrent read streams exposed to the prefetcher.
    #:
    #: :type: :class:`int`
    #: :values: ``2, 4, 6, 8``
    streams = parameter([2, 4, 6, 8], loggable=True)

    def program_options(self):
        memory = self.working_sets()['memory']
        return [f'--size={topology.format_size(memory)}',
                f'--streams={self.streams}']

    def expected_figures(self):
        return {'bandwidth': 'MB/s', 'time_per_iteration': 'ns'}
