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
after the upgrade``, with why (:func:`missing`): skipped, and the reason
the check recorded; failed; the work changed (a task count); no test case
at all (a variant no longer generated). A figure this run recorded as no
number (NaN, +-inf, null, a negative or non-numeric value:
:mod:`..results.measurement`) is ``no measurement``, with what was
recorded; one in a baseline run is left out of the baseline, and said so
(:mod:`.baseline`).

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

import argparse
import datetime
import json
import os
import re
import statistics
import sys
import time
from collections import Counter, defaultdict

from hpc_acceptance.core import identity
from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.fleet.model import node_of, variant_key
from hpc_acceptance.tools.fleet.nodes import node_map_path
from hpc_acceptance.tools.launch import lock as run_lock
from hpc_acceptance.tools.launch import reframe_call, report_file
from hpc_acceptance.tools.pipeline import finish
from hpc_acceptance.tools.pipeline import run as run_pipeline
from hpc_acceptance.tools.references import calibration, noise
from hpc_acceptance.tools.results import skips
from hpc_acceptance.tools.results.atomic_file import write_atomically
from hpc_acceptance.tools.results.runs import (FAILED_RESULTS,
                                               ResultsError, figures_of,
                                               report_session,
                                               report_testcases, short_name,
                                               unmeasured)
from hpc_acceptance.tools.upgrade import baseline
from hpc_acceptance.tools.upgrade import what_changed

#: One line for ``hpc-acceptance --help``.
description = ('run the post-upgrade set and judge each figure against the '
               'stored baseline')

#: Exit status of a run whose results the results database does not hold,
#: as every run's (:mod:`..pipeline.finish`).
STORAGE_FAILED = finish.NOT_STORED

#: Verdict of a figure the baseline holds and this run did not produce.
MISSING = 'missing after the upgrade'

#: Verdict of a figure this run recorded as no number
#: (:mod:`..results.measurement`).
NO_MEASUREMENT = 'no measurement'

#: Verdict of a figure outside its band whose confirmation rerun was not.
RECOVERED = 'within noise on rerun'

#: Order of the verdicts in the table: what needs attention first.
ORDER = (MISSING, NO_MEASUREMENT, 'regressed', 'no baseline', RECOVERED,
         'improved', 'within noise')

#: Note of a verdict from fewer than ``--min-runs`` baseline runs.
FEW_RUNS = 'few baseline runs'

# The node ReFrame's --distribute pinned a test case to, in its name.
_NID = re.compile(r'%\.nid=\S+')


def _figure_id(case, variable, per_node):
    return (baseline.workload_key(case), variable,
            node_of(case) if per_node else None)


def _row(check, node, variable, key, unit, **values):
    '''A row of the table (see :func:`judge`) of figure ``variable`` of
    workload ``key`` (:func:`.baseline.workload_key`), no baseline yet.'''
    row = {'check': check, 'node': node, 'figure': variable,
           'partition': key[1], 'environ': key[2], 'identity': key[4],
           'unit': unit, 'value': None, 'baseline': None,
           'baseline_runs': 0, 'baseline_median': None, 'band': None,
           'change': None, 'rerun_value': None, 'rerun_change': None,
           'verdict': 'no baseline', 'note': ''}
    row.update(values)
    return row


