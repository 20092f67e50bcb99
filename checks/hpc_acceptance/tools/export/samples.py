'''The samples a stored session or a run's reports give the store, as the
run sent them: each attempt's figures and outcome, and a fleet run's
suspects.'''

import sys

from hpc_acceptance.core.export import series
from hpc_acceptance.tools.fleet import confirm, history
from hpc_acceptance.tools.fleet.model import FleetError
from hpc_acceptance.tools.results.runs import final_testcases


def suspect_samples(reports, compared=None, *, db_path):
    ''':data:`~hpc_acceptance.core.export.series.SUSPECT` of every node
    of a fleet run that was compared with its siblings (none for another
    run, or a partition of too few nodes): the run read as its verdict
    reads it (:func:`..fleet.history.compare_nodes`), ``reports`` its
    reports or stored sessions in order (the nodes' run, its confirmation
    rerun, the multi-node run); ``compared`` the run's ``(fleets, why there are
    none)`` where the run's end made them already, else made against the
    results database ``db_path``.'''
    info = reports[0]['session_info']
    if info.get('fleet') not in (None, 'yes'):
        # a confirmation rerun or a resume: part of another run
        return []

    if compared is None:
        cases = final_testcases({'runs': [run for report in reports
                                          for run in report.get('runs') or
                                          []]})
        try:
            compared = history.compare_nodes(cases, info, db_path)[0], None
        except FleetError as err:
            compared = None, str(err)

    fleets, error = compared
    if error:
        print(f'export: session {info.get("uuid")}: no suspects sent: '
              f'{error}', file=sys.stderr)
        return []

    samples = []
    for partition in fleets or []:
        if partition.not_compared:
            continue

        suspects = {s.node for s in partition.suspects}
        samples += [series.suspect_line(partition.name, node,
                                        node in suspects, info,
                                        info['time_end_unix'])
                    for node in partition.nodes]

    return samples


def report_samples(report):
    '''Every figure sample of a session (a JSON report, or as the
    database keeps it): each attempt's figures and outcome, as the run
    sent them.'''
    info = report['session_info']
    samples = [sample for run in report.get('runs') or []
               for case in run['testcases']
               for sample in series.case_lines(case, info,
                                               info.get('time_end_unix'))]
    # an attempt of no time of its own is at the run's end: the last one
    # of the same test case stands
    return list({series.key(s): s for s in samples}.values())


def with_reruns(sessions):
    '''``[[fleet run, its confirmation reruns...]]`` of the stored fleet
    runs among ``sessions``.'''
    reruns = {}
    for session in sessions:
        confirms = session['session_info'].get(confirm.CONFIRMS)
        if confirms:
            reruns.setdefault(confirms, []).append(session)

    return [[session] + reruns.get(session['session_info']['uuid'], [])
            for session in sessions
            if session['session_info'].get('fleet') == 'yes']
