'''Base class of the HPCC checks: the HPC Challenge suite with MPI.

The binary is HPCC 1.5 from the partition's Spack environment (``hpcc``), a
module, or ``PATH`` (Debian's ``hpcc`` package on the embedded default). The
check writes ``hpccinf.txt`` itself
(:mod:`hpc_acceptance.hpcc.input_file`): the
HPL matrix takes ``memory_fraction`` of the memory of the nodes used
(``extras.memory_bytes`` of the partition), one process per core.

Every figure of HPCC's summary becomes a performance variable
(:mod:`hpc_acceptance.hpcc.output`); which ones depends on the number of
processes and is decided before the run, so no variable is ever missing
from a run that passed its sanity check. The BLAS the binary ran with is
recorded (:mod:`hpc_acceptance.hpcc.blas`): it decides HPL and DGEMM.
'''

import os

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (parameter, run_after, run_before,
                                   sanity_function, variable)
from reframe.core.exceptions import ReframeError

from hpc_acceptance.core import job_status, topology
from hpc_acceptance.core.check import AcceptanceCheck
from hpc_acceptance.core.dependency import Requirement
from hpc_acceptance.core.types import Fraction, PositiveInt
from hpc_acceptance.hpcc import blas, input_file, layout, output

#: ReFrame schedulers that can allocate several nodes to one job; the
#: multi-node variants run on partitions with one of these.
BATCH_SCHEDULERS = ('slurm', 'squeue', 'pbs', 'pbspro', 'torque', 'lsf',
                    'sge', 'oar', 'flux')


