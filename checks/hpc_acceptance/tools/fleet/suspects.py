'''The nodes of a fleet run that are out of line with their siblings.

    hpc-acceptance suspects [--session UUID | --run-report REPORT.json ...]
        [--format text|json|slurm] [--drain [--max-drain-share F]]
        [--nodes NODES.json] [--floor FAMILY=F ...] [--min-nodes N]
    hpc-acceptance suspects --resume [-- REFRAME ARGS...]

Compares every node of each partition with the run's fleet
(:mod:`.comparison`): by default the latest stored fleet run (a session of
``--mode fleet``, as ``ci/acceptance.sh --fleet`` runs it) with its
confirmation rerun (:mod:`.confirm`), read as its verdict read it
(:func:`.history.compare_nodes`). ``text`` lists each suspect with what
makes it one (another fingerprint, failures, its worst figures with value,
fleet median and change), whether it was a suspect in the previous fleet
run too, what fails a whole partition (a fleet that lost as a whole, a
figure that is not uniform), the test cases that passed only when retried
or rerun, the nodes the run left out (drained or down when it started) and
the nodes that ran with other inputs. ``json`` is the same for scripts.
``slurm`` prints one ``scontrol update NodeName=... State=DRAIN
Reason="hpc-acceptance: ..."`` line per suspect.

``--drain`` drains the suspects (never by default) as
:mod:`.drain` allows: its own reason prefix, no node that is already
out of service or has a reason someone else set, at most
``--max-drain-share`` of a partition at once; it says what it did and what
it left alone. ``--resume`` returns the nodes this tool drained to
service when they pass again (:mod:`.resume`).

Shown by :mod:`.suspect_report`, drained by :mod:`.suspect_drains`.

Exit status: 0 nothing found, 1 suspects or a partition finding (or a
drain that failed), 2 no fleet run to compare, nothing could be compared,
or the results cannot be read.
'''

import json
import sys

from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.fleet import drain
from hpc_acceptance.tools.fleet import fleet_run
from hpc_acceptance.tools.fleet import resume
from hpc_acceptance.tools.fleet.model import MIN_NODES, FleetError
from hpc_acceptance.tools.fleet.suspect_drains import (drain_suspects,
                                                       slurm_lines)
from hpc_acceptance.tools.fleet.suspect_report import as_json, text_lines
from hpc_acceptance.tools.launch import lock, reframe_call
from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results.runs import ResultsError, Unreadable


#: One line for ``hpc-acceptance --help``.
description = ('the nodes of a fleet run out of line with their siblings; '
               'drain them (--drain), resume them (--resume)')

#: Exit status of a run report, node list or results database that cannot
#: be read, as the verdict's.
UNREADABLE = 3


def _checked(args):
    '''``args`` with ``--floor`` read (:func:`..references.noise.
    parse_floors`) and ``--max-drain-share`` a fraction in (0, 1].

    :raises UsageError: naming the option and why.
    '''
    try:
        args.floor = None if args.floor is None else \
            noise.parse_floors(args.floor)
    except ValueError as err:
        raise UsageError(f'--floor: {err}') from None

    if not 0 < args.max_drain_share <= 1:
        raise UsageError(f'--max-drain-share {args.max_drain_share}: a '
                         f'fraction in (0, 1]')

    return args


