'''Returning the nodes this tool drained to service once they pass again.

    hpc-acceptance suspects --resume [-- REFRAME ARGS...]

A node that ``hpc-acceptance suspects --drain`` drained (its reason starts
with :data:`.drain.PREFIX`) and that has since been repaired is
tested on its own before it takes users' jobs again:

1. a Slurm maintenance reservation is made on those nodes, so that no
   job of a user lands on them meanwhile, and they are resumed into it;
2. the fleet set (or what the REFRAME ARGS select) runs on them alone
   (ReFrame's ``--distribute`` in the reservation; stored as a session
   with the extra ``fleet=resume``, which is no fleet run);
3. each node's figures are compared with the latest fleet run's medians
   and bands for nodes of its hardware (:mod:`.comparison`): a node that
   failed a check, has a figure worse than the band or had nothing to be
   compared with is drained again, saying why; the others stay in
   service;
4. the reservation is removed.

Nodes drained by someone else, or whose reason an administrator has
changed since, are never touched; nodes that are down or whose slurmd does
not answer Slurm are left drained, and said so.

Exit status: 0 every node back in service, 1 a node still out (drained
again), 2 nothing to resume or nothing could be compared, 4 another run
holds this checkout.
'''

import datetime
import getpass
import os
import time

from hpc_acceptance.tools.fleet import comparison, drain, fingerprint, history
from hpc_acceptance.tools.fleet.model import node_of
from hpc_acceptance.tools.fleet.wording import number
from hpc_acceptance.tools.launch import reframe_call, report_file
from hpc_acceptance.tools.results import units
from hpc_acceptance.tools.results.runs import (FAILED_RESULTS, ResultsError,
                                               figure_key, figures_of,
                                               report_testcases,
                                               session_rows, unmeasured)

#: The reservation the nodes are tested in.
RESERVATION = 'hpc-acceptance-resume'

#: Minutes the reservation lasts at most (it is removed when done).
RESERVATION_MINUTES = 240

#: The session extra of a resume run.
RESUME = 'resume'


#: Slurm's states in which a node drained by this tool cannot be tested:
#: down, failing, or its slurmd not answering Slurm (yet).
UNREACHABLE = frozenset({'DOWN', 'FAIL', 'NOT_RESPONDING'})


def _ours(states):
    return [s for s in states.values()
            if s.ours and s.states & {'DRAIN', 'DRAINED', 'DRAINING'}]


def drained_by_us(states):
    '''The nodes drained with this tool's reason and not down: those it
    may test and return to service.'''
    return sorted(s.node for s in _ours(states)
                  if not s.states & UNREACHABLE)


def left_drained(states):
    '''``[(node, why)]`` of the nodes drained with this tool's reason
    that cannot be tested now.'''
    return sorted((s.node, '+'.join(sorted(s.states & UNREACHABLE)))
                  for s in _ours(states) if s.states & UNREACHABLE)


def latest_fleet(db_path):
    '''The comparison of the latest fleet run stored in the results
    database ``db_path``.

    :raises ResultsError: if there is none or it cannot be read.
    '''
    sessions = session_rows(f'{history.LOOKBACK}?'
                            f'{history.FLEET_RUNS}', db_path)
    if not sessions:
        raise ResultsError('no fleet run stored to compare the nodes with '
                           '(ci/acceptance.sh --fleet)')

    return comparison.compare(history.stored_run(sessions[-1]['UUID'],
                                                 db_path=db_path))


