'''How soon a persistent shift across nights is reported, and how often a
quiet figure raises an alarm: the nightly's detection
(hpc_acceptance.tools.shifts.detect) side by side with Apache Otava's own
command line, on the same series in the same run.

    .venv/bin/python ci/bench/detection.py [--db RESULTS.db ...]
        [--model-series 200] [--nights 40] [--horizon 10] [--seed 39]

Two sets of series:

- *this machine*: every figure's nightly series stored in the results
  databases given (``ci/bench/repetition.sh`` makes one: the memory and
  STREAM checks run night after night), one value per session;
- *1 % noise*: ``--model-series`` series of ``--nights`` nights, each
  value 1 % (relative, normal) around its level.

For each series and each size (3, 5, 10, 20 %), a loss of that size is
injected from night ``n - horizon`` on (a rate lower, a time longer); the
nights until reported are the nights from the first shifted one to the
first on which the tool reports a change point at that night (within one
night), looking back :data:`WINDOW` nights each night, as the nightly
does; not within ``--horizon`` nights: never. A false alarm is a quiet
figure-night (the series as stored, each night from the seventh on) on
which the tool reports any change in its window.

The peer is Otava's ``otava analyze`` with its defaults (p-value 0.001,
window 50), given every window as a CSV test in one call. Prints a
Markdown table with the date and machine.
'''

import argparse
import datetime
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.shifts import detect

SIZES = (0.03, 0.05, 0.10, 0.20)

#: Nights the nightly looks back.
WINDOW = detect.WINDOW

#: Nights of history before the first night judged for false alarms.
FIRST_JUDGED = 6


def stored_series(path):
    '''``{name: (unit, [values])}`` of every figure in the results
    database at ``path``: one value per session, oldest first.'''
    os.environ['RFM_SQLITE_DB_FILE'] = str(path)
    from hpc_acceptance.tools.results.runs import (describe_key, figure_key,
                                                   stored_testcases)

    points = defaultdict(list)
    for case in stored_testcases('now-3650d:now'):
        if case.get('fixture'):
            continue

        for name, perf in (case.get('perfvalues') or {}).items():
            if perf and perf[0] is not None and float(perf[0]) > 0:
                key = (describe_key(figure_key(case)), case['identity'],
                       name.split(':')[-1], perf[4])
                points[key].append((case['job_completion_time_unix'],
                                    float(perf[0])))

    return {f'{k[0]} {k[2]} [{k[1]}]': (k[3], [v for _, v in sorted(p)])
            for k, p in points.items()}


def model_series(count, nights, seed):
    rng = random.Random(seed)
    return {f'model-{n}': ('MB/s', [100 * (1 + 0.01 * rng.gauss(0, 1))
                                    for _ in range(nights)])
            for n in range(count)}


def injected(values, unit, size, night):
    '''``values`` losing ``size`` of performance from ``night`` on.'''
    factor = 1 - size if noise.higher_is_better(unit) else 1 / (1 - size)
    return values[:night] + [v * factor for v in values[night:]]


class Windows:
    '''The windows each tool judges: ``(set, series, size or None,
    night)`` -> the window's values, and what the tools found.'''

    def __init__(self):
        self.values = {}
        self.ours = {}
        self.peer = {}

    def add(self, key, values):
        self.values[key] = values[-WINDOW:]

    def judge_ours(self):
        for key, values in self.values.items():
            found = detect.latest_shift(values)
            self.ours[key] = [] if found is None else [found.index]

    def judge_peer(self, otava):
        '''Every window as a CSV test of one ``otava analyze`` call.'''
        work = Path(tempfile.mkdtemp(prefix='detection-otava-'))
        try:
            names, tests = {}, {}
            start = datetime.datetime(2026, 1, 1,
                                      tzinfo=datetime.timezone.utc)
            for number, (key, values) in enumerate(self.values.items()):
                name = f't{number}'
                names[name] = key
                path = work / f'{name}.csv'
                path.write_text('time,value\n' + ''.join(
                    f'{(start + datetime.timedelta(days=d)).isoformat()},'
                    f'{v!r}\n' for d, v in enumerate(values)))
                tests[name] = {'type': 'csv', 'file': str(path),
                               'time_column': 'time', 'metrics': ['value']}

            config = work / 'otava.yaml'
            config.write_text(json.dumps({'tests': tests}))
            done = subprocess.run(
                [otava, 'analyze', *names, '--output', 'json'],
                env=dict(os.environ, OTAVA_CONFIG=str(config)),
                capture_output=True, text=True, cwd=work, check=True)
            for line in done.stdout.splitlines():
                if line.startswith('{'):
                    for name, points in json.loads(line).items():
                        self.peer[names[name]] = sorted(
                            change['index'] for point in points
                            for change in point['changes'])
        finally:
            shutil.rmtree(work)

        missing = set(self.values) - set(self.peer)
        if missing:
            sys.exit(f'detection: otava analysed {len(self.peer)} of '
                     f'{len(self.values)} windows')


