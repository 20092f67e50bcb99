'''Hardware variants every check runs in: ISA, Turbo and Hyper-Threading.

Each is a test parameter whose first value is the default the nightly
acceptance runs (``native``, ``as-configured``, ``as-configured``); the other
values are variants a ``post-upgrade`` run adds. One variant is changed at a
time, so a check has 1 + 4 + 2 + 2 cases rather than 5 x 3 x 3, and every
non-default case carries the ``variant`` tag (nightly leaves them out).

- ``isa``: what the benchmark is built for; the check proves it (see the
  checks' sanity) and skips an ISA the CPU or the compiler cannot do.
- ``turbo``: ``on``/``off`` are set through the partition's
  ``extras.turbo_control`` (``'slurm'``: Slurm's ``--cpu-freq`` via the
  partition resource ``cpu_freq``; or ``{'on': [commands], 'off':
  [commands]}``) and verified in the job (:mod:`hpc_acceptance.core.turbo`:
  by the clock for Slurm, by the Turbo switch for commands, which put the
  node back when the job ends); where the state can be neither set nor
  confirmed the variant is skipped with the reason.
- ``smt``: ``on`` runs every hardware thread of a core, ``off`` one,
  through ReFrame's ``use_multithreading`` and the checks' layouts; skipped
  where SMT is absent or disabled (cores of one hardware thread as
  :mod:`hpc_acceptance.core.node_shape` counts them: a Bulldozer module's
  two CPUs are two cores).

Every check also measures the effective core clock before and after its
benchmark (``core_clock``, GHz, with its median chain and the ratio of the
two: ``core_clock_median``, ``best_to_median_core_clock``) and records the
node it ran on and that node's Turbo and SMT state.
'''

import os
import shlex

import reframe as rfm
import reframe.utility as util
import reframe.utility.sanity as sn
from reframe.core.builtins import (fixture, parameter, run_after, run_before,
                                   variable)
from reframe.core.exceptions import SanityError

from hpc_acceptance.core import (core_kinds, figures, isa, job_status,
                                 node_facts, node_shape, node_state,
                                 topology_change, turbo)
from hpc_acceptance.core.builds import ClockProbeBuild

DEFAULTS = {'isa': 'native', 'turbo': 'as-configured',
            'smt': 'as-configured'}

_CLOCK_BEFORE = 'core_clock.before'
_CLOCK_AFTER = 'core_clock.after'
_NODE_STATE = 'node_state.txt'
#: ``{performance variable: (core_clock's figure, unit)}``, each the mean
#: of the probe's before and after the benchmark.
_CLOCK_FIGURES = {
    'core_clock': ('core_clock', 'GHz'),
    'core_clock_median': ('core_clock.median', 'GHz'),
    'best_to_median_core_clock': ('best_to_median', 'ratio'),
}


def allocation_problems(probed, ranks_per_node, threads):
    '''Where the job whose probe printed ``probed`` was given fewer CPUs
    than its ``ranks_per_node`` x ``threads`` need (a partition whose jobs
    get part of a node, planned on the whole of it): its figures would be
    of an oversubscribed node.'''
    given = node_state.allowed_cpus(probed)
    needed = ranks_per_node * threads
    if given is None or len(given) >= needed:
        return []

    return [f'the job may use {len(given)} CPUs of its node '
            f'({node_shape.cpu_list(given)}); its {ranks_per_node} rank(s) '
            f'x {threads} thread(s) need {needed}: the plan is of a whole '
            f'node the job was not given; give the partition\'s acceptance '
            f'jobs whole nodes (Slurm: "access": ["--exclusive"] in its '
            f'configuration)']


