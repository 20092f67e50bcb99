'''Base class of the MPI communication checks (``src/network``).

The kernel re-implements the synthetic benchmarks of Shan and Strohmaier's
Cray X1E/XT3/SX8/AMD-IB comparison (their Table 2): single-pair PingPong
and PingPing, and the multi-pair test in which every rank communicates with
``rank XOR (np-1)`` at the same time, so the pairs compete for the node's
network adapter, or for the link between the sockets. Message sizes are
swept from 0 B to 4 MiB; the checks report the latency of an empty message,
the bandwidth of the largest, and a b_eff-style effective bandwidth (the
mean over the sweep, as in the HLRS b_eff benchmark used by HiPERiSM's
bandwidth report).

Placements (parameter ``placement``), always asked of the launcher and then
verified from where the ranks report they ran:

=================  =======================================  ==============
placement          ranks                                    runs on
=================  =======================================  ==============
``same_socket``    2, on two cores of one socket            every partition
``cross_socket``   2, one per socket of one node            two sockets
``all_cores``      one per core of one node; socket 0's     every partition
                   ranks pair with socket 1's
``one_per_node``   2, one per node                          scheduler
``all_per_node``   one per core on ``num_nodes`` nodes;     scheduler
                   node i's ranks pair with node n-1-i's
=================  =======================================  ==============

Inter-node placements need a partition with a real scheduler: the local
scheduler runs everything on the node ReFrame runs on, so they are skipped
there and say why.

With ``smt=on`` every rank is bound to a hardware thread instead of a core:
``same_socket`` then measures the two threads of one core, ``all_cores``
and ``all_per_node`` run a rank on every hardware thread.
'''

import math
import os

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.builtins import (fixture, parameter, run_after, run_before,
                                   sanity_function, variable)
from reframe.core.exceptions import ReframeError

from hpc_acceptance.core import figures, job_status, node_shape, topology
from hpc_acceptance.core.check import AcceptanceCheck
from hpc_acceptance.core.dependency import Requirement
from hpc_acceptance.core.node_shape import Inapplicable, cpu_list
from hpc_acceptance.core.rank_placement import PlacedRanks
from hpc_acceptance.core.repetitions import RepetitionFigures
from hpc_acceptance.core.types import PositiveInt
from hpc_acceptance.network import layout, rank_report
from hpc_acceptance.network.build import PROGRAM, NetworkKernelsBuild


