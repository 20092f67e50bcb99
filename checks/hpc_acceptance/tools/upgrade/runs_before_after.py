'''The ReFrame runs of post-upgrade: the set run before the upgrade
(stored as the baseline: :func:`record_before`), after it, and the
confirmation rerun of the suspects (:func:`confirm`), in ReFrame's
``post-upgrade`` mode; with ``--fleet`` on every node. Each run ends as an
acceptance run does (:mod:`..pipeline.run_end`: the site's store, the
summary, the report page) and must be in the results database, which the
baseline and the trends read: :func:`..pipeline.acceptance_run.
database_ready`, :func:`show_run` and :func:`not_stored` are where
post-upgrade meets the pipeline's run.
'''

import datetime
import os
import sys
from typing import NamedTuple

from hpc_acceptance.tools.fleet.node_map import node_map_path
from hpc_acceptance.tools.launch import reframe_call, report_file
from hpc_acceptance.tools.pipeline import run_end
from hpc_acceptance.tools.pipeline.acceptance_run import (NoNodes,
                                                          database_ready,
                                                          fleet_runs,
                                                          fleet_state)
from hpc_acceptance.tools.results import skips
from hpc_acceptance.tools.results.runs import (ResultsError, figures_of,
                                               report_session,
                                               report_testcases)
from hpc_acceptance.tools.upgrade import baseline

#: Exit status of a run whose results the results database does not hold,
#: as every run's (:mod:`..pipeline.finish`).
STORAGE_FAILED = run_end.NOT_STORED

#: Ctrl-C or SIGTERM arrived while ReFrame ran.
Interrupted = reframe_call.Interrupted


#: The mode of every ReFrame run of post-upgrade (config/settings.py).
MODE = ['--mode', 'post-upgrade', '-r']


def launch(args, kind):
    '''How post-upgrade runs ReFrame, its runs tagged as ``kind``
    (``before``, ``after``, ``confirm``): what no reference entry covers
    runs unbounded, for the verdict here.'''
    return reframe_call.Launcher(
        'post-upgrade', args.reservation,
        extra=[f'--session-extras={baseline.EXTRA}={kind}'],
        env={'HPC_ACCEPTANCE_REFERENCE_ENTRIES': 'optional',
             **args.settings.run_env()},
        system=args.settings.reframe_system)


def ready_to_store(output_dir, given):
    '''Whether the results database of the settings ``given`` can take the
    run's results (the reports in ``output_dir`` included) and was backed
    up (:func:`..pipeline.acceptance_run.database_ready`); what is wrong
    is said.'''
    return database_ready(output_dir, given.db, given.db_backups)


def log_of(report):
    return reframe_call.log_of(report)


def run_set(args, report, kind):
    '''Run the post-upgrade set as ``kind`` (``before``, ``after``):
    ``[(report, ReFrame's exit status)]`` of its ReFrame runs (two for
    ``--fleet``: the nodes', then the multi-node checks'; none when no
    node is in the state asked for). A fleet run is not rerun: each node
    is compared with its own ``--before`` figures.'''
    how = launch(args, kind)
    if args.fleet is None:
        return [how.reframe(report, how.arguments(MODE, args.reframe_args))]

    state = fleet_state(args.fleet, args.reservation)
    try:
        return fleet_runs(
            report, state, how, args.reframe_args,
            nodes_run=[*MODE, '--exclude-tag=multinode',
                       '--session-extras=fleet=yes'],
            multinode_run=[*MODE, '--tag=multinode'], confirm=False,
            db_path=args.settings.db)
    except NoNodes:
        return []


def read_cases(runs):
    '''The test cases of the runs that wrote a report.'''
    return [case for path, _ in runs if os.path.exists(path)
            for case in report_testcases(path)]


def show_run(runs, args):
    '''The end an acceptance run has (:func:`..pipeline.run_end.show`),
    with the command's settings (``args.settings``, ``args.limits``): the
    site's store, the summary, the binaries' sources, the report page;
    none of it may hide the verdict that follows.'''
    if runs:
        run_end.show(run_end.read(runs, node_map_path(runs[0][0]),
                                  args.limits, args.settings.db),
                     args.settings, 'post-upgrade')


