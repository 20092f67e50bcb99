'''HPC Challenge (HPCC 1.5): HPL, DGEMM, STREAM, PTRANS, RandomAccess, FFT
and the latency/bandwidth component, one MPI process per core.

The single-node check runs on every partition; the multi-node one on
partitions whose scheduler can allocate several nodes to a job.

The logic is in :mod:`hpc_acceptance.hpcc` (base check, input file, output,
BLAS).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.hpcc.check import BATCH_SCHEDULERS, HpccBenchmark


@rfm.simple_test
class HpccCheck(HpccBenchmark):
    '''HPCC on one node.'''

    tags = {'hpcc', 'nightly'}


@rfm.simple_test
class HpccMultiNodeCheck(HpccBenchmark):
    '''HPCC across nodes: HPL, PTRANS, MPI RandomAccess and MPI FFT over
    the interconnect.'''

    #: Nodes of the run; ``-P num_nodes=2,8,16`` chooses others.
    #:
    #: :type: :class:`int`
    #: :values: ``2, 4``
    num_nodes = parameter([2, 4], type=int, loggable=True)

    valid_systems = [f'+compute %scheduler={name}'
                     for name in BATCH_SCHEDULERS]
    tags = {'hpcc', 'multinode'}

    def node_count(self):
        return self.num_nodes
