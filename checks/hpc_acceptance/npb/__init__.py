'''The NAS Parallel Benchmarks (MPI), class C by default.

:mod:`.check` is the base check, :mod:`.classes` the benchmarks, classes,
rank counts and memory needs, :mod:`.binaries` where ``<bench>.<class>.x``
comes from and :mod:`.output` the parser and judge of a run's output.
'''