def sessions_of(cases):
    '''The sessions the test cases ran in (left out of the baseline).'''
    return {c['session_uuid'] for c in cases if c.get('session_uuid')}


def first_start(runs):
    '''When the first of the runs' reports started; ``None`` if none
    says (the verdict run's own time picks its baseline).'''
    starts = [datetime.datetime.strptime(started, '%Y%m%dT%H%M%S%z')
              for path, _ in runs if os.path.exists(path)
              for started in [report_session(path).get('time_start')]
              if started]
    return min(starts, default=None)


def console_of(runs):
    '''ReFrame's output of the runs, from the logs beside their reports
    (the reasons of skips of ReFrame's own).'''
    return '\n'.join(filter(None, (skips.read(log_of(path))
                                   for path, _ in runs)))


_NOT_A_BASELINE = ('post-upgrade --before INTERRUPTED: this run is not a '
                   'baseline (run --before again)')


def not_stored(runs, db_path):
    '''The reports of ``runs`` whose session the results database at
    ``db_path`` does not hold, each said as after an acceptance run
    (:func:`..pipeline.run_end.not_stored`): the baseline and the trends
    read the database.'''
    return run_end.not_stored([path for path, _ in runs], db_path)


def read_after(runs, nightly, db_path):
    '''The test cases of the run after the upgrade and its baselines:
    the ``--before`` runs before it, then the ``nightly`` sessions
    (``--baseline``), stored in the results database ``db_path``.

    :raises ResultsError: if no test case ran or a report or the results
        database cannot be read.
    '''
    new_cases = read_cases(runs)
    if not new_cases:
        raise ResultsError(f'no test case ran '
                           f'({", ".join(path for path, _ in runs)})')

    systems = {case['system'] for case in new_cases}
    return new_cases, [baseline.before_runs(exclude=sessions_of(new_cases),
                                            until=first_start(runs),
                                            systems=systems,
                                            db_path=db_path),
                       baseline.nightly_runs(nightly, systems,
                                             db_path=db_path)]


def confirm(args, report, hashes):
    '''Run the checks of ``hashes`` (:func:`.judgement.suspects`) once
    more, beside ``report``: their test cases; none, said, if the rerun
    was interrupted (the suspects count as regressed) or wrote no report
    that can be read.'''
    rerun = report_file.stem(report) + '-confirm.json'
    how = launch(args, 'confirm')
    try:
        how.reframe(rerun, how.arguments(MODE, args.reframe_args) +
                    [arg for h in hashes for arg in ('-n', f'/{h}')])
        return report_testcases(rerun)
    except Interrupted:
        print('post-upgrade: confirmation interrupted: the suspects '
              'count as regressed', file=sys.stderr)
    except ResultsError as err:
        print(f'post-upgrade: no confirmation: {err}', file=sys.stderr)
    return []


class Recorded(NamedTuple):
    '''What ``--before`` did: its exit status, and the line that says it
    (an error unless the status is 0).'''

    status: int
    said: str


def record_before(args, report):
    '''``--before``: run and store the baseline, :class:`Recorded`; its
    status is 0 if the baseline is whole.'''
    try:
        runs = run_set(args, report, 'before')
    except Interrupted:
        return Recorded(1, _NOT_A_BASELINE)

    try:
        cases = read_cases(runs)
    except ResultsError as err:
        return Recorded(1, f'post-upgrade --before NOT RECORDED: {err}')

    if not cases:
        return Recorded(1, 'post-upgrade --before NOT RECORDED: no test '
                           'case ran')

    show_run(runs, args)
    if baseline.interrupted(cases):
        return Recorded(1, _NOT_A_BASELINE)

    if not_stored(runs, args.settings.db):
        return Recorded(STORAGE_FAILED, 'post-upgrade --before NOT '
                                        'RECORDED: the run is not in the '
                                        'results database (see above)')

    try:
        before = baseline.before_runs(db_path=args.settings.db)
    except ResultsError as err:
        return Recorded(1, f'post-upgrade --before: {err}')

    figures = sum(len(figures_of(c)) for c in cases if not c.get('fixture'))
    return Recorded(0, f'post-upgrade --before recorded: {figures} '
                       f'figure(s); the baseline now holds '
                       f'{before.sessions} --before session(s)')
