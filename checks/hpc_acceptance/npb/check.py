'''Base class of the NAS Parallel Benchmarks checks (NPB 3.4, MPI).

Each check of ``checks/npb/benchmarks.py`` runs one benchmark (BT, CG, EP,
FT, IS, LU, MG, SP) of class :attr:`NpbCheck.npb_class` on each process
count the benchmark accepts (:mod:`hpc_acceptance.npb.classes`), with the
binary ``<bench>.<class>.x`` found by :mod:`hpc_acceptance.npb.binaries`.

A run passes when NPB verified its result on exactly the ranks and class
asked for (:mod:`hpc_acceptance.npb.output`); ``mpirun``'s exit status
alone means nothing, it is 0 after a failed verification too.

Ranks fill the cores of a node, bound one per core, before the next node.
A partition with the local scheduler has one node: a count above its cores
is skipped unless :attr:`NpbCheck.oversubscribe` is set, because ranks
sharing cores measure the operating system's time slicing, not the
machine. A class that does not fit in the memory of the nodes the run uses
is skipped with the figures.
'''

import math

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.builtins import (parameter, run_after, sanity_function,
                                   variable)

from hpc_acceptance.core import job_status, node_shape, partition_limits
from hpc_acceptance.core.check import AcceptanceCheck
from hpc_acceptance.core.node_shape import Inapplicable
from hpc_acceptance.core.rank_placement import PlacedRanks
from hpc_acceptance.npb import binaries, classes, output
from hpc_acceptance.npb.ranks import rank_layout

#: Performance variables: ``{name: (summary field, unit)}``.
PERF_VARIABLES = {
    'mops_total': ('mops_total', 'Mop/s'),
    'mops_per_process': ('mops_per_process', 'Mop/s'),
    'time': ('time', 's'),
}


class NpbCheck(AcceptanceCheck, rfm.RunOnlyRegressionTest,
               PlacedRanks):
    '''Runs one NPB benchmark of one class on ``num_procs`` ranks.

    Each check sets :attr:`benchmark` and defines the parameter
    ``num_procs`` from :func:`hpc_acceptance.npb.classes.process_counts`.
    '''

    #: The benchmark, as in the binary's name. Set by each check.
    #:
    #: :type: :class:`str`
    benchmark = variable(typ.Str['|'.join(classes.BENCHMARKS)],
                         loggable=True)

    #: ISA: NPB comes from a build made once for the nodes' own target (a
    #: site's, or Spack's default target), so ``native`` only; the ISA
    #: variants belong to the kernels this suite builds itself.
    #:
    #: :type: :class:`str`
    isa = parameter(['native'], type=str, loggable=True)

    #: NPB problem class. ``C`` is the acceptance size of a real partition;
    #: ``S`` and ``W`` take seconds, for small systems and CI.
    #:
    #: :type: :class:`str`
    #: :values: ``S``, ``W``, ``A``, ``B``, ``C``, ``D``
    #: :default: ``'C'``
    npb_class = variable(typ.Str[f'[{"".join(classes.CLASSES)}]'],
                         value='C', loggable=True)

    #: Directory with the site's own NPB binaries (``<bench>.<class>.x``);
    #: empty: the ``NPB_BIN_DIR`` environment variable, else the
    #: partition's Spack environment, a module or ``PATH``.
    #:
    #: :type: :class:`str`
    #: :default: ``''``
    npb_dir = variable(str, value='', loggable=True)

    #: Run more ranks than a one-node partition has cores instead of
    #: skipping (the figures then show time slicing, not the machine).
    #:
    #: :type: :class:`bool`
    #: :default: ``False``
    oversubscribe = variable(typ.Bool, value=False, loggable=True)

    #: The inputs that change the figures (see :mod:`.core.identity`):
    #: problem class, ranks and their spread over nodes.
    identity_fields = ('npb_class', 'num_tasks', 'num_tasks_per_node',
                       'oversubscribe')

    #: Sized from the processor description: the ranks that fit a node.
    topology_fields = ('num_tasks_per_node',)

    valid_systems = ['+compute']
    valid_prog_environs = ['+mpi']
    tags = {'npb', 'nightly'}

    def spans_nodes(self):
        # ranks fill a node's cores before the next node
        return partition_limits.spans_nodes(partition_limits.configured(),
                                            self.num_procs)

    @run_after('setup')
    def place_ranks(self):
        partition = self.current_partition
        every_thread = self.threads_per_core > 1
        try:
            ranks = rank_layout(
                self.num_procs, node_shape.slots(
                    node_shape.shape(partition.processor.info),
                    every_thread),
                every_thread=every_thread,
                one_node=partition.scheduler.registered_name == 'local',
                oversubscribe=self.oversubscribe)
        except (Inapplicable, node_shape.TopologyError) as err:
            self.skip(f'{partition.fullname}: {err}')

        self.num_tasks = ranks.num_tasks
        self.num_tasks_per_node = ranks.num_tasks_per_node
        self.place_with(ranks.distribution)
        # block placement: the first cores (hardware threads) in order
        node = node_shape.shape(partition.processor.info)
        places = node_shape.places(node.cores, every_thread)
        used = frozenset().union(*places[:ranks.num_tasks_per_node])
        self.record_cores_used([core for core in node.cores if core & used])

    @run_after('setup')
    def require_memory(self):
        nodes = math.ceil(self.num_tasks / self.num_tasks_per_node)
        fit = classes.memory_fit(
            self.benchmark, self.npb_class, self.num_procs,
            nodes=nodes, node_memory=self.node_memory
        )
        self.skip_if(not fit.fits,
                     f'{self.current_partition.fullname}: {fit.reason}')

    @run_after('setup')
    def locate_binary(self):
        found = binaries.locate(
            self.benchmark, self.npb_class, npb_dir=self.npb_dir,
            partition_name=self.current_partition.fullname,
            partition_extras=self.current_partition.extras,
            dry_run=self.is_dry_run()
        )
        self.use_binary(found)

    @run_after('setup')
    def set_perf_variables(self):
        self.perf_variables.update({
            name: sn.make_performance_function(
                _summary_value(self.stdout, field), unit
            )
            for name, (field, unit) in PERF_VARIABLES.items()
        })

    @sanity_function
    def verified_as_asked(self):
        return _assert_verified(self.stdout, self.job.exitcode, self.stderr,
                                self.job.jobid,
                                benchmark=self.benchmark,
                                npb_class=self.npb_class,
                                num_procs=self.num_procs)


@sn.deferrable
def _summary_value(path, field):
    with open(path) as fp:
        return getattr(output.parse_summary(fp.read(), path), field)


@sn.deferrable
def _assert_verified(path, exitcode, stderr, jobid, **asked):
    with open(path) as fp:
        problems = output.result_problems(fp.read(), source=path,
                                          **asked)

    problems = job_status.exit_problems(exitcode, stderr, jobid) + problems
    return sn.assert_true(not problems, msg='; '.join(problems))
