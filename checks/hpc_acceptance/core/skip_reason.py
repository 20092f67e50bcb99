'''Why a test case skipped, kept in ReFrame's JSON report and results
database.

ReFrame records that a test case skipped but not why: the reason is only on
its console line. Loggable variables, though, are written for every test
case, skipped ones included (``RunReport.update_run_stats`` in
``reframe/frontend/reporting``), and the database stores the report as it
is. So the check's :meth:`~RecordedSkip.skip`, which ``skip_if`` and
``skip_if_no_procinfo`` call too, records the reason in a loggable variable
before skipping.

Skips of ReFrame's own pass through no check's code (a dependency that
skipped, too few nodes for a flexible job): those cases have no recorded
reason; :mod:`hpc_acceptance.tools.results.skips` says so.
'''

import reframe as rfm
from reframe.core.builtins import variable


class RecordedSkip(rfm.RegressionTestPlugin):
    #: Why this test case skipped, as its console line says; empty if it
    #: did not skip.
    #:
    #: :type: :class:`str`
    skip_reason = variable(str, value='', loggable=True)

    def skip(self, msg=None):
        self.skip_reason = str(msg) if msg else 'no reason given'
        super().skip(msg)
