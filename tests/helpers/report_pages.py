'''The report page of test cases as a run's end makes it: their shifts
across the stored ``history`` and their verdict, judged without a site's
settings but the shift limit given (no acknowledged shift, no system
let pass without references), whatever this process's environment
says.'''

from hpc_acceptance.tools.outcome import acceptance_verdict
from hpc_acceptance.tools.page import report_page
from hpc_acceptance.tools.references import calibration
from hpc_acceptance.tools.shifts import limit, nightly

#: The results database: none, where nothing here is read from one (no
#: acknowledged shift, no fleet comparison: both are given).
NO_DATABASE = '/nonexistent/results.db'


def page_for(session, testcases, history, skipped, runs=30, shift_limit=''):
    ''':func:`report_page.page_for` of ``testcases``, its shifts and
    verdict made here; ``shift_limit`` as the site's
    HPC_ACCEPTANCE_SHIFT_LIMIT.'''
    shifts = nightly.find(testcases, history,
                          limit.site_limits(shift_limit), acks={},
                          db_path=NO_DATABASE)
    judged = acceptance_verdict.judge({'runs': [{'testcases': testcases}]},
                                      [], None, shifts, db_path=NO_DATABASE)
    return report_page.page_for(session, testcases, history, skipped,
                                runs=runs, found=(shifts, None),
                                judged=judged, floors=calibration.run_floors(
                                    testcases, limit.CHECKOUT_DIRS))
