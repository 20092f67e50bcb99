'''STREAM: sustainable memory bandwidth of a node (copy, scale, add, triad).

McCalpin's STREAM from the partition's Spack environment, a module or
``PATH``; elsewhere the in-tree program that follows STREAM's rules. The
arrays are four times the last-level caches of the cores used, the threads
one per core of the layout (one core, one socket, the whole node).

The logic is in :mod:`hpc_acceptance.stream` (base check, sizing, output,
build).
'''

import reframe as rfm

from hpc_acceptance.stream.check import StreamBenchmark


@rfm.simple_test
class StreamCheck(StreamBenchmark):
    '''STREAM copy, scale, add and triad in MB/s, and triad as a share of
    the partition's peak memory bandwidth where it declares one.'''
