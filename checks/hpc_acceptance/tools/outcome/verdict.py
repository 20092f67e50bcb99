'''Judge an acceptance run from ReFrame's JSON report.

ReFrame exits 0 when no check matched and when every check skipped;
sysadmins read green as "validated", so the acceptance run is judged here:

- exit 0: at least one check passed and none failed ("passed — not judged
  against references" where no reference file bounded them, and no fleet
  run compared them across the nodes of their partition);
- exit 1: a check failed, aborted or could not run for a failed dependency,
  a passed check has no measurement of a figure (NaN, +-inf, null, a
  negative or non-numeric value, or no figure at all from a check of this
  project: :mod:`..results.measurement`), or a fleet run found something
  (:mod:`..fleet.comparison`): a suspect node (slower than its siblings, alone
  in failing a check, with no measurement of a figure its siblings
  measured, or of another hardware or software than its partition's other
  nodes), a fleet that lost as a whole against its references or its
  earlier fleet runs, or a figure whose nodes split in two clusters (not
  uniform), or a figure's nightly series ended on a persistent shift
  beyond its reference tolerance or the site's shift limit
  (:mod:`..shifts.nightly`);
- exit 2: nothing was validated (no check selected, or all skipped, or a
  site system without a reference file: :mod:`..references.unreferenced`);
- exit 3: ReFrame failed before it ran anything, or a report is
  unreadable (not JSON, not a run report, another ReFrame's format: one
  line names the file and what is wrong, :mod:`..results.report_shape`).

ReFrame writes no report when no test case ran; its own exit status tells
that case (0) from a crash (non-zero). A fleet run is two or three ReFrame
runs (the single-node checks on every node, the confirmation rerun of its
suspects' checks on their nodes, the multi-node checks once): they are
judged as one run, a rerun's test case replacing the first attempt, as a
retry does. Every test case counts by its final attempt; one that passed
only when retried or rerun is named. A fleet run whose figures had nothing
to be compared with but each other (no reference file, no earlier fleet
run) says so. The verdict is the last line printed.

Usage: ``hpc-acceptance verdict REPORT.json REFRAME_EXIT_STATUS
[REPORT.json REFRAME_EXIT_STATUS ...]``
'''

import sys

from hpc_acceptance.tools.common import command_settings
from hpc_acceptance.tools.outcome import acceptance_verdict
from hpc_acceptance.tools.outcome import finished_run
from hpc_acceptance.tools.shifts import limit


#: One line for ``hpc-acceptance --help``.
description = "judge an acceptance run from ReFrame's JSON report"


def setup_parser(parser):
    parser.add_argument('runs', nargs='*', metavar='REPORT STATUS',
                        help="each run's JSON report and ReFrame's exit "
                             'status')


def command(args):
    argv = args.runs
    if not argv or len(argv) % 2 or not all(s.isdigit()
                                            for s in argv[1::2]):
        print(' '.join(__doc__.strip().splitlines()[-2:]), file=sys.stderr)
        return 3

    try:
        given = command_settings.read()
        limits = limit.of_settings(given)
    except (command_settings.BadSetting, limit.LimitError) as err:
        print(f'acceptance NOT VALIDATED: {err}', file=sys.stderr)
        return 2

    status, message = acceptance_verdict.verdict_of(
        finished_run.read(list(zip(argv[::2], map(int, argv[1::2]))),
                          limits=limits, db_path=given.db),
        given.unreferenced_ok)
    print(message, file=sys.stderr if status else sys.stdout)
    return status
