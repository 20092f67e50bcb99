'''Build fixture and base class of the STREAM check.

The binary is McCalpin's STREAM where a site has it (Spack's ``stream``
package with ``+openmp`` in the partition's environment, a module, or a
``stream_c.exe`` on ``PATH``); elsewhere the check runs ``stream_intree``,
built from ``src/stream``, which follows STREAM's rules (kernels, byte
counting, best of the repetitions after the first, first touch,
validation) but is this project's code. ``dependency_source`` and
``implementation`` say which one ran.

The arrays are sized from the topology: four times the last-level caches of
the cores the thread layout uses (:mod:`hpc_acceptance.stream.sizing`).
McCalpin's array size and repetitions are compiled in: the check reads what
the binary prints, fails if the size is below that rule, and records what
ran (``array_elements``, ``ntimes`` and so the identity), not its own
settings.
'''

import os

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.builtins import (fixture, parameter, run_after, run_before,
                                   sanity_function, variable)
from reframe.core.exceptions import ReframeError

from hpc_acceptance.core import identity, job_status, topology
from hpc_acceptance.core.check import AcceptanceCheck
from hpc_acceptance.core.dependency import Requirement
from hpc_acceptance.core.node_shape import Inapplicable
from hpc_acceptance.core.openmp_process import OpenMPProcess
from hpc_acceptance.core.repetitions import RepetitionFigures
from hpc_acceptance.core.types import PositiveInt
from hpc_acceptance.stream import output, sizing
from hpc_acceptance.stream.build import StreamInTreeBuild


