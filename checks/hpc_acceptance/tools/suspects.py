'''The nodes of a fleet run that are slower than their siblings.

    hpc-acceptance suspects [--session UUID | --run-report REPORT.json]
        [--format text|json|slurm] [--drain] [--nodes NODES.json]
        [--floor FAMILY=F ...] [--min-nodes N]

Compares every node of each partition with the run's fleet
(:mod:`.fleet`): by default the latest stored fleet run (a session of
``--mode fleet``, as ``ci/acceptance.sh --all-nodes`` runs it). ``text``
lists each suspect with its worst figures (value, fleet median, change),
whether it was a suspect in the previous fleet run too, the nodes the run
left out (drained or down when it started) and the nodes that ran with
other inputs. ``json`` is the same for scripts. ``slurm`` prints one
``scontrol update NodeName=... State=DRAIN Reason="..."`` line per suspect;
``--drain`` runs them (never by default) and says what it did.

Exit status: 0 no suspect, 1 suspects, 2 no fleet run to compare or the
results cannot be read.
'''

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys

from hpc_acceptance.tools import fleet, fleet_history, fleet_nodes, noise
from hpc_acceptance.tools import report as report_page_command
from hpc_acceptance.tools.results import (ResultsError, report_testcases,
                                          stored_sessions, stored_testcases)


def text_lines(fleets, nodes=None):
    '''The suspects of each partition, and what was not compared.'''
    lines = []
    for partition in fleets:
        count = len(partition.suspects)
        if partition.not_compared:
            lines.append(f'{partition.name}: not compared across nodes: '
                         f'{partition.not_compared}')

        lines.append(f'{partition.name}: {count} suspect node(s) of '
                     f'{len(partition.nodes)}'
                     f'{":" if count else ""}')
        lines += [f'  {s.describe()}' for s in partition.suspects]
        lines += [f'  ran with other inputs: {node}: {case} ({what})'
                  for node, case, what in partition.other_inputs]

    for partition, about in (nodes or {}).items():
        lines += [f'{partition}: left out: {n["node"]} '
                  f'({n["state"].lower() or "state unknown"}'
                  f'{": " + n["reason"] if n["reason"] else ""})'
                  for n in about.get('left_out', [])]

    return lines


def as_json(fleets, nodes=None):
    return {
        'partitions': [{
            'partition': p.name, 'nodes': len(p.nodes),
            'not_compared': p.not_compared,
            'suspects': [{
                'node': s.node, 'again': s.again,
                'failures': [{'check': c, 'reason': r}
                             for c, r in s.failures],
                'figures': [{'figure': o.figure.label,
                             'unit': o.figure.unit, 'value': o.value,
                             'fleet_median': o.median, 'band': o.band,
                             'change': o.change} for o in s.outliers],
            } for s in p.suspects],
            'other_inputs': [{'node': n, 'check': c, 'differs': w}
                             for n, c, w in p.other_inputs],
            'left_out': (nodes or {}).get(p.name, {}).get('left_out', []),
        } for p in fleets]
    }


