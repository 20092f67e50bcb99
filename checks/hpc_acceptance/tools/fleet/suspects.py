'''The nodes of a fleet run that are out of line with their siblings.

    hpc-acceptance suspects [--session UUID | --run-report REPORT.json ...]
        [--format text|json|slurm] [--drain [--max-drain-share F]]
        [--nodes NODES.json] [--floor FAMILY=F ...] [--min-nodes N]
    hpc-acceptance suspects --resume [-- REFRAME ARGS...]

Compares every node of each partition with the run's fleet
(:mod:`.compare`): by default the latest stored fleet run (a session of
``--mode fleet``, as ``ci/acceptance.sh --fleet`` runs it) with its
confirmation rerun (:mod:`.confirm`), read as its verdict read it
(:func:`.history.of_run`). ``text`` lists each suspect with what
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

Exit status: 0 nothing found, 1 suspects or a partition finding (or a
drain that failed), 2 no fleet run to compare, nothing could be compared,
or the results cannot be read.
'''

import argparse
import datetime
import json
import os
import sys

from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.fleet.model import FleetError, MIN_NODES
from hpc_acceptance.tools.fleet.wording import node_list, number
from hpc_acceptance.tools.fleet import confirm as fleet_confirm
from hpc_acceptance.tools.fleet import drain as slurm_drain
from hpc_acceptance.tools.fleet import fingerprint as node_fingerprint
from hpc_acceptance.tools.fleet import history as fleet_history
from hpc_acceptance.tools.fleet import nodes as fleet_nodes
from hpc_acceptance.tools.fleet import resume as fleet_resume
from hpc_acceptance.tools.launch import report_file
from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results.runs import (ResultsError, Unreadable,
                                               report_session,
                                               report_testcases,
                                               stored_sessions)

#: One line for ``hpc-acceptance --help``.
description = ('the nodes of a fleet run out of line with their siblings; '
               'drain them (--drain), resume them (--resume)')

#: Exit status of a run report, node list or results database that cannot
#: be read, as the verdict's.
UNREADABLE = 3


def text_lines(fleets, nodes=None):
    '''The suspects of each partition, its findings, and what was not
    compared.'''
    lines = []
    for partition in fleets:
        count = len(partition.suspects)
        if partition.not_compared:
            lines.append(f'{partition.name}: not compared across nodes: '
                         f'{partition.not_compared}')

        judged = partition.judged_groups
        if len(judged) > 1:
            lines.append(f'{partition.name}: {len(judged)} groups of nodes '
                         f'of other hardware or software, each judged on '
                         f'its own:')
            lines += [f'  {len(g.nodes)} node(s) ({node_list(g.nodes)})'
                      f': {node_fingerprint.describe(g.fingerprint)}'
                      for g in judged]

        lines += partition.findings()
        lines.append(f'{partition.name}: {count} suspect node(s) of '
                     f'{len(partition.nodes)}'
                     f'{":" if count else ""}')
        lines += [f'  {s.describe()}' for s in partition.suspects]
        lines += [f'  passed only when retried: {node}: {case}'
                  for node, case in partition.passed_on_retry]
        lines += [f'  within the fleet on its rerun: {node}: {label} '
                  f'{number(first)} on the first run, '
                  f'{number(then)} on the rerun'
                  for node, label, first, then in partition.recovered]
        lines += [f'  ran with other inputs: {node}: {case} ({what})'
                  for node, case, what in partition.other_inputs]

    for partition, about in (nodes or {}).items():
        lines += [f'{partition}: left out: {fleet_nodes.left_out_line(n)}'
                  for n in about.get('left_out', [])]

    return lines


