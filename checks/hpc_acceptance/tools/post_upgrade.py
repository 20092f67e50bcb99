'''A verdict per figure after an upgrade, against the stored baseline.

    hpc-acceptance post-upgrade [--baseline QUERY] [--json FILE]
        [--no-confirm] -- [REFRAME ARGS...]

Runs ReFrame's ``post-upgrade`` mode (extra arguments go to reframe), then
compares every figure with the stored runs of the same check, partition,
environment, variant and identity (:mod:`hpc_acceptance.core.identity`):
by default the nightly sessions of the last 30 days. A figure of other
inputs (HPL at another memory fraction, NPB of another class) has no
baseline and says so; it is never compared with another identity's runs.

Band and direction come from :mod:`.noise`. A check with a figure that
looks regressed is run once more (``--no-confirm`` skips that); the figure
is called ``regressed`` only if the rerun is outside the band too.

Prints one line per figure, regressions first, and writes the table as
JSON. Exit status: 1 if a figure regressed or a check failed, 2 if no
figure could be compared, 0 otherwise; 3 if ReFrame or the baseline could
not be read.
'''

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import time
from collections import defaultdict

from hpc_acceptance.tools import noise, summary
from hpc_acceptance.tools import report as report_page_command
from hpc_acceptance.tools.atomic_file import write_atomically
from hpc_acceptance.tools.results import (CONFIG, FAILED_RESULTS, REFRAME,
                                          ResultsError, figure_key,
                                          figures_of, report_testcases,
                                          short_name, stored_testcases)

#: The stored sessions compared with unless ``--baseline`` says otherwise.
DEFAULT_BASELINE = 'now-30d:now?suite_mode=="nightly"'

#: Order of the verdicts in the table: what needs attention first.
ORDER = ('regressed', 'no baseline', 'improved', 'within noise')


def baseline_values(testcases):
    '''``{(figure key, variable): [values]}`` of the passed stored runs.'''
    values = defaultdict(list)
    for case in testcases:
        if case.get('fixture') or case.get('result') != 'pass':
            continue

        key = figure_key(case)
        for variable, (value, _) in figures_of(case).items():
            values[key, variable].append(float(value))

    return values


def judge(new_cases, baseline, confirm_cases=(), min_runs=3, floors=None):
    '''One row per figure of ``new_cases`` (a dict each: check, figure,
    identity, baseline median, band, runs, value, change, verdict).
    ``floors`` are a system's own family floors (:func:`.noise.parse_floors`).

    A figure with fewer than ``min_runs`` stored runs has ``no baseline``:
    the spread of one or two runs says nothing about the noise.

    ``confirm_cases`` are the rerun of the suspects: a figure outside its
    band is ``regressed`` only if its rerun is too (or was not rerun).
    '''
    reruns = {}
    for case in confirm_cases:
        if not case.get('fixture'):
            for variable, (value, _) in figures_of(case).items():
                reruns[figure_key(case), variable] = float(value)

    rows = []
    for case in new_cases:
        if case.get('fixture'):
            continue

        key = figure_key(case)
        for variable, (value, unit) in sorted(figures_of(case).items()):
            row = {'check': case['display_name'], 'figure': variable,
                   'partition': key[1], 'environ': key[2],
                   'identity': key[4], 'unit': unit, 'value': float(value),
                   'baseline_runs': 0, 'baseline_median': None, 'band': None,
                   'change': None, 'rerun_value': None,
                   'verdict': 'no baseline'}
            rows.append(row)
            stored = baseline.get((key, variable), [])
            row['baseline_runs'] = len(stored)
            if len(stored) < min_runs:
                continue

            median, width = noise.band(stored,
                                       noise.family_floor(key[0], floors))
            row.update(baseline_median=median, band=width,
                       change=noise.change(row['value'], median),
                       verdict=noise.verdict(row['value'], median, width,
                                             unit))
            rerun = reruns.get((key, variable))
            if row['verdict'] == 'regressed' and rerun is not None:
                row['rerun_value'] = rerun
                again = noise.verdict(rerun, median, width, unit)
                if again != 'regressed':
                    row['verdict'] = 'within noise'

    rows.sort(key=lambda r: (ORDER.index(r['verdict']), r['check'],
                             r['figure']))
    return rows


def failed_checks(new_cases, confirm_cases=()):
    '''Display names of checks that failed, and failed their rerun too
    when they had one.'''
    rerun = {c['display_name']: c['result'] for c in confirm_cases}
    return sorted(c['display_name'] for c in new_cases
                  if c.get('result') in FAILED_RESULTS and
                  rerun.get(c['display_name'], c['result']) in FAILED_RESULTS)


def suspects(rows, new_cases):
    '''Hashes of the checks with a figure that looks regressed.'''
    names = {r['check'] for r in rows if r['verdict'] == 'regressed'}
    return sorted({c['hash'] for c in new_cases
                   if c['display_name'] in names and c.get('hash')})


def exit_status(rows, failed):
    '''1: regression or failed check, 2: nothing compared, else 0.'''
    if failed or any(r['verdict'] == 'regressed' for r in rows):
        return 1

    if all(r['verdict'] == 'no baseline' for r in rows):
        return 2

    return 0


