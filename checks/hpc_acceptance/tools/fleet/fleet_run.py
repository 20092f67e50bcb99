'''A fleet run read back for the comparison of its nodes: the latest one
stored, its reports and node map, the comparison made of it, and the
rerun of its suspect nodes.
'''

import datetime
import os
from typing import NamedTuple, Optional

from hpc_acceptance.tools.fleet import comparison, confirm, history
from hpc_acceptance.tools.fleet.model import MIN_NODES
from hpc_acceptance.tools.fleet.node_map import read_node_map
from hpc_acceptance.tools.launch import report_file
from hpc_acceptance.tools.results.runs import (ResultsError, Unreadable,
                                               report_run, session_rows)


class NotAFleetRun(ResultsError):
    '''The run did not run checks on several nodes of a partition.'''


class FleetRun(NamedTuple):
    '''A fleet run compared with itself (:func:`compare_run`).'''
    testcases: list
    #: a :class:`.model.PartitionFleet` per partition
    fleets: list
    #: what the comparison could not use (:func:`.history.compare`), or
    #: ``None``
    note: Optional[str]
    #: the run's node map (:mod:`.nodes`), ``{}`` if none was kept
    nodes: dict

    @property
    def day(self):
        '''The day the run's last test case ended, as a drain reason says
        it.'''
        times = [c['job_completion_time_unix'] for c in self.testcases
                 if c.get('job_completion_time_unix')] or [0]
        try:
            return datetime.datetime.fromtimestamp(
                max(times), datetime.timezone.utc).strftime('%Y-%m-%d')
        except (OverflowError, OSError, ValueError):
            return 'on an unknown day'

    @property
    def compared_nothing(self):
        '''Whether no figure was compared across nodes and no node
        named.'''
        return (not any(p.spreads for p in self.fleets) and
                not any(p.suspects for p in self.fleets))

    @property
    def found(self):
        '''Whether a node is a suspect or a partition has a finding.'''
        return any(p.suspects or p.findings() for p in self.fleets)


def latest_fleet_session(db_path):
    '''UUID of the latest fleet run stored in the results database
    ``db_path``.'''
    sessions = session_rows(f'{history.LOOKBACK}?{history.FLEET_RUNS}',
                            db_path)
    if not sessions:
        raise ResultsError(f'no fleet run stored in '
                           f'{history.LOOKBACK} (ci/acceptance.sh '
                           f'--fleet, or reframe --mode fleet)')

    return sessions[-1]['UUID']


def read_run(run_reports=None, session=None, *, db_path):
    '''``(test cases, session info)`` of the run of ``run_reports`` (its
    reports, the confirmation rerun's after it), else of the ``session``
    stored in the results database ``db_path`` (default: the latest fleet
    run).'''
    if run_reports:
        return report_run(*run_reports)

    session = session or latest_fleet_session(db_path)
    testcases = history.stored_run(session, db_path=db_path)
    if not testcases:
        raise ResultsError(f'no stored session {session!r}')

    return testcases, {'uuid': session, 'fleet': 'yes'}


def compare_run(run_reports=None, session=None, nodes=None,
                min_nodes=MIN_NODES, floors=None, *, db_path):
    '''The :class:`FleetRun` of the run :func:`read_run` reads: its
    comparison (:func:`.history.compare`, with ``min_nodes`` and
    ``floors``, against the earlier fleet runs in the results database
    ``db_path``) and its node map (``nodes``, default: the one kept beside
    its report page).

    :raises NotAFleetRun: if the run is no fleet run.
    :raises Unreadable: if a report or the node map cannot be read.
    :raises ResultsError: if the run cannot be read.
    :raises FleetError: if the run cannot be compared.
    '''
    testcases, session_info = read_run(run_reports, session,
                                       db_path=db_path)
    if not comparison.is_fleet_run(testcases):
        raise NotAFleetRun(f'session {session_info.get("uuid")} did not '
                           f'run checks on several nodes of a partition: '
                           f'not a fleet run')

    fleets, note = history.compare(
        testcases, session_info.get('uuid'),
        session_info.get('time_start'), min_nodes, floors, db_path=db_path)
    nodes = nodes or kept_node_map(session_info.get('uuid'),
                                   run_reports[0] if run_reports else None)
    return FleetRun(testcases, fleets, note,
                    read_node_map(nodes) if nodes else {})


def kept_node_map(session, run_report=None):
    '''The node map kept beside the report page of ``session`` (the run
    of ``run_report``), ``None`` for a run that names no session.

    :raises Unreadable: if that place is not the page's own
        (:func:`..launch.report_file.page_dir`).
    '''
    if not session:
        return None

    try:
        return os.path.join(report_file.page_dir(session, run_report),
                            report_file.NODES_NAME)
    except ValueError as err:
        raise Unreadable(f'the node list of session {session}: '
                         f'{err}') from None


class Rerun(NamedTuple):
    '''What a fleet run's confirmation rerun runs (:mod:`.confirm`).'''
    #: display names of the check variants, without ReFrame's ``%.``
    #: parameters
    variants: list
    #: the suspects, to run them on
    nodes: list
    #: the partitions' other nodes
    others: set
    #: the fleet run's UUID
    session: str


def rerun_of(report, nodes, db_path):
    '''The :class:`Rerun` of the fleet run of ``report`` (``nodes`` its
    node map, :mod:`.nodes`; compared with the earlier fleet runs in the
    results database ``db_path``); ``None`` when no node needs it, or the
    run was no fleet run.

    :raises ResultsError: if the report or the node map cannot be read.
    :raises FleetError: if the run cannot be compared.
    '''
    testcases, info = report_run(report)
    if not comparison.is_fleet_run(testcases):
        return None

    fleets, _ = history.compare(testcases, info.get('uuid'),
                                info.get('time_start'), db_path=db_path)
    variants, rerun_nodes = confirm.rerun_selection(fleets, testcases)
    if not variants:
        return None

    others = {n for p in fleets for n in p.nodes} | {
        n['node'] if isinstance(n, dict) else n
        for about in read_node_map(nodes).values()
        for n in about.get('covered', []) + about.get('left_out', [])}
    return Rerun(variants, rerun_nodes, others, info.get('uuid'))


def rerun_args(report, nodes, state, run_args, db_path):
    '''The ReFrame arguments that run the suspects' checks of the fleet run
    of ``report`` once more on their nodes through ReFrame's
    ``--distribute`` (:func:`rerun_of`): ``nodes`` its node map
    (:mod:`.nodes`), ``state`` its ``--distribute`` state, ``run_args`` its
    own ReFrame arguments, ``db_path`` the results database. ``[]`` when
    no node needs it, or the run was no fleet run.

    :raises ResultsError: if the report or the node map cannot be read.
    :raises FleetError: if the run cannot be compared.
    '''
    rerun = rerun_of(report, nodes, db_path)
    if rerun is None:
        return []

    return confirm.reframe_args(rerun.variants, rerun.nodes, rerun.others,
                                rerun.session, state, run_args)
