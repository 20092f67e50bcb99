'''Build fixture of the in-tree STREAM program (``src/stream``), one build
per ISA variant.'''

from hpc_acceptance.core.builds import InTreeBuild


class StreamInTreeBuild(InTreeBuild):
    '''The in-tree STREAM-rules program of ``src/stream``.'''

    folder = 'stream'
    programs = ['stream_intree']
