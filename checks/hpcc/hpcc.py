'''HPC Challenge (HPCC 1.5): HPL, DGEMM, STREAM, PTRANS, RandomAccess, FFT
and the latency/bandwidth component, one MPI process per core.

The single-node check runs on every partition; the multi-node one on
partitions whose scheduler can allocate several nodes to a job.

The logic is in :mod:`hpc_acceptance.hpcc` (base check, input file, output,
BLAS).
'''

import reframe as rfm
from reframe.core.builtins import parameter

from hpc_acceptance.hpcc import bounded
from hpc_acceptance.hpcc.check import BATCH_SCHEDULERS, HpccBenchmark

#: Node counts of multi-node HPCC, where the partitions hold them.
NODE_COUNTS = (2, 4)


@rfm.simple_test
class HpccCheck(HpccBenchmark):
    '''HPCC on one node.'''

    tags = {'hpcc', 'nightly'}


@rfm.simple_test
class HpccMultiNodeCheck(HpccBenchmark):
    '''HPCC across nodes: HPL, PTRANS, MPI RandomAccess and MPI FFT over
    the interconnect.'''

    #: Nodes of the run, up to ``extras.max_nodes`` of the scheduler
    #: partitions (:mod:`hpc_acceptance.hpcc.bounded`); ``-P
    #: num_nodes=2,8,16`` chooses others.
    #:
    #: :type: :class:`int`
    #: :values: ``2, 4``
    num_nodes = parameter(bounded.node_counts(NODE_COUNTS), type=int,
                          loggable=True)

    variants_left_out = bounded.left_out('HpccMultiNodeCheck', NODE_COUNTS)

    valid_systems = [f'+compute %scheduler={name}'
                     for name in BATCH_SCHEDULERS]
    tags = {'hpcc', 'multinode'}

    def node_count(self):
        return self.num_nodes