def judge(new_cases, baselines, confirm_cases=(), min_runs=3, floors=None,
          console=None):
    '''One row per figure of ``new_cases`` (a dict each: check, node,
    figure, identity, baseline and its runs, median, band, value, change, the
    rerun's value and change, verdict, note), compared with the first of
    ``baselines`` (a list of :class:`.baseline.Baseline`) that has runs of its
    workload; per node when ``new_cases`` is a fleet run. ``floors`` are a
    system's own family floors (:func:`..references.noise.parse_floors`). Then
    one row per figure the baselines hold and this run did not produce
    (:func:`missing`; ``console``: ReFrame's output of the run, for the reasons
    of skips of its own).

    ``confirm_cases`` are the rerun of the suspects: a figure outside its
    band is ``regressed`` only if its rerun is too (or was not rerun), else
    :data:`RECOVERED`, with both values.
    '''
    per_node = comparison.is_fleet_run(new_cases)
    reruns = {}
    for case in confirm_cases:
        if not case.get('fixture'):
            for variable, (value, _) in figures_of(case).items():
                reruns[_figure_id(case, variable, per_node)] = float(value)

    rows = []
    for case in new_cases:
        if case.get('fixture'):
            continue

        key = baseline.workload_key(case)
        node = node_of(case) if per_node else None
        if case.get('result') == 'pass':
            rows += [_row(case['display_name'], node, variable, key, unit,
                          identity=case.get('identity', ''),
                          verdict=NO_MEASUREMENT, note=why)
                     for variable, (why, unit) in sorted(
                         unmeasured(case).items())]

        for variable, (value, unit) in sorted(figures_of(case).items()):
            row = _row(case['display_name'], node, variable, key, unit,
                       identity=case.get('identity', ''), value=value)
            rows.append(row)
            for source in baselines:
                stored, whose = source.lookup(key, variable, node)
                if stored:
                    break
            else:
                continue

            floor = noise.family_floor(key[0], floors)
            if len(stored) >= min_runs:
                median, width = noise.band(stored, floor)
            else:
                median, width = statistics.median(stored), floor
                row['note'] = FEW_RUNS

            row.update(baseline=source.name + (f' ({whose})' if node and
                                               whose != 'node' else ''),
                       baseline_runs=len(stored), baseline_median=median,
                       band=width, change=noise.change(row['value'], median),
                       verdict=noise.verdict(row['value'], median, width,
                                             unit))
            if median <= 0:
                row.update(verdict='no baseline', note='the baseline\'s '
                           'median is 0: no measurement to compare with')
            elif row['value'] <= 0:
                row['note'] = '; '.join(filter(None, [
                    row['note'], 'a figure of 0 is no measurement']))

            rerun = reruns.get(_figure_id(case, variable, per_node))
            if row['verdict'] == 'regressed' and rerun is not None:
                row.update(rerun_value=rerun,
                           rerun_change=noise.change(rerun, median))
                if noise.verdict(rerun, median, width, unit) != 'regressed':
                    row['verdict'] = RECOVERED

    rows += missing(new_cases, baselines, per_node, console)
    rows.sort(key=lambda r: (ORDER.index(r['verdict']), r['check'],
                             r['node'] or '', r['figure']))
    return rows


def _other_work(before, after):
    '''``num_tasks 4 -> 8``: the inputs that differ between two
    workloads.'''
    old, new = identity.parse(before), identity.parse(after)
    return ', '.join(f'{name} {old.get(name, "(none)")} -> '
                     f'{new.get(name, "(none)")}'
                     for name in identity.differing_fields(before, after))


def _why_missing(key, variable, cases, skipped, node_ran):
    '''Why this run has no figure ``variable`` of workload ``key``:
    ``cases`` are its test cases of the same check variant (on the same
    node, for a fleet run), ``skipped`` ``{case name: skip reason}``.'''
    for case in cases:
        if case['result'] == 'skip':
            return f'skipped: {skipped[skips.case_name(case)]}'

    for case in cases:
        if case['result'] in FAILED_RESULTS:
            return (f'{case["result"]} in {case.get("fail_phase")}: '
                    f'{case.get("fail_reason") or "no reason recorded"}')

    for case in cases:
        if baseline.workload_key(case) != key:
            return (f'ran other work: '
                    f'{_other_work(key[4], baseline.workload_key(case)[4])}')

    if cases:
        return f'the check no longer reports {variable}'

    if not node_ran:
        return 'the node did not run'

    return 'no test case: the variant was not generated or not selected'


def _named(display_name, node):
    '''``display_name`` of a fleet run's test case on ``node``.'''
    return (_NID.sub(lambda _: f'%.nid={node}', display_name) if node
            else display_name)


