'''A run once ReFrame is done with it, read once into one value.

Its reports, each test case's final attempt, a fleet run's comparison
across its nodes (:func:`..fleet.history.compare_nodes`), its figures' shifts
across nights (:mod:`..shifts.nightly`) and its node list: read and
computed here once, and handed to the export, the summary, the page and
the verdict of the run's end (:mod:`..pipeline.finish`). Each of those
commands run alone reads its run here too, so that every tool reads a run
one way. What cannot be read or computed is kept as the reason, one line,
for each tool to say as it always has.
'''

import os
from dataclasses import dataclass, field

from hpc_acceptance.tools.fleet import history
from hpc_acceptance.tools.fleet.model import FleetError
from hpc_acceptance.tools.fleet.node_map import read_node_map
from hpc_acceptance.tools.results import runs
from hpc_acceptance.tools.references import calibration
from hpc_acceptance.tools.shifts import nightly


@dataclass
class FinishedRun:
    '''One run, read: a fleet run's two or three reports (the nodes' run,
    the confirmation rerun, the multi-node run) are one run.'''

    #: ``[(report path, ReFrame's exit status)]``, in order; the status
    #: ``None`` where it is not known (a report named alone)
    pairs: list
    #: ReFrame's console output of the run, for the skips' reasons
    logs: list = field(default_factory=list)
    #: the node list of a fleet run (``hpc-acceptance nodes --json``)
    nodes_path: str = None
    #: the reports as one (``{'runs', 'session_info'}``): a rerun's test
    #: case after its first attempt
    report: dict = None
    #: each report read, in order
    parsed: list = field(default_factory=list)
    #: why a report ReFrame wrote cannot be read, else ``None``
    unreadable: str = None
    #: why the run cannot be judged (that, or ReFrame stopped before
    #: writing a report), else ``None``
    unjudged: str = None
    #: each test case by its final attempt
    testcases: list = field(default_factory=list)
    #: the first report's ``session_info``
    session_info: dict = field(default_factory=dict)
    #: the node list, read; why it cannot be, else ``None``
    node_map: dict = None
    nodes_error: str = None
    #: the fleet comparison of a fleet run (``None`` for another run), why
    #: the earlier fleet runs could not be read, why it cannot be made
    fleets: list = None
    fleet_note: str = None
    fleet_error: str = None
    #: the shifts (and recoveries) its figures' nightly series end on; why
    #: the site's shift limit or the acknowledgements cannot be read
    shifts: list = field(default_factory=list)
    shift_error: str = None
    #: the stored test cases its shifts were found against and its page's
    #: trends drawn from (none where the database cannot be read)
    shift_history: list = field(default_factory=list)
    #: the noise floors its bands are drawn with and the line that says
    #: whose (:func:`..references.calibration.run_floors`)
    floors: tuple = ({}, '')

    @property
    def reports(self):
        '''The paths of the reports ReFrame wrote.'''
        return [path for path, _ in self.pairs if written(path)]

    @property
    def ran_nothing(self):
        '''Whether ReFrame ran no test case (and so wrote no report).'''
        return not any(run['testcases'] for run in self.report['runs'])


def written(report):
    '''Whether ReFrame wrote the run report ``report`` (a run stopped
    early leaves none, or an empty one).'''
    return os.path.exists(report) and os.path.getsize(report) > 0


def _read_each(run):
    '''Read the reports of ``run.pairs`` into ``run.parsed``, in the order
    their sessions ran (:func:`..results.runs.in_session_order`: a
    confirmation rerun after its run, whatever order they are named in). A
    run that wrote no report and exited 0 ran no test case: it adds
    nothing. The first report that cannot be judged (ReFrame stopped before
    writing it, or it cannot be read) is ``run.unjudged``; the first one
    ReFrame wrote that cannot be read is also ``run.unreadable``.'''
    read = []
    for path, reframe_status in run.pairs:
        if not os.path.exists(path) and reframe_status is not None:
            if reframe_status != 0:
                run.unjudged = run.unjudged or (
                    f'ReFrame stopped with status {reframe_status} before '
                    f'writing {path}; see its output above')
            continue

        try:
            read.append((path, runs.read_report(path)))
        except runs.Unreadable as err:
            run.unjudged = run.unjudged or str(err)
            if reframe_status is None or written(path):
                run.unreadable = run.unreadable or str(err)

    try:
        run.parsed = [report for _, report in runs.in_session_order(read)]
    except runs.Unreadable as err:
        run.unjudged = run.unreadable = run.unjudged or str(err)


def read(pairs, logs=(), nodes_path=None, testcases=None,
         session_info=None, shift_history=None, limits=None, *, db_path):
    '''The :class:`FinishedRun` of the reports ``pairs``; ``testcases``
    and ``session_info`` instead where the run is a stored session. Its
    shifts are found with the site's ``limits``
    (:class:`..shifts.limit.Limits`; none: no site limit) against
    ``shift_history`` (stored test cases) where given, else against the
    last year of the results database ``db_path``, read once here.'''
    run = FinishedRun(pairs=list(pairs), logs=list(logs),
                      nodes_path=nodes_path)
    if testcases is None:
        _read_each(run)
        if run.unreadable:
            return run

        # the runs of each report (the first and the retries) follow the
        # previous report's: a rerun's test case replaces its first attempt
        run.report = {'runs': [r for report in run.parsed
                               for r in report['runs']],
                      'session_info': (run.parsed[0].get('session_info') or
                                       {}) if run.parsed else {}}
        run.testcases = runs.final_testcases(run.report)
        run.session_info = run.report['session_info']
    else:
        run.report = {'runs': [{'testcases': testcases}],
                      'session_info': session_info or {}}
        run.testcases, run.session_info = testcases, session_info or {}

    if nodes_path:
        try:
            run.node_map = read_node_map(nodes_path)
        except runs.ResultsError as err:
            run.nodes_error = str(err)

    try:
        run.fleets, run.fleet_note = history.compare_nodes(
            run.testcases, run.session_info, db_path)
    except FleetError as err:
        run.fleet_error = str(err)

    limits = limits or nightly.NO_SITE_LIMIT
    run.floors = calibration.run_floors(run.testcases, limits.reference_dirs)
    try:
        # a database that cannot be read: no shifts, as the run's other
        # tools say
        run.shift_history = (nightly.history(db_path=db_path)
                             if shift_history is None else shift_history)
    except runs.ResultsError:
        run.shift_history = []
    try:
        run.shifts = nightly.find(run.testcases, run.shift_history, limits,
                                  db_path=db_path)
    except nightly.UNREADABLE as err:
        run.shift_error = str(err)

    return run


def of_reports(paths, logs=(), nodes_path=None, limits=None, *, db_path):
    ''':func:`read` of reports named alone (no ReFrame exit status): each
    must be there.'''
    return read([(path, None) for path in paths], logs, nodes_path,
                limits=limits, db_path=db_path)
