'''What ci/bench/sensitivity.sh's runs show: per run and check family,
the checks the nightly failed (after its one retry) and how far the
figures moved from the training runs' medians; per family the smallest
slowdown flagged and the false alarms of the quiet runs.

    sensitivity_table.py line STATE NAME   one line about run NAME
    sensitivity_table.py table STATE       the Markdown tables

STATE is the script's state directory: ``runs.txt`` (one ``NAME KIND
GRADE`` line per run, in the order they ran; KIND is ``train``,
``quiet``, ``cpu`` (GRADE: % of a core) or ``hog`` (GRADE: the hog's %
of its cores)) and each run's ReFrame report ``NAME.json``.

A figure's loss is the fraction of performance it lost against the
training median: 1 - value / median for a rate, 1 - median / value for a
time (the noise model's direction,
:mod:`hpc_acceptance.tools.references.noise`).
'''

import argparse
import statistics
import sys
from collections import defaultdict

from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results.runs import (FAILED_RESULTS, ResultsError,
                                               figure_key, figures_of,
                                               passed_on_retry,
                                               report_testcases, variant_of)

#: What a run's grade means, per kind.
GRADE_WORDS = {'cpu': '{grade} % of a core', 'hog': 'hog at {grade} %'}


def read_runs(state):
    '''``[(name, kind, grade)]`` from ``state/runs.txt``; grade is an int
    or ``None``.'''
    runs = []
    with open(f'{state}/runs.txt') as fp:
        for line in fp:
            name, kind, grade = line.split()
            runs.append((name, kind, None if grade == '-' else int(grade)))

    return runs


def family(case):
    check, _ = variant_of(case['display_name'])
    return noise.family_of(check) or check


def loss(value, median, unit):
    '''Fraction of performance lost (negative: a gain).'''
    if noise.higher_is_better(unit):
        return 1 - value / median

    return 1 - median / value


def training_medians(reports):
    '''``{(figure key, variable): median}`` over the training reports.'''
    values = defaultdict(list)
    for path in reports:
        for case in report_testcases(path):
            if case.get('fixture'):
                continue

            for variable, (value, _) in figures_of(case).items():
                values[figure_key(case), variable].append(float(value))

    return {key: statistics.median(v) for key, v in values.items()}


def outcome(path, medians):
    '''``{family: {checks, failed, retried, losses}}`` of one run report.'''
    retried = {case['display_name'] for case in report_testcases(path)
               if passed_on_retry(case)}
    families = defaultdict(lambda: {'checks': 0, 'failed': 0, 'retried': 0,
                                    'losses': []})
    for case in report_testcases(path):
        if case.get('fixture'):
            continue

        entry = families[family(case)]
        entry['checks'] += 1
        entry['failed'] += case['result'] in FAILED_RESULTS
        entry['retried'] += case['display_name'] in retried
        for variable, (value, unit) in figures_of(case).items():
            median = medians.get((figure_key(case), variable))
            if median:
                entry['losses'].append(loss(float(value), median, unit))

    return dict(families)


def describe_losses(losses):
    if not losses:
        return 'no figure'

    return (f'loss median {100 * statistics.median(losses):.0f} %, '
            f'max {100 * max(losses):.0f} %')


def run_line(name, kind, grade, families):
    '''One line: the run, and per family the checks failed and losses.'''
    what = GRADE_WORDS.get(kind, kind).format(grade=grade)
    parts = []
    for fam, entry in sorted(families.items()):
        retried = (f' ({entry["retried"]} passed on retry)'
                   if entry['retried'] else '')
        # a training run has no baseline yet: its losses say nothing
        losses = ('' if kind == 'train'
                  else f', {describe_losses(entry["losses"])}')
        parts.append(f'{fam} {entry["failed"]} of {entry["checks"]} failed'
                     f'{retried}{losses}')

    return f'{name:<10} {what:<16} ' + ('; '.join(parts) or 'no check ran')