def missing(new_cases, baselines, per_node=False, console=None):
    '''Rows of :data:`MISSING`: the figures that ``baselines`` hold and
    ``new_cases`` (a fleet run's node by node: ``per_node``) did not
    produce, each with its reason (:func:`_why_missing`; ``console``:
    ReFrame's output of the run).

    Every figure of the ``--before`` runs (the first baseline) is expected:
    of a fleet run, on each node, its own figures where the series has
    them, else every node's wherever it ran the check variant. A figure of the
    nightly runs (the second) only where this run has a test case of the
    same check variant that did not produce it: the post-upgrade set runs
    other work than the nightly by design (HPL's memory fraction).
    '''
    cases = [case for case in new_cases if not case.get('fixture')]
    tried, variants = defaultdict(list), defaultdict(list)
    for case in cases:
        variant = variant_key(baseline.workload_key(case))
        tried[variant, node_of(case) if per_node else None].append(
            case)
        variants[variant].append(case)

    ran = {node for _, node in tried}
    # a figure recorded as no number is no measurement, not missing
    keys = {(baseline.workload_key(case), variable,
             node_of(case) if per_node else None)
            for case in cases
            for variable in [*figures_of(case), *unmeasured(case)]}
    anywhere = {(key, variable) for key, variable, _ in keys}
    skipped = dict(skips.reasons(cases, console))

    found = {}
    before, others = baselines[0], baselines[1:]
    for (key, variable, node), stored in before.values.items():
        per_node_figure = per_node and '%.nid=' in before.names[key]
        if node is None and per_node:
            # of a fleet run, a node with no figures of its own in the
            # series (it did not run there, or the series was no fleet
            # run) is held to every node's where it ran the check variant
            ran_variant = [(where, tried_cases) for (variant, where),
                           tried_cases in tried.items()
                           if variant == variant_key(key)]
            found.update(
                ((key, variable, where), (before, stored, tried_cases, True))
                for where, tried_cases in ran_variant
                if not (per_node_figure and
                        (key, variable, where) in before.values) and
                (key, variable, where) not in keys)
            if ran_variant:
                continue

        # a fleet run's figure per node, any other once
        if (node is not None) != per_node_figure:
            continue

        if node and (key, variable, node) not in keys:
            found[key, variable, node] = (
                before, stored,
                tried.get((variant_key(key), node), []), node in ran)
        elif not node and (key, variable) not in anywhere:
            found[key, variable, None] = (
                before, stored, variants.get(variant_key(key), []),
                True)

    for source in others:
        for (key, variable, node), stored in source.values.items():
            if node is not None or before.values.get((key, variable, None)):
                continue

            for (variant, where), tried_cases in tried.items():
                if variant == variant_key(key) and \
                        (key, variable, where) not in keys and \
                        any(case['result'] != 'pass' or
                            baseline.workload_key(case) == key
                            for case in tried_cases):
                    found.setdefault((key, variable, where),
                                     (source, stored, tried_cases, True))

    return [_row(_named(source.names[key], node), node, variable, key,
                 source.units.get((key, variable), ''), verdict=MISSING,
                 baseline=source.name, baseline_runs=len(stored),
                 baseline_median=statistics.median(stored),
                 note=_why_missing(key, variable, tried_cases, skipped,
                                   node_ran))
            for (key, variable, node), (source, stored, tried_cases,
                                        node_ran) in found.items()]


def failed_checks(new_cases, confirm_cases=()):
    '''Display names of checks that failed, and failed their rerun too
    when they had one.'''
    rerun = {c['display_name']: c['result'] for c in confirm_cases}
    return sorted(c['display_name'] for c in new_cases
                  if c.get('result') in FAILED_RESULTS and
                  rerun.get(c['display_name'], c['result']) in FAILED_RESULTS)


def suspects(rows, new_cases):
    '''Hashes of the checks with a figure that looks regressed (ReFrame's
    ``hashcode``, which ``-n /<hash>`` selects).'''
    names = {r['check'] for r in rows if r['verdict'] == 'regressed'}
    return sorted({c['hashcode'] for c in new_cases
                   if c['display_name'] in names and c.get('hashcode')})


def exit_status(rows, failed):
    '''1: a figure regressed, is missing or has no measurement, or a check
    failed; 2: a
    figure had no baseline (only partly validated) or there is none; else
    0.'''
    verdicts = Counter(r['verdict'] for r in rows)
    if failed or verdicts['regressed'] or verdicts[MISSING] or \
            verdicts[NO_MEASUREMENT]:
        return 1

    if verdicts['no baseline'] or not rows:
        return 2

    return 0


def conclusion(rows, failed):
    '''The last line of the verdict: what :func:`exit_status` says.'''
    verdicts = Counter(r['verdict'] for r in rows)
    status = exit_status(rows, failed)
    if status == 1:
        found = [(verdicts['regressed'], 'figure(s) regressed'),
                 (verdicts[MISSING], f'figure(s) {MISSING}'),
                 (verdicts[NO_MEASUREMENT], f'figure(s) with '
                                            f'{NO_MEASUREMENT}'),
                 (len(failed), 'check(s) failed')]
        return 'post-upgrade FAILED: ' + ', '.join(
            f'{count} {what}' for count, what in found if count)

    compared = len(rows) - verdicts['no baseline']
    if not compared:
        return ('post-upgrade NOT VALIDATED: no figure had a baseline to '
                'compare with (run --before before the upgrade)')

    if status == 2:
        return (f'post-upgrade PARTLY VALIDATED: {verdicts["no baseline"]} '
                f'of {len(rows)} figure(s) had no baseline; {compared} '
                f'compared, none regressed')

    recovered = (f'; {verdicts[RECOVERED]} {RECOVERED} (out of its band '
                 f'on the first run)' if verdicts[RECOVERED] else '')
    return f'post-upgrade passed: {compared} figure(s) compared{recovered}'