def drain_reason(suspect, when):
    '''The Slurm drain reason: the tool, the date and what is worst.'''
    if suspect.failures:
        worst = f'failed {suspect.failures[0][0]}'
    else:
        o = suspect.outliers[0]
        worst = f'{o.figure.label} {100 * o.change:+.0f}% vs fleet median'

    more = len(suspect.failures) + len(suspect.outliers) - 1
    text = f'hpc-acceptance {when}: {worst}' + (f' (+{more} more)'
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


def drain(commands):
    '''Run the drain commands; ``(lines saying what happened, all
    succeeded)``.'''
    if commands and not shutil.which('scontrol'):
        return ['suspects: scontrol is not on PATH: no node was drained'], \
            False

    lines, ok = [], True
    for command in commands:
        done = subprocess.run(command, capture_output=True, text=True)
        node = command[2].split('=', 1)[1]
        if done.returncode == 0:
            lines.append(f'drained {node}: {command[-1][len("Reason="):]}')
        else:
            ok = False
            lines.append(f'could not drain {node}: '
                         f'{done.stderr.strip() or done.stdout.strip()}')

    return lines, ok


def latest_fleet_session():
    '''UUID of the latest stored fleet run.'''
    sessions = stored_sessions(f'{fleet_history.LOOKBACK}?fleet=="yes"')
    if not sessions:
        raise ResultsError(f'no fleet run stored in '
                           f'{fleet_history.LOOKBACK} (ci/acceptance.sh '
                           f'--all-nodes, or reframe --mode fleet)')

    return sessions[-1]['UUID']


def _session_facts(testcases, fallback):
    '''``(UUID, when its first test case ended, when its last did)``; the
    first as the results database stamps sessions, the last in seconds.'''
    uuid = next((c['session_uuid'] for c in testcases
                 if c.get('session_uuid')), fallback)
    times = [c['job_completion_time_unix'] for c in testcases
             if c.get('job_completion_time_unix')] or [0]
    first = datetime.datetime.fromtimestamp(min(times),
                                            datetime.timezone.utc)
    return uuid, first.strftime('%Y%m%dT%H%M%S%z'), max(times)


def _parser():
    parser = argparse.ArgumentParser(
        prog='hpc-acceptance suspects',
        description=__doc__.split('\n\n')[0],
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument('--session', help='UUID of a stored fleet run '
                                          '(default: the latest)')
    source.add_argument('--run-report', help="a fleet run's JSON report")
    parser.add_argument('--format', choices=('text', 'json', 'slurm'),
                        default='text')
    parser.add_argument('--drain', action='store_true',
                        help='drain the suspects in Slurm (scontrol update '
                             '... State=DRAIN) and say what was done')
    parser.add_argument('--nodes', help='the node list of the run '
                                        '(default: nodes.json beside its '
                                        'report page)')
    parser.add_argument('--floor', default=None, metavar='FAMILY=F ...',
                        help='minimum bands instead of those the run '
                             'recorded (e.g. "Memory=0.3")')
    parser.add_argument('--min-nodes', type=int, default=fleet.MIN_NODES,
                        help='nodes a figure needs to be compared '
                             '(default: %(default)s)')
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        floors = None if args.floor is None else \
            noise.parse_floors(args.floor)
    except ValueError as err:
        parser.error(f'--floor: {err}')

    try:
        if args.run_report:
            testcases = report_testcases(args.run_report)
        else:
            session = args.session or latest_fleet_session()
            testcases = stored_testcases(session)
            if not testcases:
                raise ResultsError(f'no stored session {session!r}')

        session, started, when = _session_facts(testcases, args.session)
        fleets = fleet.compare(testcases, args.min_nodes, floors)
        note = fleet_history.mark_repeats(fleets, session, started)
        page_dir = report_page_command.page_dir(session, args.run_report)
        nodes = fleet_nodes.read(args.nodes or os.path.join(
            page_dir, report_page_command.NODES_NAME))
    except (ResultsError, fleet.FleetError) as err:
        print(f'suspects: {err}', file=sys.stderr)
        return 2

    if not fleet.is_fleet_run(testcases):
        print(f'suspects: session {session} did not run checks on several '
              f'nodes of a partition: not a fleet run', file=sys.stderr)
        return 2

    if note:
        print(f'suspects: {note}', file=sys.stderr)

    day = datetime.datetime.fromtimestamp(
        when, datetime.timezone.utc).strftime('%Y-%m-%d')
    commands = drain_commands(fleets, day)
    if args.format == 'json':
        print(json.dumps(as_json(fleets, nodes), indent=1))
    elif args.format == 'slurm':
        print('\n'.join(shell_line(c) for c in commands))
    else:
        print('\n'.join(text_lines(fleets, nodes)))

    if args.drain:
        lines, ok = drain(commands)
        print('\n'.join(lines or ['suspects: no suspect: nothing drained']),
              file=sys.stderr)
        if not ok:
            return 2

    return 1 if commands else 0