def as_json(fleets, nodes=None):
    return {
        'partitions': [{
            'partition': p.name, 'nodes': len(p.nodes),
            'not_compared': p.not_compared,
            'groups': [{'nodes': g.nodes,
                        'fingerprint': node_fingerprint.describe(
                            g.fingerprint)} for g in p.groups],
            'findings': p.findings(),
            'suspects': [{
                'node': s.node, 'again': s.again, 'differs': s.differs,
                'failures': [{'check': c, 'reason': r}
                             for c, r in s.failures],
                'no_measurement': [{'figure': f, 'recorded': w}
                                   for f, w in s.unmeasured],
                'figures': [{'figure': o.figure.label,
                             'unit': o.figure.unit, 'value': o.value,
                             'fleet_median': o.median, 'band': o.band,
                             'change': o.change} for o in s.outliers],
            } for s in p.suspects],
            'passed_on_retry': [{'node': n, 'check': c}
                                for n, c in p.passed_on_retry],
            'recovered_on_rerun': [{'node': n, 'figure': f, 'first': a,
                                    'rerun': b}
                                   for n, f, a, b in p.recovered],
            'other_inputs': [{'node': n, 'check': c, 'differs': w}
                             for n, c, w in p.other_inputs],
            'left_out': (nodes or {}).get(p.name, {}).get('left_out', []),
        } for p in fleets]
    }


def drain_reason(suspect, when):
    '''The Slurm drain reason: the tool's prefix, the date and what is
    worst.'''
    if suspect.differs:
        worst = f'differs: {suspect.differs[0]}'
    elif suspect.failures:
        worst = f'failed {suspect.failures[0][0]}'
    elif suspect.unmeasured:
        label, why = suspect.unmeasured[0]
        worst = f'no measurement: {label} ({why})'
    else:
        o = suspect.outliers[0]
        worst = f'{o.figure.label} {100 * o.change:+.0f}% vs fleet median'

    more = (len(suspect.differs) + len(suspect.failures) +
            len(suspect.unmeasured) + len(suspect.outliers) - 1)
    text = f'{slurm_drain.PREFIX} {when} {worst}' + (f' (+{more} more)'
                                                     if more else '')
    return text.replace('"', "'")


def drain_commands(fleets, when):
    '''``scontrol update`` argument lists, one per suspect.'''
    return [['scontrol', 'update', f'NodeName={s.node}', 'State=DRAIN',
             f'Reason={drain_reason(s, when)}']
            for partition in fleets for s in partition.suspects]


def shell_line(command):
    '''A drain command as a sysadmin would type it.'''
    *words, reason = command
    return ' '.join(words) + ' Reason="' + reason[len('Reason='):] + '"'


def partition_nodes(fleets, nodes, states=None):
    '''``{partition: the nodes it has}``: those that ran, those the node
    list names (covered and left out), and every node of the Slurm
    partitions all of those that ran belong to (``states``: Slurm's, as
    :func:`.drain.node_states` gives them): a node drained on an earlier
    night is in none of tonight's test cases.'''
    states = states or {}
    found = {}
    for partition in fleets:
        members = set(partition.nodes)
        about = (nodes or {}).get(partition.name, {})
        members |= {n['node'] if isinstance(n, dict) else n
                    for n in about.get('covered', []) +
                    about.get('left_out', [])}
        slurm = [states[n].partitions for n in partition.nodes
                 if n in states and states[n].partitions]
        common = frozenset.intersection(*slurm) if slurm else frozenset()
        if common:
            members |= {n for n, state in states.items()
                        if common <= state.partitions}
        found[partition.name] = members

    return found


def drain_plan(fleets, when, nodes, max_share, states):
    ''':func:`.drain.plan` of the suspects of ``fleets``, the worst
    first.'''
    ranked = sorted(((p.name, s) for p in fleets for s in p.suspects),
                    key=lambda item: (-item[1].loss, item[1].node))
    return slurm_drain.plan(
        [(partition, s.node, drain_reason(s, when))
         for partition, s in ranked],
        states, partition_nodes(fleets, nodes, states), max_share)