def _name(row):
    '''The check without default variants or ReFrame-made parameters.'''
    words = [w for w in row['check'].split() if not w.startswith('%.')]
    node = f' @{row["node"]}' if row['node'] else ''
    return f'{short_name(" ".join(words))}{node} {row["figure"]}'


def _number(value):
    return '-' if value is None else f'{value:.4g}'


def _percent(value):
    return '-' if value is None else f'{100 * value:+.1f}%'


def format_table(rows, failed, per_node=False):
    '''The verdict table; for a fleet run only the figures that are not
    within noise, counted, and the nodes that regressed. A figure that was
    rerun shows both values.'''
    shown = [r for r in rows if not per_node or
             r['verdict'] != 'within noise']
    width = max([len('verdict')] + [len(r['verdict']) for r in shown])
    lines = [f'{"verdict":<{width}} {"check / figure":<50} {"baseline":>14} '
             f'{"median":>9} {"band":>6} {"new":>9} {"rerun":>9} '
             f'{"change":>7} unit']
    for r in shown:
        band = '-' if r['band'] is None else f'±{100 * r["band"]:.0f}%'
        source = (f'{r["baseline"].split()[0]}x{r["baseline_runs"]}'
                  if r['baseline'] else '-')
        notes = [r['note']] if r['note'] else []
        if r['rerun_change'] is not None:
            notes.append(f'rerun {_percent(r["rerun_change"])}')
        note = f'  ({"; ".join(notes)})' if notes else ''
        lines.append(f'{r["verdict"]:<{width}} {_name(r):<50} {source:>14} '
                     f'{_number(r["baseline_median"]):>9} {band:>6} '
                     f'{_number(r["value"]):>9} '
                     f'{_number(r["rerun_value"]):>9} '
                     f'{_percent(r["change"]):>7} {r["unit"]}{note}')

    if per_node:
        counts = Counter(r['verdict'] for r in rows)
        lines.append('figures: ' + ', '.join(f'{counts[v]} {v}'
                                             for v in ORDER if counts[v]))
        for verdict, label in (('regressed', 'regressed'),
                               (MISSING, 'lost figures')):
            nodes = Counter(r['node'] for r in rows
                            if r['verdict'] == verdict and r['node'])
            if nodes:
                lines.append(f'nodes that {label}: ' + ', '.join(
                    f'{node} ({count} figure(s))'
                    for node, count in nodes.most_common()))

    lines += [f'FAILED check: {name}' for name in failed]
    return '\n'.join(lines)


#: Ctrl-C or SIGTERM arrived while ReFrame ran.
Interrupted = reframe_call.Interrupted


#: The mode of every ReFrame run of post-upgrade (config/settings.py).
MODE = ['--mode', 'post-upgrade', '-r']


def launch(args, kind):
    '''How post-upgrade runs ReFrame, its runs tagged as ``kind``
    (``before``, ``after``, ``confirm``): what no reference entry covers
    runs unbounded, for the verdict here.'''
    return run_pipeline.Launch(
        'post-upgrade', args.reservation,
        extra=[f'--session-extras={baseline.EXTRA}={kind}'],
        env={'HPC_ACCEPTANCE_REFERENCE_ENTRIES': 'optional'})


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

    state = run_pipeline.fleet_state(args.fleet, args.reservation)
    try:
        return run_pipeline.fleet_runs(
            report, state, how, args.reframe_args,
            nodes_run=[*MODE, f'--distribute={state}',
                       '--exclude-tag=multinode',
                       '--session-extras=fleet=yes'],
            multinode_run=[*MODE, '--tag=multinode'], confirm=False)
    except run_pipeline.NoNodes:
        return []


def read_cases(runs):
    '''The test cases of the runs that wrote a report.'''
    return [case for path, _ in runs if os.path.exists(path)
            for case in report_testcases(path)]


def show_run(runs):
    '''The end an acceptance run has (:func:`..pipeline.finish.show`):
    the site's store, the summary, the binaries' sources, the report page;
    none of it may hide the verdict that follows.'''
    reports = [path for path, _ in runs]
    if reports:
        finish.show(reports, node_map_path(reports[0]),
                    'post-upgrade')


