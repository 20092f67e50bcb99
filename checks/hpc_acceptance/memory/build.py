'''Build fixture of the memory kernels (``src/memory``), one build per ISA
variant.'''

from hpc_acceptance.core.builds import InTreeBuild


class MemoryKernelsBuild(InTreeBuild):
    '''The memory kernels of ``src/memory``.'''

    folder = 'memory'
    programs = ['mem_latency', 'mem_readbw', 'mem_dotstreams',
                'mem_gatherdot', 'mem_daxpy', 'mem_numa']
