'''Post-upgrade validation: a baseline before, one verdict per figure after.

    hpc-acceptance post-upgrade --before [--fleet[=STATE]]
        [--reservation NAME] -- [REFRAME ARGS...]
    hpc-acceptance post-upgrade [--fleet[=STATE]] [--reservation NAME]
        [--baseline QUERY] [--json FILE] [--min-runs 3] [--floor F ...]
        [--no-confirm] -- [REFRAME ARGS...]

``--before`` runs ReFrame's ``post-upgrade`` mode (every check and
variant) and stores it as the baseline (session extra
``post_upgrade=before``); run it once or more before the upgrade. After
it, the same command without ``--before`` runs the set again
(``post_upgrade=after``) and compares every figure with the baseline
(:mod:`.baseline`): the latest ``--before`` runs, else the nightly runs of
the same workload (``--baseline`` selects other nightly sessions). With
``--fleet`` the set runs on every node (ReFrame's ``--distribute``,
the checks that need several nodes once after), and each node is compared
with its own ``--before`` figures.

Band and direction come from :mod:`..references.noise`, the floors from
the system's own (:mod:`..references.calibration`, ``--floor`` overrides
them) else the built-in ones, as a line says. A figure with
``--min-runs`` baseline runs or more gets the band the runs show (at least the
family's minimum); with fewer, the family's minimum band, and the note "few
baseline runs": one run before and one after is what a sysadmin has in a
maintenance window. A check with a figure that looks regressed is run once more
(``--no-confirm`` skips that; a fleet run is not rerun) and the figure is
called ``regressed`` only if the rerun is outside the band too, else ``within
noise on rerun``, with both values.

A figure the baseline holds and this run did not produce is ``missing
after the upgrade``, with why (:func:`.judgement.missing`): skipped, and
the reason the check recorded; failed; the work changed (a task count);
no test case at all (a variant no longer generated). A figure this run
recorded as no number (NaN, +-inf, null, a negative or non-numeric
value: :mod:`..results.measurement`) is ``no measurement``, with what
was recorded; one in a baseline run is left out of the baseline, and
said so (:mod:`.baseline`).

Prints what changed between the baseline's runs and this one (kernel,
BIOS, MPI, compiler, each check's binary: :mod:`.what_changed`), then one
line per figure, what needs attention first (a fleet run: the figures that
are not within noise, and the nodes that regressed or lost figures),
writes the table as JSON, and ends with the verdict in one line. Exit
status: 1 a figure regressed, is missing or has no measurement, or a
check failed; 2 not
validated: a figure had no baseline (only partly validated) or none had
one; 0 every figure compared and none regressed; 3 ReFrame or the results
could not be read; 5 the run is not in the results database (checked as
after an acceptance run); for ``--before``: 0 stored whole, 1 interrupted
or nothing ran, 5 not in the results database.
'''

import os
import sys
import time

from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.common.arguments import UsageError
from hpc_acceptance.tools.fleet.comparison import is_fleet_run
from hpc_acceptance.tools.launch import lock, reframe_call, report_file
from hpc_acceptance.tools.references import calibration, noise
from hpc_acceptance.tools.results.atomic_file import write_atomically
from hpc_acceptance.tools.results.runs import ResultsError
from hpc_acceptance.tools.shifts import limit
from hpc_acceptance.tools.upgrade import baseline, judgement, table
from hpc_acceptance.tools.upgrade import runs_before_after, what_changed

#: One line for ``hpc-acceptance --help``.
description = ('run the post-upgrade set and judge each figure against the '
               'stored baseline')

#: Baseline runs a figure needs for a band of its own (``--min-runs``).
MIN_RUNS = 3


def setup_parser(parser):
    '''The options of ``hpc-acceptance post-upgrade``.'''
    parser.add_argument('--before', action='store_true',
                        help='record the baseline: run the set and store '
                             'it, before the upgrade')
    arguments.add_run_options(parser)
    parser.add_argument('--baseline', default=baseline.NIGHTLY,
                        help='nightly sessions compared with where a '
                             'figure has no --before run, as ReFrame\'s '
                             '--describe-stored-testcases takes them '
                             '(default: %(default)s)')
    parser.add_argument('--json', help='where to write the verdict table '
                                       '(default: next to the run report)')
    parser.add_argument('--report', action='append',
                        help='judge this JSON run report instead of running '
                             'ReFrame (twice for a fleet run)')
    parser.add_argument('--output-dir',
                        help='where the run reports and the verdict go '
                             '(default: the folder of RFM_REPORT_FILE, else '
                             f'{report_file.REPORTS_DIR})')
    parser.add_argument('--min-runs', type=int, default=MIN_RUNS,
                        help='baseline runs a figure needs for the band its '
                             'runs show; fewer: the family\'s minimum '
                             '(default: %(default)s)')
    arguments.add_floor_bands(
        parser, '', help='minimum bands (e.g. "Memory=0.5 Stream=0.3"; '
                         'default: the system\'s own, measured by '
                         'propose-references --calibrate-noise, else the '
                         'built-in families\' bands, see '
                         'hpc_acceptance.tools.references.noise)')
    parser.add_argument('--no-confirm', action='store_true',
                        help='no confirmation rerun of suspect checks')
    parser.add_argument('reframe_args', nargs='*',
                        help='arguments for reframe, after --')