def _sessions(cases):
    return {c['session_uuid'] for c in cases if c.get('session_uuid')}


def _started(runs):
    '''When the first of the runs' reports started; ``None`` if none
    says (the verdict run's own time picks its baseline).'''
    starts = [datetime.datetime.strptime(started, '%Y%m%dT%H%M%S%z')
              for path, _ in runs if os.path.exists(path)
              for started in [report_session(path).get('time_start')]
              if started]
    return min(starts, default=None)


def _console(runs):
    '''ReFrame's output of the runs, from the logs beside their reports
    (the reasons of skips of ReFrame's own).'''
    return '\n'.join(filter(None, (skips.read(log_of(path))
                                   for path, _ in runs)))


_NOT_A_BASELINE = ('post-upgrade --before INTERRUPTED: this run is not a '
                   'baseline (run --before again)')


def not_stored(runs):
    '''The reports of ``runs`` whose session the results database does not
    hold, each said as after an acceptance run
    (:func:`..pipeline.finish.not_stored`): the baseline and the trends
    read the database.'''
    return finish.not_stored([path for path, _ in runs])


def record_before(args, report):
    '''``--before``: run and store the baseline; 0 if it is whole.'''
    try:
        runs = run_set(args, report, 'before')
    except Interrupted:
        print(_NOT_A_BASELINE, file=sys.stderr)
        return 1

    try:
        cases = read_cases(runs)
    except ResultsError as err:
        print(f'post-upgrade --before NOT RECORDED: {err}', file=sys.stderr)
        return 1

    if not cases:
        print('post-upgrade --before NOT RECORDED: no test case ran',
              file=sys.stderr)
        return 1

    show_run(runs)
    if baseline.interrupted(cases):
        print(_NOT_A_BASELINE, file=sys.stderr)
        return 1

    if not_stored(runs):
        print('post-upgrade --before NOT RECORDED: the run is not in the '
              'results database (see above)', file=sys.stderr)
        return STORAGE_FAILED

    try:
        before = baseline.before_runs()
    except ResultsError as err:
        print(f'post-upgrade --before: {err}', file=sys.stderr)
        return 1

    figures = sum(len(figures_of(c)) for c in cases if not c.get('fixture'))
    print(f'post-upgrade --before recorded: {figures} figure(s); the '
          f'baseline now holds {before.sessions} --before session(s)')
    return 0


def _max_jobs(text):
    if not run_pipeline.is_max_jobs(text):
        raise argparse.ArgumentTypeError(f'{text}: a whole number, 1 or '
                                         f'more')
    return text


def _parser():
    parser = argparse.ArgumentParser(
        prog='hpc-acceptance post-upgrade',
        description=__doc__.split('\n\n')[0],
    )
    parser.add_argument('--before', action='store_true',
                        help='record the baseline: run the set and store '
                             'it, before the upgrade')
    parser.add_argument('--fleet', nargs='?', const='', metavar='STATE',
                        help='every node (ReFrame\'s --distribute, in '
                             'STATE: idle, avail in a reservation)')
    parser.add_argument('--reservation', help='a Slurm reservation to run '
                                              'in')
    parser.add_argument('--max-jobs', type=_max_jobs, metavar='N',
                        help='at most N jobs submitted at once per '
                             'scheduler partition (a fleet run\'s default: '
                             'one per node it covers)')
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
    parser.add_argument('--min-runs', type=int, default=3,
                        help='baseline runs a figure needs for the band its '
                             'runs show; fewer: the family\'s minimum '
                             '(default: %(default)s)')
    parser.add_argument('--floor', default='', metavar='FAMILY=F ...',
                        help='minimum bands (e.g. "Memory=0.5 '
                             'Stream=0.3"; default: the system\'s own, '
                             'measured by propose-references '
                             '--calibrate-noise, else the built-in '
                             'families\' bands, see '
                             'hpc_acceptance.tools.references.noise)')
    parser.add_argument('--no-confirm', action='store_true',
                        help='no confirmation rerun of suspect checks')
    parser.add_argument('reframe_args', nargs='*',
                        help='arguments for reframe, after --')
    return parser