def left_out_lines(left, prefix=''):
    '''Lines saying how many suspects a plan leaves out, and why each.'''
    if not left:
        return []

    return ([f'{prefix}{len(left)} suspect(s) left out, not drained:'] +
            [f'{prefix}  {node}: {why}' for node, why in left])


def drain(fleets, when, nodes, max_share):
    '''Drain the suspects as :func:`.drain.plan` allows: ``(lines
    saying what happened, all drains succeeded)``.'''
    try:
        states = slurm_drain.node_states()
    except slurm_drain.SlurmError as err:
        return [f'suspects: {err}: no node was drained'], False

    plan = drain_plan(fleets, when, nodes, max_share, states)
    lines, ok = [], True
    for node, reason in plan.drain:
        try:
            slurm_drain.drain(node, reason)
            lines.append(f'drained {node}: {reason}')
        except slurm_drain.SlurmError as err:
            ok = False
            lines.append(f'could not drain {node}: {err}')

    lines += [f'not drained {node}: {why}' for node, why in plan.left_alone]
    return lines, ok


def slurm_lines(fleets, when, nodes, max_share):
    '''``--format slurm``: the ``scontrol`` line of each suspect that
    ``--drain`` would drain now (the cap and the nodes' states as Slurm
    gives them), then, as shell comments, how many suspects it leaves out
    and why each: ``(lines, note)``, ``note`` saying why Slurm could not
    be asked (the cap then counts these lines only), else ``None``.'''
    try:
        states, note = slurm_drain.node_states(), None
    except slurm_drain.SlurmError as err:
        states = None
        note = (f'suspects: {err}: the drain cap counts these lines only, '
                f'not the nodes drained before')

    plan = drain_plan(fleets, when, nodes, max_share, states)
    return ([shell_line(['scontrol', 'update', f'NodeName={node}',
                         'State=DRAIN', f'Reason={reason}'])
             for node, reason in plan.drain] +
            left_out_lines(plan.left_alone, prefix='# ')), note


def latest_fleet_session():
    '''UUID of the latest stored fleet run.'''
    sessions = stored_sessions(f'{fleet_history.LOOKBACK}?'
                               f'{fleet_history.FLEET_RUNS}')
    if not sessions:
        raise ResultsError(f'no fleet run stored in '
                           f'{fleet_history.LOOKBACK} (ci/acceptance.sh '
                           f'--fleet, or reframe --mode fleet)')

    return sessions[-1]['UUID']


def _day(testcases):
    '''The day the run's last test case ended, as a drain reason says.'''
    times = [c['job_completion_time_unix'] for c in testcases
             if c.get('job_completion_time_unix')] or [0]
    try:
        return datetime.datetime.fromtimestamp(
            max(times), datetime.timezone.utc).strftime('%Y-%m-%d')
    except (OverflowError, OSError, ValueError):
        return 'on an unknown day'


def read_run(args):
    '''``(test cases, session info)`` of the run the options name.'''
    if args.run_report:
        return (report_testcases(*args.run_report),
                report_session(args.run_report[0]))

    session = args.session or latest_fleet_session()
    testcases = fleet_history.stored_run(session)
    if not testcases:
        raise ResultsError(f'no stored session {session!r}')

    return testcases, {'uuid': session, 'fleet': 'yes'}


def rerun_args(report, nodes, state, run_args):
    '''The ReFrame arguments that run the suspects' checks of the fleet run
    of ``report`` once more on their nodes (:mod:`.confirm`): ``nodes`` its
    node map (:mod:`.nodes`), ``state`` its ``--distribute`` state,
    ``run_args`` its own ReFrame arguments. ``[]`` when no node needs it, or
    the run was no fleet run.

    :raises ResultsError: if the report or the node map cannot be read.
    :raises FleetError: if the run cannot be compared.
    '''
    testcases = report_testcases(report)
    if not comparison.is_fleet_run(testcases):
        return []

    info = report_session(report)
    fleets, _ = fleet_history.compare(testcases, info.get('uuid'),
                                      info.get('time_start'))
    variants, rerun_nodes = fleet_confirm.rerun_selection(fleets, testcases)
    if not variants:
        return []

    others = {n for p in fleets for n in p.nodes} | {
        n['node'] if isinstance(n, dict) else n
        for about in fleet_nodes.read(nodes).values()
        for n in about.get('covered', []) + about.get('left_out', [])}
    return fleet_confirm.reframe_args(variants, rerun_nodes, others,
                                      info.get('uuid'), state, run_args)


