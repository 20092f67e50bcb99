'''Say when a run takes its binaries from elsewhere than the runs before.

    hpc-acceptance dependency-drift [--system NAME]     (before a run)
    hpc-acceptance dependency-drift REPORT.json         (after it)

A check whose binary came from the Spack environment last night and from
an in-tree build tonight measures another program: its figures change
identity, and a run without references still passes. So ci/acceptance.sh
asks before ReFrame starts (for the embedded default ``local``, whose
Spack ``ci/setup-spack.sh`` prepares: is the recorded Spack usable this
time?) and after the run (for every check of the report: is its
dependency source the one of the previous stored run of the same check and
system?). The answer is printed in a sysadmin's words, e.g. "Spack
environment spack-envs/local missing since 2026-11-21 02:31 UTC; checks
fell back to in-tree: ...". A Spack environment that went missing is
reported on every run until the checks use it again; other changes on the
run that sees them. Stored runs of the last
:data:`.binary_sources.HISTORY_DAYS` days are compared. This never
changes a run's verdict.
'''

from hpc_acceptance.tools.common import command_settings
from hpc_acceptance.tools.outcome import binary_sources
from hpc_acceptance.tools.results.runs import ResultsError, report_testcases


#: One line for ``hpc-acceptance --help``.
description = ('say when checks take their binaries from elsewhere than '
               'the runs before')


def setup_parser(parser):
    parser.add_argument('report', nargs='?', metavar='REPORT.json',
                        help="after a run: ReFrame's JSON report of it")
    parser.add_argument('--system', default='local',
                        help='before a run: the system it runs (only '
                             '"local" is predicted; default: %(default)s)')


def command(args):
    try:
        given = command_settings.read()
    except command_settings.BadSetting as err:
        # never a run's verdict: said, as runs that cannot be compared are
        binary_sources.show(binary_sources.Drift([], str(err)))
        return 0

    if not args.report:
        binary_sources.show(binary_sources.before(args.system, given.db))
        return 0

    try:
        testcases = report_testcases(args.report)
    except ResultsError as err:
        binary_sources.show(binary_sources.Drift([], str(err)))
        return 0

    binary_sources.show(binary_sources.of_reports([testcases],
                                                  given.db)[0])
    return 0
