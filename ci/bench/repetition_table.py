'''The night-to-night spread of each figure under each repetition setting
of ``ci/bench/repetition.sh``, from the results database it filled.

    .venv/bin/python ci/bench/repetition_table.py RESULTS.db

A setting is what the run made a parameter: the memory kernels'
``span_ms`` (1: the best of 5 back-to-back timed runs; 500, 2000: the best
of the runs over that span) and STREAM's ``ntimes`` (the best of that many
repetitions, the first not counted). Per figure and setting, over the
nights: the robust spread (1.4826 x the median absolute deviation of the
logarithms, in per cent) and the largest deviation from the median (per
cent). The last rows: per setting, the median over the figures of each, and
how many figures it was the narrowest for.
'''

import math
import re
import statistics
import sys
from collections import defaultdict

_SETTING = re.compile(r'--span-ms=(\d+)|ntimes=(\d+)')


def setting_of(identity):
    '''``span_ms=2000`` or ``ntimes=10`` from a figure's identity.'''
    match = _SETTING.search(identity or '')
    if match is None:
        return None

    return (f'span_ms={match[1]}' if match[1] else f'ntimes={match[2]}')


def spreads(values):
    logs = [math.log(v) for v in values]
    middle = statistics.median(logs)
    deviations = [abs(x - middle) for x in logs]
    return (100 * 1.4826 * statistics.median(deviations),
            100 * (math.exp(max(deviations)) - 1))


def series(path):
    '''``{(figure, setting): [values]}`` oldest first, from the results
    database ``path``.'''
    from hpc_acceptance.tools.results.runs import (describe_key, figure_key,
                                                   stored_testcases)

    found = defaultdict(list)
    for case in sorted(stored_testcases('now-3650d:now', path),
                       key=lambda c: c['job_completion_time_unix'] or 0):
        setting = setting_of(case.get('identity'))
        if case.get('fixture') or setting is None:
            continue

        check = describe_key(figure_key(case)).split(' @')[0]
        check = ' '.join(w for w in check.split()
                         if w.startswith('%threads') or '%' not in w)
        for name, perf in (case.get('perfvalues') or {}).items():
            if perf and perf[0] and float(perf[0]) > 0:
                found[f'{check} {name.split(":")[-1]}', setting].append(
                    float(perf[0]))

    return found


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        sys.exit('usage: repetition_table.py RESULTS.db')

    found = series(argv[0])
    figures = sorted({figure for figure, _ in found})
    settings = sorted({setting for _, setting in found},
                      key=lambda s: (s.split('=')[0], int(s.split('=')[1])))
    nights = min(len(v) for v in found.values()) if found else 0
    print(f'{len(figures)} figures, {nights} nights or more each; '
          f'robust spread / largest deviation, per cent')
    print('| figure | ' + ' | '.join(settings) + ' |')
    print('|---|' + '---|' * len(settings))
    by_setting, narrowest = defaultdict(list), defaultdict(int)
    for figure in figures:
        row = {s: spreads(found[figure, s]) for s in settings
               if len(found.get((figure, s), [])) >= 3}
        if not row:
            continue

        family = [s for s in row]
        best = min(family, key=lambda s: row[s][0])
        if len(family) > 1:
            narrowest[best] += 1

        for setting, (robust, _) in row.items():
            by_setting[setting].append(robust)

        print(f'| {figure} | ' + ' | '.join(
            f'{row[s][0]:.1f} / {row[s][1]:.1f}' if s in row else ''
            for s in settings) + ' |')

    print('| median of the figures | ' + ' | '.join(
        f'{statistics.median(by_setting[s]):.1f}' if by_setting[s] else ''
        for s in settings) + ' |')
    print('| narrowest for (figures) | ' + ' | '.join(
        str(narrowest[s]) for s in settings) + ' |')


if __name__ == '__main__':
    main()