def command(args):
    '''``hpc-acceptance post-upgrade``: record the baseline or judge the
    run after the upgrade; the exit status.'''
    try:
        # checked here, kept as given: none given, the system's own floors
        noise.parse_floors(args.floor)
    except ValueError as err:
        raise UsageError(f'--floor: {err}') from None

    # every setting read and checked before anything runs
    try:
        args.settings = command_settings.read(max_jobs=args.max_jobs)
        args.limits = limit.of_settings(args.settings)
    except (command_settings.BadSetting, limit.LimitError) as err:
        raise UsageError(str(err)) from None

    if args.report:
        return _post_upgrade(args)

    # one run per checkout, unless ci/post-upgrade.sh holds the lock
    try:
        with reframe_call.run_lock_held(_command_line(args),
                                        args.settings):
            return _post_upgrade(args)
    except reframe_call.Busy as err:
        print(f'post-upgrade: refused: {err} is running in this checkout',
              file=sys.stderr)
        return lock.BUSY


def _command_line(args):
    '''The command line of ``args``, which the run lock records for a run
    it refuses.'''
    line = ['hpc-acceptance', 'post-upgrade']
    line += ['--before'] if args.before else []
    if args.fleet is not None:
        line.append(f'--fleet={args.fleet}' if args.fleet else '--fleet')
    for option, value, default in (
            ('--reservation', args.reservation, None),
            ('--max-jobs', args.max_jobs, None),
            ('--baseline', args.baseline, baseline.NIGHTLY),
            ('--json', args.json, None),
            ('--output-dir', args.output_dir, None),
            ('--min-runs', args.min_runs, MIN_RUNS),
            ('--floor', args.floor, '')):
        line += [option, str(value)] if value != default else []
    line += ['--no-confirm'] if args.no_confirm else []
    return line + (['--', *args.reframe_args] if args.reframe_args else [])


def _post_upgrade(args):
    ''':func:`command` once the run lock is held.'''
    if args.output_dir is None:
        # beside the report ReFrame would write, as ci/acceptance.sh does
        chosen = args.settings.report_file
        try:
            args.output_dir = (report_file.folder(chosen) if chosen else
                               str(report_file.REPORTS_DIR))
        except report_file.ReportFileError as err:
            raise UsageError(str(err)) from None

    stamp = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())
    if not args.report:
        os.makedirs(args.output_dir, exist_ok=True)

    # a name no earlier run's files have: none is overwritten
    report = report_file.unused(
        os.path.join(args.output_dir, f'post-upgrade-{stamp}.json'))

    if not args.report:
        if not runs_before_after.ready_to_store(args.output_dir,
                                                args.settings):
            print('post-upgrade NOT RUN: the results database cannot be '
                  'used (see above); no check was run', file=sys.stderr)
            return runs_before_after.STORAGE_FAILED

    if args.before:
        recorded = runs_before_after.record_before(args, report)
        print(recorded.said, file=sys.stderr if recorded.status else
              sys.stdout)
        return recorded.status

    return _judge_after(args, report)


def _judge_after(args, report):
    '''Run the set after the upgrade (or read ``--report``), judge it
    against the baseline, say the verdict; the exit status.'''
    try:
        runs = ([(path, 0) for path in args.report] if args.report
                else runs_before_after.run_set(args, report, 'after'))
    except runs_before_after.Interrupted as stop:
        print('post-upgrade INTERRUPTED: no verdict', file=sys.stderr)
        return 128 + stop.args[0]

    try:
        new_cases, baselines = runs_before_after.read_after(
            runs, args.baseline, args.settings.db)
    except ResultsError as err:
        print(f'post-upgrade NOT JUDGED: {err}', file=sys.stderr)
        return 3

    floors = noise.parse_floors(args.floor)
    if not args.floor:
        # the system's own floors where it measured them
        floors, said = calibration.floors_of(
            calibration.system_of(new_cases) or '',
            calibration.reference_dirs(args.settings))
        print(f'post-upgrade: {said}', file=sys.stderr)

    console = runs_before_after.console_of(runs)
    judged = judgement.judge_run(new_cases, baselines,
                                 min_runs=args.min_runs, floors=floors,
                                 console=console)
    per_node = is_fleet_run(new_cases)
    hashes = judgement.suspects(judged.rows, new_cases)
    if hashes and not (args.no_confirm or args.report or per_node):
        print(f'post-upgrade: {len(hashes)} check(s) look regressed: '
              f'running them again to confirm', file=sys.stderr)
        confirm_cases = runs_before_after.confirm(args, report, hashes)
        judged = judgement.judge_run(new_cases, baselines, confirm_cases,
                                     args.min_runs, floors, console)

    runs_before_after.show_run(runs, args)
    _say_verdict(args, judged, runs, baselines, new_cases)
    if judged.status == 0 and not args.report and \
            runs_before_after.not_stored(runs, args.settings.db):
        print('post-upgrade NOT STORED: the figures passed, but the run is '
              'not in the results database (see above)', file=sys.stderr)
        return runs_before_after.STORAGE_FAILED

    return judged.status


def _say_verdict(args, judged, runs, baselines, new_cases):
    '''The baseline, what changed since it, the verdict table (also
    written as JSON) and the verdict's line.'''
    before, nightly = baselines
    print(f'post-upgrade: baseline: {before.sessions} --before session(s), '
          f'{nightly.sessions} nightly session(s) where a figure has no '
          f'--before run')
    for note in before.notes + nightly.notes:
        print(f'post-upgrade: {note}')

    # against the runs it is compared with first
    changed = what_changed.differences(
        (before if before.cases else nightly).cases, new_cases)
    print('what changed since the baseline:' +
          ''.join(f'\n  {line}' for line in changed) +
          ('' if changed else ' nothing the runs recorded'))
    print(table.format_table(judged.rows, judged.failed,
                             is_fleet_run(new_cases)))
    path = args.json or report_file.stem(runs[0][0]) + '-verdict.json'
    write_atomically(path, table.as_json(judged, [p for p, _ in runs],
                                         args.baseline, changed))
    print(f'post-upgrade: verdict table in {path}', file=sys.stderr)
    print(judgement.conclusion(judged.rows, judged.failed))
