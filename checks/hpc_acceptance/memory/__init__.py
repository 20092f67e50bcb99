'''The memory kernels of ``src/memory``: pointer-chase latency, read
bandwidth, dot-product streams, gather dot, DAXPY and NUMA local/remote.

:mod:`.check` is their base check, :mod:`.build` their build fixture; each
check in ``checks/memory/`` picks a kernel and its figures.
'''
