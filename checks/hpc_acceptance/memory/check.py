'''Build fixture and base class of the memory-kernel checks (``src/memory``).

The kernels re-implement the memory benchmarks of the seed papers (TACC's
Xeon/Opteron study and NASA's Pleiades evaluation): pointer-chase latency,
read bandwidth, prefetch streams, gather and DAXPY per cache level, and NUMA
local vs remote streaming. Each check in ``checks/memory/`` runs one of the
programs and turns its ``name value unit`` lines into performance variables.
'''

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (fixture, parameter, run_after,
                                   sanity_function, variable)

from hpc_acceptance.core import figures, job_status, topology
from hpc_acceptance.core.check import AcceptanceCheck
from hpc_acceptance.core.dependency import Requirement
from hpc_acceptance.core.node_shape import Inapplicable
from hpc_acceptance.core.openmp_process import OpenMPProcess
from hpc_acceptance.core.repetitions import RepetitionFigures
from hpc_acceptance.core.types import PositiveInt
from hpc_acceptance.memory import layout
from hpc_acceptance.memory.build import MemoryKernelsBuild


class MemoryKernelCheck(AcceptanceCheck, rfm.RunOnlyRegressionTest,
                        OpenMPProcess, RepetitionFigures):
    '''Runs one program of ``src/memory`` with OpenMP in one process.'''

    #: The kernels, built from ``src/memory`` for this environment and every
    #: ISA variant.
    #:
    #: :type: :class:`MemoryKernelsBuild`
    #: :scope: *environment*
    kernels = fixture(MemoryKernelsBuild, scope='environment')

    #: Thread layout: ``single`` (one thread on one core) or ``all_cores``
    #: (every core, socket by socket; with ``smt=on`` every hardware
    #: thread), each thread pinned to its place
    #: (:mod:`hpc_acceptance.memory.layout`); where a configured partition
    #: has a hybrid CPU also ``performance_cores`` (its performance cores
    #: only, a variant).
    #:
    #: :type: :class:`str`
    threads = parameter(list(layout.layouts()), loggable=True)

    #: The cache levels not measured on this run's threads and why (a
    #: level no working set can lie in, clear of the level below: see
    #: :mod:`hpc_acceptance.core.topology`); empty when every level is.
    #:
    #: :type: :class:`str`
    levels_not_measured = variable(str, value='', loggable=True)

    #: Timed repetitions; each figure is the best of them.
    #:
    #: :type: :class:`int`
    #: :default: ``5``
    repeats = variable(PositiveInt, value=5, loggable=True)

    #: Milliseconds that the timed repetitions of each figure span at
    #: least; the figure is the best of them all. Whatever shares the core
    #: or a cache (a VM host's other guests on the sibling hardware thread
    #: or in the L3, other jobs on a shared node) slows runs in bursts
    #: shorter than a second, so the best over a longer span is the
    #: hardware's own figure, while a slowdown that lasts slows every run.
    #:
    #: :type: :class:`int`
    #: :default: ``2000``
    span_ms = variable(PositiveInt, value=2000, loggable=True)

    #: Name of the program in ``src/memory`` this check runs.
    #:
    #: :type: :class:`str`
    program = variable(str)

    #: The inputs that change the figures (see :mod:`.core.identity`):
    #: thread count and binding, working-set sizes, repetitions and span, all
    #: in the program's options.
    identity_fields = ('num_cpus_per_task', 'executable_opts')

    #: Sized from the processor description: the threads of ``all_cores``.
    topology_fields = ('num_cpus_per_task',)

    #: Whether the program measures each cache level (``--sizes``), so that
    #: a level not measured is said (:attr:`levels_not_measured`); the
    #: programs of memory alone do not.
    measures_levels = True

    valid_systems = ['+compute']
    valid_prog_environs = ['+openmp']
    num_tasks = 1
    tags = {'memory', 'nightly'}

    @property
    def layout_plan(self):
        '''Where the threads run and their working sets
        (:func:`hpc_acceptance.memory.layout.plan`); skips the check where
        the processor description cannot say.'''
        try:
            return layout.plan(self.processor_info, self.threads,
                               self.threads_per_core > 1, self.node_kinds)
        except (topology.TopologyError, Inapplicable) as err:
            self.skip(f'{self.current_partition.fullname}: {err}')

    def in_tree_build(self):
        return self.kernels

    @run_after('init')
    def set_requirement(self):
        self.requirement = Requirement(
            executable=self.program,
            spack_spec='hpc-acceptance-kernels',
            hint='the in-tree build of src/memory failed: see the '
                 'MemoryKernelsBuild stage directory'
        )

    @run_after('setup')
    def place_threads(self):
        plan = self.layout_plan
        self.place_threads_with(plan.places, 'spread')
        self.record_cores_used(plan.cores)
        if self.measures_levels:
            self.levels_not_measured = '; '.join(
                f'{level}: {why}'
                for level, why in plan.levels_skipped.items())

    def working_sets(self):
        '''``{level: bytes}`` in total over all threads of this run.'''
        return self.layout_plan.working_sets

    def per_thread_working_sets(self):
        '''``{level: bytes}`` of each thread, for programs in which every
        thread works on its own data.'''
        return self.layout_plan.per_thread_working_sets()

    def program_options(self):
        '''Command-line options of :attr:`program` for this run.'''
        raise NotImplementedError

    def expected_figures(self):
        '''``{figure name: unit}`` this run must print.'''
        raise NotImplementedError

    def refusal(self, text):
        '''Why the program ran nothing, as it said in its output ``text``;
        ``[]`` if it did not refuse.'''
        return []

    @run_after('setup')
    def set_program_options(self):
        self.executable_opts = self.program_options() + [
            f'--repeats={self.repeats}', f'--span-ms={self.span_ms}'
        ]

    @run_after('setup')
    def set_perf_variables(self):
        self.perf_variables.update({
            name.replace('.', '_'): sn.make_performance_function(
                figures.figure_value(self.stdout, name), unit
            )
            for name, unit in self.expected_figures().items()
        })

    @sanity_function
    def output_is_valid(self):
        path = self.stdout.evaluate()
        with open(path) as fp:
            text = fp.read()

        problems = self.refusal(text) or figures.output_problems(
            text, self.expected_figures(), path)
        problems = job_status.exit_problems(self.job.exitcode) + problems

        problems += self.built_isa_problems(text)
        return sn.assert_true(not problems, msg='; '.join(problems))
