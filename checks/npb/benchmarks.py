'''The NAS Parallel Benchmarks checks: ``NpbBtCheck``, ``NpbCgCheck``,
``NpbEpCheck``, ``NpbFtCheck``, ``NpbIsCheck``, ``NpbLuCheck``,
``NpbMgCheck`` and ``NpbSpCheck``, one per benchmark of
:data:`hpc_acceptance.npb.classes.BENCHMARKS`.

They differ only in the benchmark and so in its process counts, and are
made here from that list, as the nightly mode's ``-S
Npb<Bench>Check.npb_class=W`` options are (``config/settings.py``). They
stay one class per benchmark rather than one check with a ``benchmark``
parameter (as hpctestlib's OSU check has): the class name keys every
stored result and reference entry and selects a benchmark (``-n
NpbCgCheck``), and the process counts depend on the benchmark (squares for
BT and SP), which one ReFrame parameter cannot make of another.

The logic is in :mod:`hpc_acceptance.npb` (base check, classes, binaries,
output).
'''

import reframe as rfm
from reframe.core.builtins import parameter
from reframe.core.meta import make_test

from hpc_acceptance.npb import bounded, classes
from hpc_acceptance.npb.check import NpbCheck

#: What each benchmark solves, and how it communicates.
SOLVES = {
    'bt': 'block tri-diagonal solver of a 3-D compressible Navier-Stokes '
          'system (ADI, 5x5 blocks)',
    'cg': 'conjugate gradient: smallest eigenvalue of a large sparse '
          'symmetric matrix (irregular memory access and communication)',
    'ep': 'embarrassingly parallel: Gaussian pairs from a linear '
          'congruential generator, no communication until the final sums',
    'ft': '3-D fast Fourier transform of a PDE solution (all-to-all '
          'communication)',
    'is': 'integer sort: bucket sort of random keys (all-to-all, integer '
          'performance)',
    'lu': 'lower-upper Gauss-Seidel solver (SSOR) of a 3-D Navier-Stokes '
          'system (pipelined, many small messages)',
    'mg': 'multigrid V-cycles on a 3-D Poisson problem (short- and '
          'long-range communication)',
    'sp': 'scalar penta-diagonal solver of a 3-D compressible '
          'Navier-Stokes system (ADI)',
}


def _check_of(benchmark):
    return make_test(classes.check_name(benchmark), (NpbCheck,), {
        '__doc__': f'NPB {benchmark.upper()}, {SOLVES[benchmark]}: Mop/s '
                   f'in total and per process, and time.',
        'benchmark': benchmark,
        #: Ranks: the counts the benchmark accepts
        #: (:func:`hpc_acceptance.npb.classes.process_counts`), bounded by
        #: the partitions (:mod:`hpc_acceptance.npb.bounded`).
        #:
        #: :type: :class:`int`
        'num_procs': parameter(bounded.process_counts(benchmark),
                               loggable=True),
        'variants_left_out': bounded.left_out(benchmark),
    })


for _benchmark in classes.BENCHMARKS:
    rfm.simple_test(_check_of(_benchmark))