def setup_parser(parser):
    '''The options of ``hpc-acceptance suspects``.'''
    source = parser.add_mutually_exclusive_group()
    arguments.add_session(source, 'a stored fleet run (default: the latest)')
    arguments.add_run_report(source, "a fleet run's JSON report (again for "
                                     "its confirmation rerun's, read after "
                                     "it)")
    parser.add_argument('--format', choices=('text', 'json', 'slurm'),
                        default='text')
    action = parser.add_mutually_exclusive_group()
    action.add_argument('--drain', action='store_true',
                        help='drain the suspects in Slurm (scontrol update '
                             '... State=DRAIN) and say what was done')
    action.add_argument('--resume', action='store_true',
                        help='run the checks on the nodes this tool '
                             'drained and return those that pass to '
                             'service')
    parser.add_argument('--max-drain-share', type=float,
                        default=drain.MAX_SHARE, metavar='F',
                        help="most of a partition's nodes drained at once, "
                             'as a fraction (at least one node; default: '
                             '%(default)s)')
    arguments.add_nodes(parser, 'nodes.json beside its report page')
    arguments.add_floor_bands(parser, None,
                              help='minimum bands instead of those the run '
                                   'recorded (e.g. "Memory=0.3")')
    parser.add_argument('--min-nodes', type=int, default=MIN_NODES,
                        help='nodes a figure needs to be compared '
                             '(default: %(default)s)')
    parser.add_argument('reframe_args', nargs='*',
                        help="for --resume: the fleet run's reframe "
                             'arguments, after --')


def _resume(reframe_args, given):
    '''``hpc-acceptance suspects --resume``: :func:`.resume.resume` of
    the nodes this tool drained that can be tested, with the settings
    ``given``; its exit status.'''
    try:
        states = drain.node_states()
        nodes = resume.drained_by_us(states)
        for node, why in resume.left_drained(states):
            print(f'suspects --resume: {node} left drained, not tested: '
                  f'{why} (run --resume again once Slurm reaches its '
                  f'slurmd)', file=sys.stderr)
        if not nodes:
            print('suspects --resume: no node drained by hpc-acceptance '
                  'that can be tested: nothing to resume', file=sys.stderr)
            return 2

        lines, status = resume.resume(nodes, reframe_args, given)
    except reframe_call.Busy as err:
        print(f'suspects --resume: refused: {err} is running in this '
              f'checkout', file=sys.stderr)
        return lock.BUSY
    except (drain.SlurmError, ResultsError) as err:
        print(f'suspects --resume: {err}', file=sys.stderr)
        return 2
    except reframe_call.Interrupted:
        print('suspects --resume: INTERRUPTED: the nodes are drained again, '
              'untested', file=sys.stderr)
        return 1

    print('\n'.join(lines))
    return status


def _show(run, args):
    '''Print ``run`` in ``--format``.'''
    if args.format == 'json':
        print(json.dumps(as_json(run.fleets, run.nodes), indent=1))
    elif args.format == 'slurm':
        lines, slurm_note = slurm_lines(run.fleets, run.day, run.nodes,
                                        args.max_drain_share)
        if slurm_note:
            print(slurm_note, file=sys.stderr)
        print('\n'.join(lines))
    else:
        print('\n'.join(text_lines(run.fleets, run.nodes)))


def command(args):
    '''``hpc-acceptance suspects``: the suspects shown (and drained, or
    the drained ones resumed); the exit status.'''
    args = _checked(args)
    try:
        given = command_settings.read()
    except command_settings.BadSetting as err:
        print(f'suspects: {err}', file=sys.stderr)
        return 2

    if args.resume:
        return _resume(args.reframe_args, given)

    try:
        run = fleet_run.compare_run(args.run_report, args.session, args.nodes,
                                    args.min_nodes, args.floor,
                                    db_path=given.db)
    except Unreadable as err:
        print(f'suspects: {err}', file=sys.stderr)
        return UNREADABLE
    except (ResultsError, FleetError) as err:
        print(f'suspects: {err}', file=sys.stderr)
        return 2

    if run.note:
        print(f'suspects: {run.note}', file=sys.stderr)

    _show(run, args)
    status = 0
    if args.drain:
        lines, ok = drain_suspects(run.fleets, run.day, run.nodes,
                                   args.max_drain_share)
        print('\n'.join(lines or ['suspects: no suspect: nothing drained']),
              file=sys.stderr)
        status = 0 if ok else 1

    if run.found:
        # a finding (a check that failed on every node, say) fails the run
        # also where nothing else could be compared
        return 1

    if run.compared_nothing:
        print('suspects: nothing could be compared across the nodes (see '
              'above)', file=sys.stderr)
        return 2

    return status
