'''The MPI communication kernels of ``src/network``: single- and multi-pair
ping-pong.

:mod:`.check` is the base check, :mod:`.build` the build fixture of
``net_pairs`` and :mod:`.rank_report` reads and verifies where its ranks
ran.
'''