class NetworkPairsCheck(AcceptanceCheck, rfm.RunOnlyRegressionTest,
                        PlacedRanks, RepetitionFigures):
    '''Runs ``net_pairs`` on pairs of ranks placed as ``placement`` says.

    Each check sets :attr:`pairs` and defines the parameter ``placement``
    with the placements (table above) it runs.
    '''

    #: ISA: ``native`` only; message passing does not depend on the
    #: vector instructions the kernel was compiled for.
    #:
    #: :type: :class:`str`
    isa = parameter(['native'], type=str, loggable=True)

    #: The kernel, built from ``src/network`` for this environment.
    #:
    #: :type: :class:`NetworkKernelsBuild`
    #: :scope: *environment*
    kernels = fixture(NetworkKernelsBuild, scope='environment')

    #: ``pingpong``: one rank sends, its partner replies (unidirectional);
    #: ``pingping``: both ranks of a pair send at once (bidirectional).
    #:
    #: :type: :class:`str`
    pattern = parameter(['pingpong', 'pingping'], loggable=True)

    #: ``single``: one pair communicates; ``multi``: every rank does, with
    #: its partner, at the same time. Set by each check.
    #:
    #: :type: :class:`str`
    pairs = variable(typ.Str[r'single|multi'], loggable=True)

    #: Timed runs per message size; each figure is the best of them.
    #:
    #: :type: :class:`int`
    #: :default: ``5``
    repeats = variable(PositiveInt, value=5, loggable=True)

    #: Nodes of the ``all_per_node`` placement, an even number: node i
    #: pairs with node n-1-i. A variable, not flexible allocation: flexible
    #: allocation queries the scheduler at setup (no ``--dry-run`` without
    #: it) and would take every idle node for a test of pairs. Scale with
    #: ``-S num_nodes=8``, or ``-n '%placement=all_per_node' -P
    #: num_nodes=2,4,8`` for several sizes.
    #:
    #: :type: :class:`int`
    #: :default: ``2``
    num_nodes = variable(PositiveInt, value=2, loggable=True)

    #: The CPUs each rank of one node is bound to, in rank order, as the
    #: launcher places them on the partition's processor topology
    #: (:func:`hpc_acceptance.network.layout.rank_layout`); empty for
    #: placements across nodes. Set at setup.
    #:
    #: :type: :class:`list` of CPU lists (``'0-1'``)
    expected_cpus = variable(list, value=[])

    #: Where each rank ran, ``r<rank>=<host>:<cpu> ...``, read from the
    #: program's output after the run (recorded, not settable).
    #:
    #: :type: :class:`str`
    rank_cpus = variable(str, value='', loggable=True)

    #: The inputs that change the figures (see :mod:`.core.identity`):
    #: ranks, their spread over nodes and the repetitions. The message
    #: sizes (0 B to 4 MiB) are fixed in the program and named by each
    #: figure.
    identity_fields = ('num_tasks', 'num_tasks_per_node', 'repeats')

    #: Sized from the processor description: the ranks of the placements
    #: that fill a node's cores.
    topology_fields = ('num_tasks', 'num_tasks_per_node')

    valid_systems = ['+compute']
    valid_prog_environs = ['+mpi']
    tags = {'network', 'nightly'}

    def in_tree_build(self):
        return self.kernels

    def spans_nodes(self):
        return self.placement in layout.INTER_NODE

    @run_after('init')
    def set_requirement(self):
        self.requirement = Requirement(
            executable=PROGRAM,
            spack_spec='hpc-acceptance-kernels',
            hint='the in-tree build of src/network failed: see the '
                 'NetworkKernelsBuild stage directory'
        )

    @run_after('setup')
    def place_ranks(self):
        partition = self.current_partition
        if self.placement == 'all_per_node' and self.num_nodes % 2:
            raise ReframeError(f'num_nodes={self.num_nodes}: all_per_node '
                               f'pairs node i with node n-1-i, so it needs '
                               f'an even number of nodes')

        try:
            ranks = layout.rank_layout(
                partition.processor.info, self.placement, self.pairs,
                every_thread=self.threads_per_core > 1,
                local=partition.scheduler.registered_name == 'local',
                num_nodes=self.num_nodes, partition=partition.fullname)
        except (Inapplicable, topology.TopologyError) as err:
            self.skip(str(err) if isinstance(err, Inapplicable)
                      else f'{partition.fullname}: {err}')

        self.num_tasks = ranks.num_tasks
        self.num_tasks_per_node = ranks.num_tasks_per_node
        self.expected_cpus = [cpu_list(cpus) for cpus in ranks.expected]
        self.place_with(ranks.distribution)
        node = node_shape.shape(partition.processor.info)
        used = frozenset().union(*ranks.expected)
        self.record_cores_used([core for core in node.cores if core & used])

    @run_after('setup')
    def set_program_options(self):
        self.executable_opts = [f'--pattern={self.pattern}',
                                f'--pairs={self.pairs}',
                                f'--repeats={self.repeats}']

    def expected_figures(self):
        '''``{figure name: unit}`` this check reports.'''
        expected = {'latency': 'us', 'bandwidth': 'MB/s',
                    'bandwidth_effective': 'MB/s'}
        if self.pairs == 'multi':
            expected['bandwidth_aggregate'] = 'MB/s'

        return expected

    @run_after('setup')
    def set_perf_variables(self):
        self.perf_variables.update({
            name: sn.make_performance_function(
                figures.figure_value(self.stdout, name), unit
            )
            for name, unit in self.expected_figures().items()
        })

    @run_before('sanity')
    def record_rank_cpus(self):
        try:
            with open(os.path.join(self.stagedir, self.job.stdout)) as fp:
                ranks = rank_report.parse_rank_lines(fp.read())
        except (OSError, rank_report.RankReportError):
            return  # the sanity check says what is wrong

        self.rank_cpus = rank_report.summary(ranks)

    @sanity_function
    def output_is_valid(self):
        return _assert_valid(
            self.stdout, self.expected_figures(), self.job.exitcode,
            self.stderr, self.job.jobid,
            layout=self.placement,
            info=self.current_partition.processor.info,
            num_tasks=self.num_tasks,
            num_nodes=math.ceil(self.num_tasks / self.num_tasks_per_node),
            per_thread=self.threads_per_core > 1
        )


@sn.deferrable
def _assert_valid(path, expected, exitcode, stderr, jobid, **layout):
    with open(path) as fp:
        text = fp.read()

    problems = figures.output_problems(text, expected, path)
    problems = job_status.exit_problems(exitcode, stderr, jobid) + problems

    if not problems:
        try:
            ranks = rank_report.parse_rank_lines(text, path)
            problems = rank_report.layout_problems(ranks, **layout)
        except rank_report.RankReportError as err:
            problems = [str(err)]

    return sn.assert_true(not problems, msg='; '.join(problems))