def plan(windows, group, series, horizon):
    '''Add ``series``' windows to ``windows``: each size injected, each
    night after it up to ``horizon``; the quiet nights.'''
    for name, (unit, values) in series.items():
        night = len(values) - horizon
        if night < detect.MIN_BEFORE:
            continue

        for size in SIZES:
            shifted = injected(values, unit, size, night)
            for after in range(1, horizon + 1):
                windows.add((group, name, size, after),
                            shifted[:night + after])

        for last in range(FIRST_JUDGED, len(values)):
            windows.add((group, name, None, last), values[:last + 1])


def reported(found, values_count, after):
    '''Whether change points ``found`` (indices in the window) include
    the shifted night (``after`` nights before the window's end), within
    one night.'''
    night = values_count - after
    return any(abs(index - night) <= 1 for index in found)


def results(windows, group, horizon, tool):
    '''``({size: [nights until reported or None]}, alarms, quiet
    figure-nights)`` of ``tool`` (``ours`` or ``peer``) on ``group``.'''
    found = getattr(windows, tool)
    delays = defaultdict(dict)
    alarms = quiet = 0
    for key, values in windows.values.items():
        if key[0] != group:
            continue

        _, name, size, night = key
        if size is None:
            quiet += 1
            alarms += bool(found[key])
        elif reported(found[key], len(values), night):
            earlier = delays[size].get(name)
            delays[size][name] = night if earlier is None else \
                min(earlier, night)
        else:
            delays[size].setdefault(name, None)

    return ({size: list(by_name.values())
             for size, by_name in delays.items()}, alarms, quiet)


def _cell(delays, goal):
    got = sorted(d for d in delays if d is not None)
    if not delays:
        return '–'

    median = (f'{statistics.median(got):g}' if len(got) * 2 > len(delays)
              else 'never')
    within = sum(d is not None and d <= goal for d in delays)
    return f'{median} ({100 * within / len(delays):.0f} % ≤ {goal})'


def table(windows, groups, horizon):
    lines = ['| series | figures | shift | nights until reported, ours '
             '(share within goal) | Otava CLI | false alarms / 1000 quiet '
             'figure-nights, ours | Otava CLI |',
             '|---|---|---|---|---|---|---|']
    for group, goal in groups:
        ours, our_alarms, quiet = results(windows, group, horizon, 'ours')
        peer, peer_alarms, _ = results(windows, group, horizon, 'peer')
        figures = len({key[1] for key in windows.values
                       if key[0] == group})
        for number, size in enumerate(SIZES):
            alarms = (f'{1000 * our_alarms / quiet:.2f} '
                      f'({our_alarms} of {quiet})',
                      f'{1000 * peer_alarms / quiet:.2f} '
                      f'({peer_alarms} of {quiet})') \
                if number == 0 and quiet else ('', '')
            lines.append(f'| {group if number == 0 else ""} | '
                         f'{figures if number == 0 else ""} | '
                         f'{100 * size:.0f} % | '
                         f'{_cell(ours.get(size, []), goal)} | '
                         f'{_cell(peer.get(size, []), goal)} | '
                         f'{alarms[0]} | {alarms[1]} |')

    return lines


def _machine():
    model = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo') as fp:
            model = next(line.split(':', 1)[1].strip() for line in fp
                         if line.startswith('model name'))
    except (OSError, StopIteration):
        pass

    return f'{model}, {os.cpu_count()} CPUs, {platform.node()}'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--db', action='append', default=[],
                        help='a results database of this machine\'s '
                             'nightly runs (repeatable)')
    parser.add_argument('--model-series', type=int, default=200)
    parser.add_argument('--nights', type=int, default=40,
                        help='nights of each 1 %% noise series')
    parser.add_argument('--horizon', type=int, default=10,
                        help='nights a shift is followed')
    parser.add_argument('--seed', type=int, default=39)
    parser.add_argument('--otava', default=os.path.join(
        os.path.dirname(sys.executable), 'otava'),
        help="Otava's command (default: the one beside this Python)")
    args = parser.parse_args(argv)

    windows = Windows()
    groups = [('1 % noise', 3)]
    plan(windows, '1 % noise',
         model_series(args.model_series, args.nights, args.seed),
         args.horizon)
    for path in args.db:
        series = stored_series(path)
        longest = max((len(v) for _, v in series.values()), default=0)
        group = f'this machine ({os.path.basename(os.path.dirname(path))}, ' \
                f'{longest} nights)'
        plan(windows, group, series, args.horizon)
        groups.append((group, 5))

    windows.judge_ours()
    windows.judge_peer(args.otava)
    when = datetime.datetime.now(datetime.timezone.utc)
    print(f'{when:%Y-%m-%d %H:%M} UTC, {_machine()}; window {WINDOW} '
          f'nights, shifts followed {args.horizon} nights; '
          f'goal: 3 nights on 1 % noise, 5 on this machine')
    print('\n'.join(table(windows, groups, args.horizon)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
