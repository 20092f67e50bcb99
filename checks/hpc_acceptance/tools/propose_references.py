'''Propose a system's reference file from the sessions stored in ReFrame's
results database.

    hpc-acceptance propose-references --system NAME \\
        [--sessions 'now-30d:now'] [--floor 0.05] [--min-runs 3] [--write]

For every check, partition, environment and variant that passed in the
selected sessions, and for each of its performance variables:

- value = the median of the stored values;
- tolerance = twice the largest relative deviation from the median seen in
  those runs, but at least ``--floor`` (5 % by default), applied to both
  sides: ``[median, -tolerance, +tolerance, unit]``.

Entries need ``--min-runs`` values (3 by default); fewer are listed and left
out. Entries of the current file that the sessions do not cover are kept.
The command prints a diff against ``reference/<system>.yaml`` and writes the
file only with ``--write``. Bringing up a new system: run the suite N times,
then run this command.
'''

import argparse
import difflib
import os
import statistics
import sys

import yaml

from hpc_acceptance.core import references
from hpc_acceptance.tools.results import (ResultsError, figures_of,
                                          stored_testcases, variant_of)


def collect(testcases, system):
    '''Values of every performance variable per check variant.

    :returns: ``{(check, partition, environ, params): {variable:
        (values, unit)}}`` where ``params`` is a tuple of ``(name, value)``.
    '''
    collected = {}
    for case in testcases:
        if (case.get('fixture') or case.get('result') != 'pass' or
                case.get('system') != system):
            continue

        check, params = variant_of(case['display_name'])
        partition = f'{system}:{case["partition"]}'
        key = (check, partition, case['environ'], tuple(params.items()))
        figures = collected.setdefault(key, {})
        for variable, (value, unit) in figures_of(case).items():
            values, _ = figures.setdefault(variable, ([], unit))
            values.append(float(value))

    return collected


def tolerance(values, floor):
    '''Twice the widest relative deviation from the median, >= ``floor``.'''
    median = statistics.median(values)
    if median == 0:
        return floor

    widest = max(abs(v - median) for v in values) / abs(median)
    return round(max(floor, 2 * widest), 3)


def propose(collected, *, floor, min_runs):
    '''Reference data for ``collected``, plus notes on what was left out.'''
    proposed, notes = {}, []
    for (check, partition, environ, params), figures in sorted(
            collected.items()):
        where = '.'.join([check, partition, environ] +
                         [str(v) for _, v in params])
        refs = {}
        for variable, (values, unit) in sorted(figures.items()):
            if len(values) < min_runs:
                notes.append(f'{where}.{variable}: {len(values)} run(s), '
                             f'need {min_runs}: left out')
                continue

            tol = tolerance(values, floor)
            # a lower bound below zero would be meaningless
            refs[variable] = [statistics.median(values), -min(tol, 1.0), tol,
                              unit]

        if not refs:
            continue

        entry = proposed.setdefault(check, {
            '$index': ['$partition', '$environ'] + [p for p, _ in params]
        })
        level = entry.setdefault(partition, {}).setdefault(environ, {})
        for _, value in params[:-1]:
            level = level.setdefault(value, {})

        if params:
            level[params[-1][1]] = refs
        else:
            entry[partition][environ] = refs

    return proposed, notes


def merge(current, proposed):
    '''``current`` with every check that ``proposed`` covers replaced.'''
    merged = dict(current)
    merged.update(proposed)
    return merged


def render(data):
    return yaml.safe_dump(data, sort_keys=True, default_flow_style=None,
                          width=79)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='hpc-acceptance propose-references',
        description=__doc__.split('\n\n')[0],
    )
    parser.add_argument('--system', required=True,
                        help='system whose reference file to propose')
    parser.add_argument('--sessions', default='now-30d:now',
                        help="stored sessions to use: a time period, a "
                             "session UUID or a filter, as ReFrame's "
                             "--describe-stored-testcases takes "
                             "(default: %(default)s)")
    parser.add_argument('--floor', type=float, default=0.05,
                        help='smallest tolerance, as a fraction '
                             '(default: %(default)s)')
    parser.add_argument('--min-runs', type=int, default=3,
                        help='runs a figure needs to get a reference '
                             '(default: %(default)s)')
    parser.add_argument('--reference-dir', default=references.reference_dir(
                            os.environ.get('RFM_REFERENCE_PREFIX')),
                        help='where <system>.yaml lives (default: '
                             '%(default)s)')
    parser.add_argument('--write', action='store_true',
                        help='write the file instead of only showing the '
                             'diff')
    args = parser.parse_args(argv)
    if not 0 <= args.floor <= 1:
        parser.error(f'--floor {args.floor}: must be a fraction in [0, 1]')

    try:
        testcases = stored_testcases(args.sessions)
    except ResultsError as err:
        print(f'propose_references: {err}', file=sys.stderr)
        return 1

    proposed, notes = propose(collect(testcases, args.system),
                              floor=args.floor, min_runs=args.min_runs)
    for note in notes:
        print(f'note: {note}', file=sys.stderr)

    if not proposed:
        print(f'propose_references: no passed runs of system '
              f'{args.system!r} in sessions {args.sessions!r}',
              file=sys.stderr)
        return 1

    path = os.path.join(args.reference_dir, f'{args.system}.yaml')
    current = references.load(path) if os.path.exists(path) else {}
    merged = merge(current, proposed)
    references.check_shape(path, merged)
    old, new = render(current) if current else '', render(merged)
    sys.stdout.writelines(difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile=path if current else '/dev/null', tofile=path
    ))
    if args.write:
        with open(path, 'w') as fp:
            fp.write(new)

        print(f'wrote {path}', file=sys.stderr)

    return 0
