'''The nodes a fleet run covers, and those it leaves out with their state.

    hpc-acceptance nodes [--state STATE] [--json FILE]
        [-C CONFIG ...] [--system NAME] [-J OPTION ...] [REFRAME ARGS...]

ReFrame's ``--distribute=STATE`` makes one test per node of each partition
that is in ``STATE`` (``idle`` by default; ``avail``, ``all`` or a Slurm
state) and says nothing of the others. This asks ReFrame's own scheduler
backends the same question, with the same configuration, system and job
options (a reservation: ``-J reservation=NAME``), before the run: which
nodes it will cover, and which it will leave out with the state and the
reason the scheduler gives (``drained: memory errors``), so that the run's
summary and report can list them. Other reframe arguments are accepted and
ignored, so that the run's own can be passed as they are (a run asks
:func:`.node_map.listing_of_run` with them).
``ci/acceptance.sh --fleet`` runs it and keeps the answer beside the
run's report as JSON::

    {"<system>:<partition>": {"state": "idle", "covered": ["n1", ...],
                              "left_out": [{"node": "n2",
                                            "state": "IDLE+DRAIN",
                                            "reason": "..."}]}}

Exit status: 0, or 1 when no node of any partition is covered (nothing
would run) or the scheduler cannot be asked.
'''

import sys

from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.fleet import node_map
from hpc_acceptance.tools.results.runs import CONFIG


#: One line for ``hpc-acceptance --help``.
description = ('the nodes a fleet run (--fleet) covers and those it leaves '
               'out, with their state')


def setup_parser(parser):
    '''The options of ``hpc-acceptance nodes``.'''
    parser.add_argument('--state', default='idle',
                        help="node state, as ReFrame's --distribute takes "
                             "it (default: %(default)s)")
    parser.add_argument('--json', help='also write the node map here')
    node_map.add_reframe_options(parser)
    # the run's other reframe arguments: accepted, and ignored
    arguments.pass_on(parser)


def command(args):
    '''``hpc-acceptance nodes``: the node map shown (and kept with
    ``--json``); 1 where a fleet run would run nothing.'''
    try:
        given = command_settings.read()
    except command_settings.BadSetting as err:
        raise UsageError(str(err)) from None

    listed = node_map.listing(args.state, args.config_file or [str(CONFIG)],
                              args.system or given.reframe_system,
                              args.job_option)
    if listed.nodes is None:
        print(listed.problem, file=sys.stderr)
        return 1

    print('\n'.join(listed.lines))
    if args.json:
        node_map.write_node_map(args.json, listed.nodes)

    if listed.problem:
        print(listed.problem, file=sys.stderr)
        return 1

    return 0