def format_table(rows, failed):
    def num(value):
        return '-' if value is None else f'{value:.4g}'

    lines = [f'{"verdict":<13} {"check / figure":<50} {"baseline":>9} '
             f'{"band":>6} {"new":>9} {"change":>7} unit']
    for r in rows:
        band = '-' if r['band'] is None else f'±{100 * r["band"]:.0f}%'
        change = ('-' if r['change'] is None
                  else f'{100 * r["change"]:+.1f}%')
        name = f'{short_name(r["check"])} {r["figure"]}'
        lines.append(f'{r["verdict"]:<13} {name:<50} '
                     f'{num(r["baseline_median"]):>9} {band:>6} '
                     f'{num(r["value"]):>9} {change:>7} {r["unit"]}')

    lines += [f'FAILED check: {name}' for name in failed]
    return '\n'.join(lines)


def run_reframe(args, report, extra=()):
    '''Run the post-upgrade set, its output into the log beside
    ``report``; return ReFrame's exit status.'''
    env = dict(os.environ, RFM_REPORT_FILE=report)
    command = [REFRAME, '-C', str(CONFIG),
               '--mode', 'post-upgrade', '-r', *args, *extra]
    log = log_of(report)
    print(f'post-upgrade: ReFrame\'s output goes to {log}', file=sys.stderr)
    with open(log, 'w') as out:
        return subprocess.run(command, env=env, stdout=out,
                              stderr=subprocess.STDOUT).returncode


def log_of(report):
    return report[:-len('.json')] + '.log'


def show_run(report):
    '''The console summary and the report page of the run, as after an
    acceptance run; neither may hide the verdict that follows.'''
    log = log_of(report)
    log_args = ['--log', log] if os.path.exists(log) else []
    summary.main([report, *log_args])
    page = io.StringIO()
    with contextlib.redirect_stdout(page):
        written = report_page_command.main(['--run-report', report,
                                            *log_args])

    if written == 0:
        print(f'post-upgrade: report page {page.getvalue().strip()}')


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='hpc-acceptance post-upgrade',
        description=__doc__.split('\n\n')[0],
    )
    parser.add_argument('--baseline', default=DEFAULT_BASELINE,
                        help='stored sessions to compare with, as '
                             'ReFrame\'s --describe-stored-testcases takes '
                             '(default: %(default)s)')
    parser.add_argument('--json', help='where to write the verdict table '
                                       '(default: next to the run report)')
    parser.add_argument('--report', help='judge this JSON run report '
                                         'instead of running ReFrame')
    parser.add_argument('--output-dir',
                        default=str(report_page_command.REPORTS_DIR),
                        help='where the run reports and the verdict go '
                             '(default: %(default)s)')
    parser.add_argument('--min-runs', type=int, default=3,
                        help='stored runs a figure needs for a verdict '
                             '(default: %(default)s)')
    parser.add_argument('--floor', default='', metavar='FAMILY=F ...',
                        help='the system\'s own minimum bands, learnt from '
                             'its quiet repeats (e.g. "Memory=0.5 '
                             'Stream=0.3"; default: the families\' bands, '
                             'see hpc_acceptance.tools.noise)')
    parser.add_argument('--no-confirm', action='store_true',
                        help='no confirmation rerun of suspect checks')
    parser.add_argument('reframe_args', nargs='*',
                        help='arguments for reframe, after --')
    args = parser.parse_args(argv)
    try:
        floors = noise.parse_floors(args.floor)
    except ValueError as err:
        parser.error(f'--floor: {err}')

    try:
        baseline = baseline_values(stored_testcases(args.baseline))
    except ResultsError as err:
        print(f'post-upgrade: baseline: {err}', file=sys.stderr)
        return 3

    stamp = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())
    report = args.report or os.path.join(args.output_dir,
                                         f'post-upgrade-{stamp}.json')
    if not args.report:
        os.makedirs(args.output_dir, exist_ok=True)
        run_reframe(args.reframe_args, report)

    try:
        new_cases = report_testcases(report)
    except ResultsError as err:
        print(f'post-upgrade NOT JUDGED: {err}', file=sys.stderr)
        return 3

    rows = judge(new_cases, baseline, min_runs=args.min_runs, floors=floors)
    confirm_cases = []
    hashes = suspects(rows, new_cases)
    if hashes and not args.no_confirm and not args.report:
        print(f'post-upgrade: {len(hashes)} check(s) look regressed: '
              f'running them again to confirm', file=sys.stderr)
        rerun = report.replace('.json', '-confirm.json')
        run_reframe(args.reframe_args, rerun,
                    [arg for h in hashes for arg in ('-n', f'/{h}')])
        try:
            confirm_cases = report_testcases(rerun)
        except ResultsError as err:
            print(f'post-upgrade: no confirmation: {err}', file=sys.stderr)

        rows = judge(new_cases, baseline, confirm_cases, args.min_runs,
                     floors)

    failed = failed_checks(new_cases, confirm_cases)
    status = exit_status(rows, failed)
    show_run(report)
    print(format_table(rows, failed))
    path = args.json or report.replace('.json', '-verdict.json')
    write_atomically(path, json.dumps(
        {'report': report, 'baseline': args.baseline, 'exit_status': status,
         'failed_checks': failed, 'figures': rows}, indent=2))

    print(f'post-upgrade: verdict table in {path}', file=sys.stderr)
    return status