def _parser():
    parser = argparse.ArgumentParser(
        prog='hpc-acceptance suspects',
        description=__doc__.split('\n\n')[0],
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument('--session', help='UUID of a stored fleet run '
                                          '(default: the latest)')
    source.add_argument('--run-report', action='append',
                        help="a fleet run's JSON report (again for its "
                             "confirmation rerun's, read after it)")
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
                        default=slurm_drain.MAX_SHARE, metavar='F',
                        help="most of a partition's nodes drained at once, "
                             'as a fraction (at least one node; default: '
                             '%(default)s)')
    parser.add_argument('--nodes', help='the node list of the run '
                                        '(default: nodes.json beside its '
                                        'report page)')
    parser.add_argument('--floor', default=None, metavar='FAMILY=F ...',
                        help='minimum bands instead of those the run '
                             'recorded (e.g. "Memory=0.3")')
    parser.add_argument('--min-nodes', type=int, default=MIN_NODES,
                        help='nodes a figure needs to be compared '
                             '(default: %(default)s)')
    parser.add_argument('reframe_args', nargs='*',
                        help="for --resume: the fleet run's reframe "
                             'arguments, after --')
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        floors = None if args.floor is None else \
            noise.parse_floors(args.floor)
    except ValueError as err:
        parser.error(f'--floor: {err}')

    if not 0 < args.max_drain_share <= 1:
        parser.error(f'--max-drain-share {args.max_drain_share}: a '
                     f'fraction in (0, 1]')

    if args.resume:
        return fleet_resume.main(args.reframe_args)

    try:
        testcases, session_info = read_run(args)
        if not comparison.is_fleet_run(testcases):
            print(f'suspects: session {session_info.get("uuid")} did not '
                  f'run checks on several nodes of a partition: not a '
                  f'fleet run', file=sys.stderr)
            return 2

        fleets, note = fleet_history.compare(
            testcases, session_info.get('uuid'),
            session_info.get('time_start'), args.min_nodes, floors)
        page_dir = report_file.page_dir(
            session_info.get('uuid') or '',
            args.run_report[0] if args.run_report else None)
        nodes = fleet_nodes.read(args.nodes or os.path.join(
            page_dir, report_file.NODES_NAME))
    except Unreadable as err:
        print(f'suspects: {err}', file=sys.stderr)
        return UNREADABLE
    except (ResultsError, FleetError) as err:
        print(f'suspects: {err}', file=sys.stderr)
        return 2

    if note:
        print(f'suspects: {note}', file=sys.stderr)

    day = _day(testcases)
    if args.format == 'json':
        print(json.dumps(as_json(fleets, nodes), indent=1))
    elif args.format == 'slurm':
        lines, slurm_note = slurm_lines(fleets, day, nodes,
                                        args.max_drain_share)
        if slurm_note:
            print(slurm_note, file=sys.stderr)
        print('\n'.join(lines))
    else:
        print('\n'.join(text_lines(fleets, nodes)))

    status = 0
    if args.drain:
        lines, ok = drain(fleets, day, nodes, args.max_drain_share)
        print('\n'.join(lines or ['suspects: no suspect: nothing drained']),
              file=sys.stderr)
        status = 0 if ok else 1

    if not any(p.spreads for p in fleets) and \
            not any(p.suspects for p in fleets):
        print('suspects: nothing could be compared across the nodes (see '
              'above)', file=sys.stderr)
        return 2

    if any(p.suspects or p.findings() for p in fleets):
        return 1

    return status