class HpccBenchmark(AcceptanceCheck, rfm.RunOnlyRegressionTest):
    '''HPCC on whole nodes, one MPI process per core.'''

    #: ISA: hpcc comes from a build made once for the nodes' own target
    #: (Debian's package, or Spack's default target), so ``native`` only;
    #: the ISA variants belong to the kernels this suite builds itself.
    #:
    #: :type: :class:`str`
    isa = parameter(['native'], type=str, loggable=True)

    #: Fraction of the memory of the nodes used that the HPL matrix takes;
    #: HPCC sizes its other components from it. The default keeps a
    #: nightly run short (about a minute with reference BLAS on a
    #: 2-core, 24 GiB node); a full run uses ``0.8``.
    #:
    #: :type: :class:`float` in (0, 1]
    #: :default: ``0.005``
    memory_fraction = variable(Fraction, value=0.005, loggable=True)

    #: HPL's block size NB (also PTRANS's).
    #:
    #: :type: :class:`int`
    #: :default: ``192``
    block_size = variable(PositiveInt, value=192, loggable=True)

    #: HPL's matrix order N, set from the memory at setup.
    #:
    #: :type: :class:`int`
    problem_size = variable(int, value=0, loggable=True)

    #: HPL's process grid ``PxQ``, set from the number of processes.
    #:
    #: :type: :class:`str`
    process_grid = variable(str, value='', loggable=True)

    #: The blocks of the matrix each process holds at least, rows by
    #: columns (``8x4``): at least 4 each way, N raised above
    #: ``memory_fraction`` where needed
    #: (:func:`hpc_acceptance.hpcc.input_file.problem_size`).
    #:
    #: :type: :class:`str`
    blocks_per_process = variable(str, value='', loggable=True)

    #: The BLAS library hpcc ran with, ``kind:path`` (``reference``,
    #: ``openblas``, ``mkl``, ...), found after the run.
    #:
    #: :type: :class:`str`
    blas_library = variable(str, value='unresolved', loggable=True)

    requirement = Requirement(
        executable='hpcc',
        spack_spec='hpcc',
        debian_package='hpcc',
    )

    #: The inputs that change the figures (see :mod:`.core.identity`):
    #: HPL's N, NB and P x Q, and the ranks (``memory_fraction`` acts
    #: through N).
    identity_fields = ('problem_size', 'block_size', 'process_grid',
                       'num_tasks', 'num_tasks_per_node')

    #: Sized from the processor description: a rank per core (per hardware
    #: thread with ``smt=on``), unless ``-S num_tasks_per_node`` sets them.
    topology_fields = ('process_grid', 'num_tasks', 'num_tasks_per_node')

    valid_systems = ['+compute']
    valid_prog_environs = ['+mpi']
    keep_files = [input_file.INPUT_FILE, input_file.OUTPUT_FILE,
                  blas.LISTING_FILE]

    def node_count(self):
        '''Nodes the run uses.'''
        return 1

    @run_after('setup')
    def set_processes(self):
        partition = self.current_partition
        if self.num_tasks_per_node is None:
            # with smt=on, one process per hardware thread
            try:
                self.num_tasks_per_node = layout.ranks_per_node(
                    partition.processor.info, self.threads_per_core > 1)
            except topology.TopologyError as err:
                self.skip(f'{partition.fullname}: {err}')
        else:
            # set by hand: a reference of another count is no sign of
            # another topology
            self.topology_fields = ()

        self.num_tasks = self.node_count() * self.num_tasks_per_node
        self.num_cpus_per_task = 1
        # one process per core: on a hybrid CPU every kind of core, so
        # HPL's evenly dealt matrix waits for the slowest
        self.record_cores_used(layout.cores_used(
            partition.processor.info, self.num_tasks_per_node,
            self.threads_per_core > 1))
        # One process per core: no threaded BLAS under the MPI processes.
        self.env_vars['OMP_NUM_THREADS'] = '1'

    @run_after('setup')
    def size_problem(self):
        partition = self.current_partition
        try:
            p, q = input_file.process_grid(self.num_tasks)
            self.problem_size = input_file.problem_size(
                self.node_memory * self.node_count(), self.memory_fraction,
                self.block_size, grid=(p, q)
            )
        except input_file.InputError as err:
            raise ReframeError(f'{partition.fullname}: {err}') from None

        self.process_grid = f'{p}x{q}'
        self.blocks_per_process = input_file.blocks_per_process(
            self.problem_size, self.block_size, (p, q))

    @run_after('setup')
    def list_libraries(self):
        self.prerun_cmds.append(blas.listing_command(self.executable))

    @run_before('run')
    def write_input(self):
        p, q = (int(x) for x in self.process_grid.split('x'))
        with open(os.path.join(self.stagedir, input_file.INPUT_FILE),
                  'w') as fp:
            fp.write(input_file.render(self.problem_size, self.block_size,
                                       p, q))

        # hpcc appends to its output file: a stage directory kept from an
        # earlier run (--dont-restage) would mix two runs.
        previous = os.path.join(self.stagedir, input_file.OUTPUT_FILE)
        if os.path.exists(previous):
            os.remove(previous)

    @property
    def output_file(self):
        return os.path.join(self.stagedir, input_file.OUTPUT_FILE)

    def expected_figures(self):
        '''``{name: Figure}`` this run reports.'''
        return output.expected_figures(self.num_tasks)

    @run_after('setup')
    def set_perf_variables(self):
        self.perf_variables.update({
            name: sn.make_performance_function(
                _figure(self.output_file, figure), figure.unit
            )
            for name, figure in self.expected_figures().items()
        })
        peak = self.peak_gflops()
        if peak:
            hpl = _figure(self.output_file, output.FIGURES['hpl'])
            self.perf_variables['hpl_peak'] = sn.make_performance_function(
                100 * 1000 * hpl / peak, '%'
            )

    def peak_gflops(self):
        '''Peak Gflop/s of the cores used, from the partition's per-node
        ``extras.peak_gflops``; ``None`` where either is unknown
        (:func:`hpc_acceptance.hpcc.layout.peak_gflops`).'''
        partition = self.current_partition
        return layout.peak_gflops(
            partition.extras.get('peak_gflops'), partition.processor.info,
            self.num_tasks // self.num_tasks_per_node,
            self.num_tasks_per_node, self.threads_per_core > 1)

    @run_before('sanity')
    def record_blas(self):
        path = os.path.join(self.stagedir, blas.LISTING_FILE)
        try:
            with open(path) as fp:
                found = blas.identify(blas.parse_listing(fp.read()))
        except FileNotFoundError:
            found = blas.BlasLibrary('unknown')

        self.blas_library = found.describe()
        # The perflog records the dependency; the BLAS is part of it.
        self.dependency_source = (f'{self.dependency_source},'
                                  f'blas={self.blas_library}')

    @sanity_function
    def hpcc_is_valid(self):
        return _assert_hpcc_valid(self.output_file, self.stderr,
                                  self.job.exitcode, self.job.jobid,
                                  self.expected_figures(), self.num_tasks)


def _read(path):
    with open(path) as fp:
        return fp.read()


@sn.deferrable
def _figure(path, figure):
    return output.figure_value(
        output.parse_summary(_read(path), path), figure
    )


@sn.deferrable
def _assert_hpcc_valid(output_file, stderr, exitcode, jobid, expected,
                       num_processes):
    try:
        problems = output.problems(_read(output_file), expected,
                                   num_processes=num_processes,
                                   source=output_file)
    except FileNotFoundError:
        problems = [f'hpcc wrote no {output_file}: it did not start']

    problems = job_status.exit_problems(exitcode, stderr, jobid) + problems
    return sn.assert_true(not problems, msg='; '.join(problems))