class StreamBenchmark(AcceptanceCheck, rfm.RunOnlyRegressionTest,
                      OpenMPProcess, RepetitionFigures):
    '''STREAM copy, scale, add and triad on one node with OpenMP.'''

    #: The in-tree program, used where no McCalpin STREAM is available.
    #:
    #: :type: :class:`StreamInTreeBuild`
    #: :scope: *environment*
    stream_build = fixture(StreamInTreeBuild, scope='environment')

    #: Thread layout, one thread per core: ``single`` (the first core),
    #: ``socket`` (every core of the first socket) or ``all_cores``; where a
    #: configured partition has a hybrid CPU also ``performance_cores``
    #: (its performance cores only, a variant).
    #:
    #: :type: :class:`str`
    threads = parameter(list(sizing.layouts()), loggable=True)

    #: OpenMP thread binding (``OMP_PROC_BIND``) over the layout's cores.
    #:
    #: :type: :class:`str`, ``close`` or ``spread``
    #: :default: ``'close'``
    binding = variable(typ.Str[r'close|spread'], value='close',
                       loggable=True)

    #: Elements of each array of the in-tree program. ``None`` sizes them
    #: by STREAM's rule, four times the last-level caches of the cores
    #: used; a smaller value is refused. After setup it holds the size of
    #: the run. (McCalpin's size is compiled in: after the run this holds
    #: the size it printed, and the check fails if that is below the rule.)
    #:
    #: :type: :class:`int` or ``None``
    #: :default: ``None``
    array_elements = variable(PositiveInt, type(None), value=None,
                              loggable=True)

    #: Repetitions of every kernel; the first is not counted (in-tree
    #: program only: McCalpin's is compiled in, Spack's ``ntimes``; after
    #: the run this holds the count it printed).
    #:
    #: :type: :class:`int`, at least 2
    #: :default: ``10``
    ntimes = variable(PositiveInt, value=10, loggable=True)

    #: Which STREAM ran: ``mccalpin`` or ``in-tree``.
    #:
    #: :type: :class:`str`
    implementation = variable(str, value='unresolved', loggable=True)

    #: Least elements per array STREAM's rule asks for on this layout.
    #:
    #: :type: :class:`int`
    min_elements = variable(int, value=0)

    requirement = Requirement(
        executable='stream_c.exe',
        spack_spec='stream+openmp',
        hint='nothing: the in-tree program is used, see the '
             'StreamInTreeBuild stage directory if its build failed',
        # Its own name, so that nothing mistakes it for McCalpin's.
        in_tree_executable='stream_intree',
    )

    #: The inputs that change the figures (see :mod:`.core.identity`):
    #: which STREAM, its array size and repetitions, threads and binding.
    identity_fields = ('implementation', 'array_elements', 'ntimes',
                       'num_cpus_per_task', 'binding')

    #: Sized from the processor description: the threads of the layout.
    topology_fields = ('num_cpus_per_task',)

    valid_systems = ['+compute']
    valid_prog_environs = ['+openmp']
    num_tasks = 1
    tags = {'stream', 'nightly'}

    def in_tree_build(self):
        return self.stream_build

    @property
    def layout_plan(self):
        '''Where this layout's threads run and the least array size
        (:func:`hpc_acceptance.stream.sizing.plan`); skips the check where
        the processor description cannot say.'''
        try:
            return sizing.plan(self.processor_info, self.threads,
                               self.threads_per_core > 1, self.node_kinds)
        except (topology.TopologyError, Inapplicable) as err:
            self.skip(f'{self.current_partition.fullname}: {err}')

    @run_after('setup')
    def size_arrays(self):
        layout = self.layout_plan
        self.min_elements = layout.min_elements
        if self.array_elements is None:
            self.array_elements = self.min_elements
        elif self.array_elements < self.min_elements:
            raise ReframeError(
                f'array_elements={self.array_elements} is below STREAM\'s '
                f'rule for the {self.threads!r} layout on '
                f'{self.current_partition.fullname}: 4 x {layout.llc_bytes} '
                f'bytes of last-level cache = {self.min_elements} elements '
                f'per array'
            )

        memory = self.current_partition.extras.get('memory_bytes')
        if memory:
            problem = sizing.memory_problem(self.array_elements,
                                            memory)
            if problem:
                raise ReframeError(
                    f'{self.current_partition.fullname}: {problem}; lower '
                    f'array_elements (at least {self.min_elements}) or '
                    f'correct extras.memory_bytes'
                )

    @run_after('setup')
    def set_program_options(self):
        if self.dependency_source.startswith('in-tree:'):
            self.implementation = output.IN_TREE
            self.executable_opts = [f'--elements={self.array_elements}',
                                    f'--ntimes={self.ntimes}']
        else:
            self.implementation = output.MCCALPIN

    def identity_inputs(self, *, after_run):
        inputs = super().identity_inputs(after_run=after_run)
        if self.implementation == output.MCCALPIN and not after_run:
            # Compiled in: known once the binary has printed them.
            inputs.update(array_elements=identity.UNKNOWN,
                          ntimes=identity.UNKNOWN)

        return inputs

    @run_before('sanity')
    def record_what_ran(self):
        '''McCalpin's array size and repetitions, as the binary printed
        them: the figures are those of that run, not of this check's
        settings (the in-tree program ran with the settings).'''
        if self.implementation != output.MCCALPIN:
            return

        # Hooks run outside the stage directory, sanity inside it.
        path = os.path.join(self.stagedir, self.stdout.evaluate())
        try:
            run = output.parse(_read(path), path)
        except output.StreamOutputError:
            return  # the sanity check says what is wrong with the output

        if run.elements:
            self.array_elements = run.elements
        if run.ntimes:
            self.ntimes = run.ntimes

    @run_after('setup')
    def place_threads(self):
        # one place per core of the layout, or with smt=on per hardware
        # thread of them
        plan = self.layout_plan
        self.place_threads_with(plan.places, self.binding)
        self.record_cores_used(plan.cores)

    @run_after('setup')
    def set_perf_variables(self):
        self.perf_variables.update({
            kernel: sn.make_performance_function(
                _rate(self.stdout, kernel), 'MB/s'
            )
            for kernel in output.KERNELS
        })
        peak = self.current_partition.extras.get('peak_memory_bandwidth_gbs')
        if peak:
            self.perf_variables['triad_peak'] = sn.make_performance_function(
                _percent_of(_rate(self.stdout, 'triad'), self.peak_mbs(peak)),
                '%'
            )

    def peak_mbs(self, node_peak_gbs):
        '''Peak MB/s of the sockets the threads (and their pages) are on.'''
        try:
            return sizing.peak_bandwidth_mbs(self.layout_plan, node_peak_gbs)
        except topology.TopologyError as err:
            self.skip(f'{self.current_partition.fullname}: {err}')

    @sanity_function
    def output_is_valid(self):
        isa_problems = []
        if self.implementation == output.IN_TREE:
            isa_problems = self.built_isa_problems(
                _read(self.stdout.evaluate())
            )

        return _assert_stream_valid(self.stdout, self.stderr,
                                    self.job.exitcode,
                                    self.num_cpus_per_task,
                                    self.min_elements, isa_problems)


def _read(path):
    try:
        with open(path) as fp:
            return fp.read()
    except FileNotFoundError:
        return ''


@sn.deferrable
def _rate(path, kernel):
    return output.parse(_read(path), path).rates[kernel]


@sn.deferrable
def _percent_of(value, peak):
    return 100 * value / peak


@sn.deferrable
def _assert_stream_valid(stdout, stderr, exitcode, threads, min_elements,
                         isa_problems):
    text = _read(stdout)
    try:
        run = output.parse(text, stdout)
        problems = output.problems(run, threads=threads,
                                   min_elements=min_elements)
    except output.StreamOutputError as err:
        problems = [str(err)]

    problems += isa_problems

    problems = job_status.exit_problems(exitcode, stderr) + problems
    return sn.assert_true(not problems, msg='; '.join(problems))