def main(argv=None):
    parser = _parser()
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    try:
        floors = noise.parse_floors(args.floor)
    except ValueError as err:
        parser.error(f'--floor: {err}')

    if args.report:
        return _post_upgrade(args, parser, floors)

    # one run per checkout, unless ci/post-upgrade.sh holds the lock
    try:
        with reframe_call.run_lock_held(['hpc-acceptance', 'post-upgrade',
                                         *argv]):
            return _post_upgrade(args, parser, floors)
    except reframe_call.Busy as err:
        print(f'post-upgrade: refused: {err} is running in this checkout',
              file=sys.stderr)
        return run_lock.BUSY


def _post_upgrade(args, parser, floors):
    ''':func:`main` once the options are read.'''

    if args.output_dir is None:
        # beside the report ReFrame would write, as ci/acceptance.sh does
        chosen = os.environ.get('RFM_REPORT_FILE')
        try:
            args.output_dir = (report_file.folder(chosen) if chosen else
                               str(report_file.REPORTS_DIR))
        except report_file.ReportFileError as err:
            parser.error(str(err))

    stamp = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())
    kind = 'before' if args.before else 'after'
    if not args.report:
        os.makedirs(args.output_dir, exist_ok=True)

    # a name no earlier run's files have: none is overwritten
    report = report_file.unused(
        os.path.join(args.output_dir, f'post-upgrade-{stamp}.json'))

    if not args.report:
        if not run_pipeline.database_ready(args.output_dir, 'post-upgrade'):
            print('post-upgrade NOT RUN: the results database cannot be '
                  'used (see above); no check was run', file=sys.stderr)
            return STORAGE_FAILED

        if args.max_jobs:
            os.environ[run_pipeline.MAX_JOBS] = args.max_jobs

    if args.before:
        return record_before(args, report)

    try:
        runs = ([(path, 0) for path in args.report] if args.report
                else run_set(args, report, kind))
    except Interrupted as stop:
        print('post-upgrade INTERRUPTED: no verdict', file=sys.stderr)
        return 128 + stop.args[0]

    try:
        new_cases = read_cases(runs)
        if not new_cases:
            raise ResultsError(f'no test case ran '
                               f'({", ".join(path for path, _ in runs)})')

        baselines = [baseline.before_runs(exclude=_sessions(new_cases),
                                          until=_started(runs)),
                     baseline.nightly_runs(args.baseline)]
    except ResultsError as err:
        print(f'post-upgrade NOT JUDGED: {err}', file=sys.stderr)
        return 3

    if not args.floor:
        # the system's own floors where it measured them
        floors, said = calibration.floors_of(
            calibration.system_of(new_cases) or '')
        print(f'post-upgrade: {said}', file=sys.stderr)

    console = _console(runs)
    rows = judge(new_cases, baselines, min_runs=args.min_runs,
                 floors=floors, console=console)
    per_node = comparison.is_fleet_run(new_cases)
    confirm_cases = []
    hashes = suspects(rows, new_cases)
    if hashes and not (args.no_confirm or args.report or per_node):
        print(f'post-upgrade: {len(hashes)} check(s) look regressed: '
              f'running them again to confirm', file=sys.stderr)
        rerun = report_file.stem(report) + '-confirm.json'
        how = launch(args, 'confirm')
        try:
            how.reframe(rerun, how.arguments(MODE, args.reframe_args) +
                        [arg for h in hashes for arg in ('-n', f'/{h}')])
            confirm_cases = report_testcases(rerun)
        except Interrupted:
            print('post-upgrade: confirmation interrupted: the suspects '
                  'count as regressed', file=sys.stderr)
        except ResultsError as err:
            print(f'post-upgrade: no confirmation: {err}', file=sys.stderr)

        rows = judge(new_cases, baselines, confirm_cases, args.min_runs,
                     floors, console)

    failed = failed_checks(new_cases, confirm_cases)
    status = exit_status(rows, failed)
    show_run(runs)
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
    print(format_table(rows, failed, per_node))
    path = args.json or report_file.stem(runs[0][0]) + '-verdict.json'
    write_atomically(path, json.dumps(
        {'reports': [p for p, _ in runs], 'baseline': args.baseline,
         'what_changed': changed, 'exit_status': status,
         'failed_checks': failed, 'figures': rows}, indent=2))

    print(f'post-upgrade: verdict table in {path}', file=sys.stderr)
    print(conclusion(rows, failed))
    if status == 0 and not args.report and not_stored(runs):
        print('post-upgrade NOT STORED: the figures passed, but the run is '
              'not in the results database (see above)', file=sys.stderr)
        return STORAGE_FAILED

    return status
