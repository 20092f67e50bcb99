'''Build fixture of ``net_pairs`` (``src/network``).'''

from hpc_acceptance.core.builds import InTreeBuild

PROGRAM = 'net_pairs'


class NetworkKernelsBuild(InTreeBuild):
    '''``net_pairs`` of ``src/network``, built with the environment's MPI
    compiler wrapper for the native ISA only: message passing does not
    depend on the vector instructions it was compiled for.'''

    folder = 'network'
    programs = [PROGRAM]
    isas = ['native']