class HardwareVariants(rfm.RegressionTestPlugin):
    #: Instruction set the benchmark is built for.
    #:
    #: :type: :class:`str`
    #: :values: ``native`` (the partition's own best), ``sse4.2``, ``avx``,
    #:     ``avx2``, ``avx512``
    isa = parameter(list(isa.VARIANTS), type=str, loggable=True)

    #: Turbo state to run in.
    #:
    #: :type: :class:`str`
    #: :values: ``as-configured`` (leave the node as it is, record it),
    #:     ``on``, ``off``
    turbo = parameter(['as-configured', 'on', 'off'], type=str,
                      loggable=True)

    #: Hyper-Threading (SMT) use.
    #:
    #: :type: :class:`str`
    #: :values: ``as-configured`` (one thread per core, SMT left as it is),
    #:     ``on`` (every hardware thread), ``off`` (one per core)
    smt = parameter(['as-configured', 'on', 'off'], type=str, loggable=True)

    #: Hardware threads per core the check's layout uses: 1, or with
    #: ``smt=on`` those of the node's cores (on a hybrid CPU, of the cores
    #: that have most; the layouts use every hardware thread).
    #:
    #: :type: :class:`int`
    threads_per_core = variable(int, value=1, loggable=True)

    #: The ISA the binary that ran was built for: what an in-tree program
    #: states (``# built for:`` in its output), or the Spack target.
    #:
    #: :type: :class:`str`
    isa_built = variable(str, value='not stated', loggable=True)

    #: Turbo and SMT state the job reported, e.g. ``turbo off
    #: (intel_pstate/no_turbo=1); smt on (smt/active=1 ...)``.
    #:
    #: :type: :class:`str`
    node_state = variable(str, value='not probed', loggable=True)

    #: The node the job ran on, as the job itself reported it (the
    #: scheduler's name for it, e.g. ``SLURMD_NODENAME``, else its host
    #: name); for a job of several nodes, their list (``n[1-2]``). Fleet
    #: runs compare nodes by it; it keys no reference.
    #:
    #: :type: :class:`str`
    node = variable(str, value='', loggable=True)

    #: The software of the node the job ran on, as its probe read it:
    #: ``kernel=...; bios=...; mpi=...; compiler=...``. A post-upgrade
    #: comparison lists what changed; it keys nothing.
    #:
    #: :type: :class:`str`
    node_software = variable(str, value='', loggable=True)

    #: The hardware of the node the job ran on, as its probe read it:
    #: ``cpu=<model>; cpus=N; cores=N; memory_kb=N``. A fleet run compares
    #: a node with the nodes of its partition that have the same, and
    #: names one that differs; it keys nothing.
    #:
    #: :type: :class:`str`
    node_hardware = variable(str, value='', loggable=True)

    #: Builds the core-clock probe.
    #:
    #: :type: :class:`hpc_acceptance.core.builds.ClockProbeBuild`
    #: :scope: *environment*
    clock_probe = fixture(ClockProbeBuild, scope='environment')

    @run_after('init')
    def one_variant_at_a_time(self):
        changed = [name for name, default in DEFAULTS.items()
                   if getattr(self, name) != default]
        # a layout on a hybrid CPU's performance cores only is a variant too
        if getattr(self, 'threads', None) == core_kinds.PERFORMANCE_CORES:
            changed.append('threads')
        # Dropped at load time, not reported: combinations are not generated
        self.skip_if(len(changed) > 1, 'one variant at a time')
        if changed:
            self.tags = self.tags | {'variant'}

    @run_after('setup')
    def require_isa(self):
        partition = self.current_partition
        try:
            isa.cpu_supports(partition.processor.info, self.isa,
                             node_facts.of_partition(partition).flags)
        except isa.UnsupportedIsa as err:
            self.skip(f'isa={self.isa}: {err}')

    @run_after('setup')
    def set_turbo(self):
        if self.turbo == 'as-configured':
            return

        part = self.current_partition
        control = turbo.control_of(part)
        local = part.scheduler.registered_name == 'local'
        why = turbo.setup_skip(
            self.turbo, control, part.fullname,
            node_state.probe_here()['turbo'] if local else None)
        self.skip_if(why is not None, why)
        if control == 'slurm':
            # Slurm's highest frequency is the Turbo range; the one below
            # it is the highest without Turbo.
            freq = 'High' if self.turbo == 'on' else 'HighM1'
            self.extra_resources['cpu_freq'] = {'freq': freq}
        elif control:
            self.prerun_cmds = turbo.command_lines(
                control, self.turbo, node_state.SCRIPT) + self.prerun_cmds

    @run_after('setup')
    def set_smt(self):
        part = self.current_partition
        try:
            per_core = node_shape.threads_per_core(
                node_shape.shape(part.processor.info), self.smt,
                part.fullname)
        except node_shape.Inapplicable as err:
            self.skip(str(err))

        if self.smt == 'as-configured':
            return

        self.use_multithreading = self.smt == 'on'
        self.threads_per_core = per_core

    @run_before('run')
    def probe_clock_and_state(self):
        probe = os.path.join(self.clock_probe.isa_dir('native'), 'core_clock')
        compiler = shlex.quote(self.current_environ.cc or '')
        if (self.turbo in ('on', 'off') and
                self.current_partition.extras.get('turbo_control') == 'slurm'):
            # Slurm sets --cpu-freq on the CPUs of srun's steps only: the
            # clock that verifies it is measured in one.
            probe = f'{turbo.SLURM_STEP} {probe}'

        self.prerun_cmds = self.prerun_cmds + [
            f'sh {node_state.SCRIPT} {compiler} > {_NODE_STATE}',
            f'{probe} > {_CLOCK_BEFORE}',
        ]
        # The probe runs after the benchmark: hand the benchmark's exit
        # status on (the job's, which the checks' sanity reports).
        self.postrun_cmds = [
            f'benchmark_status=$?; {probe} > {_CLOCK_AFTER}; '
            f'(exit $benchmark_status)'
        ] + self.postrun_cmds

    @run_after('setup')
    def record_core_clock(self):
        # Set before the check's own performance variables, which add to
        # these: a check that measures the clock during its run replaces
        # core_clock. The median chain and its ratio to the fastest say
        # whether something took the core in slices (unbounded by the
        # references, read by the fleet's contention rule).
        for perf_name, (name, unit) in _CLOCK_FIGURES.items():
            before, after = (
                figures.figure_value(os.path.join(self.stagedir, probe),
                                     name)
                for probe in (_CLOCK_BEFORE, _CLOCK_AFTER)
            )
            self.perf_variables[perf_name] = sn.make_performance_function(
                (before + after) / 2, unit
            )

    @run_before('run')
    def launch_on_hardware_threads(self):
        # Open MPI counts one slot per core unless told otherwise.
        if (self.threads_per_core > 1 and
                self.job.launcher.registered_name.startswith('mpirun')):
            self.job.launcher.options += ['--use-hwthread-cpus']

    @run_before('sanity')
    def record_node(self):
        # ReFrame's own node list can be empty (the squeue backend sees a
        # short job only while it is queued or running); the job's own
        # probe is there whenever the job started.
        try:
            with open(os.path.join(self.stagedir, _NODE_STATE)) as fp:
                text = fp.read()
        except OSError:
            text = ''

        self.node_software = node_state.software(text)
        self.node_hardware = node_state.hardware(text)
        nodes = list(self.job.nodelist or [])
        if len(nodes) > 1:
            self.node = util.nodelist_abbrev(nodes)
        else:
            self.node = (node_state.node_name(text) or
                         (nodes[0] if nodes else ''))

    @run_before('sanity')
    def verify_variant(self):
        # A job that failed, or that Slurm ended early (no exit status
        # with ReFrame's squeue backend), is explained by the check's own
        # sanity; one that ran must have run in the state its variant
        # asked for. A dry run ran nothing, so there is no state to verify.
        if self.is_dry_run() or job_status.ended_early(
                self.job.exitcode,
                os.path.join(self.stagedir, self.job.stderr)):
            return

        problems = self.variant_problems()
        if problems:
            raise SanityError('; '.join(problems))

    def built_isa_problems(self, output):
        '''Check the ISA an in-tree program's ``output`` says it was built
        for against the variant; records it as :attr:`isa_built`.'''
        self.isa_built = figures.built_for(output) or 'not stated'
        if self.isa != 'native' and self.isa_built != self.isa:
            return [f'asked for isa={self.isa}, the binary was built for '
                    f'{self.isa_built}']

        return []

    def variant_problems(self):
        '''What is wrong with the state the job ran in, as messages.'''
        path = os.path.join(self.stagedir, _NODE_STATE)
        try:
            with open(path) as fp:
                probed = fp.read()
            states = node_state.parse(probed, path)
        except (OSError, node_state.NodeStateError) as err:
            return [f'node state: {err}']

        self.node_state = '; '.join(f'{name} {s.value} ({s.detail})'
                                    for name, s in states.items())

        problems, clocks = [], []
        changed = topology_change.live_problem(
            node_state.topology(probed),
            self.current_partition.processor.info)
        if changed:
            problems.append(f'{changed}: re-detect it: ' +
                            topology_change.redetect(
                                self.current_system.name,
                                self.current_partition.name))
        problems += allocation_problems(
            probed, getattr(self, 'num_tasks_per_node', None) or
            getattr(self, 'num_tasks', None) or 1,
            getattr(self, 'num_cpus_per_task', None) or 1)

        for name in (_CLOCK_BEFORE, _CLOCK_AFTER):
            try:
                with open(os.path.join(self.stagedir, name)) as fp:
                    text = fp.read()
            except OSError as err:
                problems.append(f'core clock probe: {err}')
                continue

            found = [f'{name}: {p}' for p in figures.output_problems(
                text, dict(_CLOCK_FIGURES.values()), name)]
            problems += found
            if not found:
                clocks.append(
                    figures.parse_figures(text, name)['core_clock'].value)

        if self.turbo in ('on', 'off'):
            skip, found = turbo.verdict(self.turbo,
                                        self.current_partition.extras,
                                        probed, clocks, self.stagedir)
            self.skip_if(skip is not None, skip)
            problems = found + problems

        # A kernel without /sys/devices/system/cpu/smt (before 4.19) says
        # unknown: the topology line above has confirmed the threads.
        if self.smt == 'on' and states['smt'].value == 'off':
            problems.append(f'asked for smt on, the node reports '
                            f'{states["smt"].value} ({states["smt"].detail})')

        return problems