def judge_node(node, cases, fleets):
    '''``None`` if ``node``'s test cases pass and are within the bands of
    the fleet run ``fleets`` for nodes of its hardware, else why not.'''
    failed = [c['display_name'] for c in cases
              if c['result'] in FAILED_RESULTS]
    if failed:
        return f'failed {failed[0]}'

    nothing = [(c['display_name'], variable, why) for c in cases
               for variable, (why, _) in sorted(unmeasured(c).items())]
    if nothing:
        name, variable, why = nothing[0]
        return f'{name}: no measurement of {variable} ({why})'

    hardware = fingerprint.hardware(
        fingerprint.of_nodes({node: cases}).get(node) or
        fingerprint.UNKNOWN)
    spreads = {(s.figure.key, s.figure.variable,
                fingerprint.hardware(s.fingerprint)): s
               for partition in fleets for s in partition.spreads}
    compared = 0
    for case in cases:
        for variable, (value, unit) in figures_of(case).items():
            spread = spreads.get((figure_key(case), variable, hardware))
            if spread is None:
                continue

            # in the unit the fleet was compared in
            value = units.convert(value, unit, spread.figure.unit)
            if value is None:
                return (f'{spread.figure.label}: no measurement '
                        f'({units.other_unit(unit, spread.figure.unit)})')

            compared += 1
            if spread.is_out(value):
                change = 100 * (float(value) - spread.median) / spread.median
                return (f'{spread.figure.label} {number(value)} vs '
                        f'fleet median {number(spread.median)} '
                        f'({change:+.0f}%)')

    return None if compared else ('no figure to compare with the latest '
                                  'fleet run')


def _reservation(nodes):
    # the account running the jobs, from its uid where no variable says
    user = getpass.getuser()
    return ['create', 'reservation', f'ReservationName={RESERVATION}',
            f'Nodes={",".join(nodes)}', 'StartTime=now',
            f'Duration={RESERVATION_MINUTES}', f'Users={user}',
            'Flags=maint,ignore_jobs']


def _test_in_reservation(nodes, reframe_args, asked_report):
    '''Run the set on ``nodes`` in the reservation, its report beside
    ``asked_report`` (the report name the settings ask for, else
    ``None``):
    its test cases. Nodes of a run that was interrupted are drained
    again.'''
    drain.scontrol(*_reservation(nodes))
    try:
        for node in nodes:
            drain.resume(node)

        stamp = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())
        # beside the reports ReFrame would write, as ci/acceptance.sh does
        reports = (os.path.dirname(os.path.abspath(asked_report))
                   if asked_report else str(report_file.REPORTS_DIR))
        report = os.path.join(reports, f'resume-{stamp}.json')
        os.makedirs(os.path.dirname(report), exist_ok=True)
        try:
            reframe_call.run(['--mode', 'fleet', '--distribute=avail',
                              '-J', f'reservation={RESERVATION}',
                              f'--session-extras=fleet={RESUME}', '-r',
                              *reframe_args], report, 'suspects --resume')
        except reframe_call.Interrupted:
            for node in nodes:
                drain.drain(node, f'{datetime.date.today()} resume '
                                  f'interrupted: not tested')
            raise

        return report_testcases(report) if os.path.exists(report) else []
    finally:
        drain.scontrol('delete', f'ReservationName={RESERVATION}')


def resume_nodes(nodes, reframe_args, fleets, asked_report):
    '''Test ``nodes`` (the report beside ``asked_report``, else in the
    reports folder) and keep in service those that pass, draining the
    others again: ``(lines saying what happened, exit status)``.'''
    cases = [c for c in _test_in_reservation(nodes, reframe_args,
                                             asked_report)
             if not c.get('fixture')]
    day = datetime.date.today().isoformat()
    lines, status = [], 0
    for node in nodes:
        why = judge_node(node, [c for c in cases if node_of(c) == node],
                         fleets)
        if why is None:
            lines.append(f'resumed {node}: its checks pass within the '
                         f'latest fleet run\'s bands')
        else:
            status = 1
            drain.drain(node, f'{day} still out after repair: {why}')
            lines.append(f'drained {node} again: {why}')

    return lines, status


def resume(nodes, reframe_args, given):
    '''Test ``nodes`` (drained by this tool; :func:`drained_by_us`) in a
    reservation against the latest fleet run stored in the results
    database, and return to service those that pass, draining the others
    again, with the settings ``given`` (the database, the report name
    asked for, the run lock): ``(lines saying what happened, exit
    status)``.

    :raises ResultsError: if no fleet run can be read.
    :raises reframe_call.Busy: if another run holds this checkout.
    :raises reframe_call.Interrupted: if a signal stopped the run.
    :raises drain.SlurmError: if Slurm refused.
    '''
    fleets = latest_fleet(given.db)
    with reframe_call.run_lock_held(['hpc-acceptance', 'suspects',
                                     '--resume', *reframe_args], given):
        return resume_nodes(nodes, reframe_args, fleets, given.report_file)