def smallest_flagged(rows, kind, fam):
    '''The smallest slowdown of ``kind`` that failed a check of ``fam``,
    as a Markdown cell, with the grades flagged.'''
    graded = [(grade, families.get(fam)) for _, k, grade, families in rows
              if k == kind]
    ran = [(grade, entry) for grade, entry in graded if entry]
    if not ran:
        return 'not run'

    # a smaller share of a core is a larger slowdown; a larger hog too
    slowdown = ((lambda g: 100 - g) if kind == 'cpu' else (lambda g: g))
    flagged = sorted((slowdown(grade), grade, entry) for grade, entry in ran
                     if entry['failed'])
    if not flagged:
        largest = max(slowdown(grade) for grade, _ in ran)
        return f'none up to {largest} %'

    first, grade, entry = flagged[0]
    losses = entry['losses']
    seen = (f'; figures {describe_losses(losses)}' if losses else '')
    others = ', '.join(f'{s} %' for s, _, _ in flagged[1:])
    missed = [slowdown(g) for g, e in ran
              if not e['failed'] and slowdown(g) > first]
    note = f' (also {others})' if others else ''
    note += (f' (not at {", ".join(f"{m} %" for m in sorted(missed))})'
             if missed else '')
    return f'{first} % ({GRADE_WORDS[kind].format(grade=grade)}{seen}){note}'


def table(state, out=sys.stdout):
    '''Prints both Markdown tables; 0, or 2 when a report is missing.'''
    runs = read_runs(state)
    medians = training_medians(f'{state}/{name}.json'
                               for name, kind, _ in runs if kind == 'train')
    rows, status = [], 0
    for name, kind, grade in runs:
        if kind == 'train':
            continue

        try:
            rows.append((name, kind, grade,
                         outcome(f'{state}/{name}.json', medians)))
        except (OSError, ResultsError) as err:
            print(f'sensitivity_table: {name}: {err}', file=sys.stderr)
            status = 2

    fams = sorted({fam for *_, families in rows for fam in families})
    quiet = [families for _, kind, _, families in rows if kind == 'quiet']
    print('| family | checks | smallest CPU slowdown flagged '
          '| smallest hog flagged | false alarms in quiet runs |', file=out)
    print('|---|---|---|---|---|', file=out)
    for fam in fams:
        checks = max(f[fam]['checks'] for *_, f in rows if fam in f)
        alarms = sum(1 for f in quiet if f.get(fam, {}).get('failed'))
        print(f'| {fam} | {checks} | {smallest_flagged(rows, "cpu", fam)} '
              f'| {smallest_flagged(rows, "hog", fam)} '
              f'| {alarms} of {len(quiet)} |', file=out)

    print(file=out)
    print('| run | slowdown | ' + ' | '.join(fams) + ' |', file=out)
    print('|---|---|' + '---|' * len(fams), file=out)
    for name, kind, grade, families in rows:
        cells = []
        for fam in fams:
            e = families.get(fam)
            cells.append('–' if e is None else
                         f'{e["failed"]} of {e["checks"]} failed, '
                         f'{describe_losses(e["losses"])}')
        what = GRADE_WORDS.get(kind, kind).format(grade=grade)
        print(f'| {name} | {what} | ' + ' | '.join(cells) + ' |', file=out)

    return status


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('command', choices=('line', 'table'))
    parser.add_argument('state')
    parser.add_argument('name', nargs='?')
    args = parser.parse_args(argv)
    try:
        if args.command == 'table':
            return table(args.state)

        if not args.name:
            parser.error('line needs the run NAME')

        runs = {name: (kind, grade) for name, kind, grade
                in read_runs(args.state)}
        kind, grade = runs[args.name]
        medians = training_medians(f'{args.state}/{name}.json'
                                   for name, (k, _) in runs.items()
                                   if k == 'train')
        families = outcome(f'{args.state}/{args.name}.json', medians)
        print(run_line(args.name, kind, grade, families))
        return 0
    except (OSError, ResultsError, KeyError, ValueError) as err:
        print(f'sensitivity_table: {err}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
