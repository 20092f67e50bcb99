'''HPCC, the HPC Challenge suite.

:mod:`.check` is the base check, :mod:`.input_file` writes ``hpccinf.txt``
(problem size N, block size NB, process grid PxQ), :mod:`.output` reads
``hpccoutf.txt`` and :mod:`.blas` tells which BLAS the binary runs with.
'''
