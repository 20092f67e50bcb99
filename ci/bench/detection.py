'''How soon a shift across nights is reported, how steady and how whole it
is, and how often a quiet figure raises an alarm: the nightly's detection
(hpc_acceptance.tools.shifts.detect) side by side with Apache Otava's own
command line, on the same series in the same run.

    .venv/bin/python ci/bench/detection.py [--seeds 100] [--noise 3]
        [--nights 40] [--otava PATH]

The series are the patterns of otava-test-data 0.1.9 (its generators'
code reproduced here, numpy's ``default_rng(seed)`` drawn in the same
order, so that a seed gives the series the package gives), at level 100
with normal noise of ``--noise`` (per cent of the level), ``--nights``
nights, one series per seed:

- ``step_function`` -5 % and -10 % at night n - 10;
- ``regression_fix``: -10 % for 8 nights from night n - 18, then back;
- ``multiple_changes`` (two steps): -7 % at n - 20, -7 % more at n - 10;
- a slow drift (not a generator of the package): -0.5 % a night from
  night n - 20 on (-9.5 % at the last night);
- quiet: ``noise_normal``, ``banding`` (100 and 105 at random),
  ``outlier`` (one night at +30 %, at n / 2), ``variance_change`` (the
  noise three times larger from n / 2 on).

Each series is judged night after night, as the nightly does: every night
from the seventh on, each tool given the nights up to it (ours: all of
them; Otava's CLI: the last 30, its window, in one ``otava analyze`` call
with its defaults; the same analysis in process, checked against the CLI
on the windows of the first ``--cli-check`` seeds). A step is *reported* on a night when the tool reports a
change within 2 nights of it (ours: a shift whose first night away is
there; Otava: a change point there); a *false alarm* is a night of a quiet
series on which the tool reports any shift (ours) or change point
(Otava), each night counted, as a sysadmin reads them each morning. For
the regression then fix, the nights after the fix still reported; for the
two steps and the drift, the size reported on the last night against the
whole loss (ours: the shift; Otava: its last change point's), and the
share of nights, from the fifth after the first change on, on which a
change is reported at all (a steady verdict). Prints a
Markdown table with the date and machine.
'''

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy

from hpc_acceptance.tools.shifts import detect

#: Nights Otava's CLI is given, as the trend plots show.
OTAVA_WINDOW = 30

#: The first night judged (index), and how far from the true night a
#: reported change may be.
FIRST_JUDGED = 6
SLACK = 2

LEVEL = 100.0


def _noise(rng, sigma, length):
    return rng.normal(0, sigma, length)


def step(seed, sigma, length, size):
    rng = numpy.random.default_rng(seed)
    at = length - 10
    data = numpy.empty(length)
    data[:at], data[at:] = LEVEL, LEVEL * (1 + size)
    return data + _noise(rng, sigma, length), {'at': at, 'size': size}


def regression_fix(seed, sigma, length):
    rng = numpy.random.default_rng(seed)
    start, end = length - 18, length - 10
    data = numpy.full(length, LEVEL)
    data[start:end] = LEVEL * 0.9
    return data + _noise(rng, sigma, length), {'at': start, 'fixed': end,
                                               'size': -0.10}


def two_steps(seed, sigma, length):
    rng = numpy.random.default_rng(seed)
    first, second = length - 20, length - 10
    data = numpy.empty(length)
    data[:first], data[first:second], data[second:] = \
        LEVEL, LEVEL * 0.93, LEVEL * 0.86
    return data + _noise(rng, sigma, length), {'from': first, 'total': -0.14}


def drift(seed, sigma, length):
    rng = numpy.random.default_rng(seed)
    start = length - 20
    nights = numpy.arange(length)
    data = LEVEL * (1 - 0.005 * numpy.clip(nights - start, 0, None))
    return data + _noise(rng, sigma, length), {
        'from': start, 'total': -0.005 * (length - 1 - start)}


def quiet_noise(seed, sigma, length):
    rng = numpy.random.default_rng(seed)
    return rng.normal(LEVEL, sigma, length), {}


def banding(seed, sigma, length):
    rng = numpy.random.default_rng(seed)
    data = rng.choice([LEVEL, LEVEL * 1.05], size=length).astype(float)
    return data + _noise(rng, sigma, length), {}


def outlier(seed, sigma, length):
    rng = numpy.random.default_rng(seed)
    data = numpy.full(length, LEVEL) + _noise(rng, sigma, length)
    data[length // 2] = LEVEL * 1.3
    return data, {}


def variance_change(seed, sigma, length):
    rng = numpy.random.default_rng(seed)
    half = length // 2
    return numpy.concatenate([rng.normal(LEVEL, sigma, half),
                              rng.normal(LEVEL, 3 * sigma, length - half)]
                             ), {}


PATTERNS = [
    ('step -5 %', 'step', lambda s, n, l: step(s, n, l, -0.05)),
    ('step -10 %', 'step', lambda s, n, l: step(s, n, l, -0.10)),
    ('regression -10 % then fix', 'fix', regression_fix),
    ('two steps -7 %, -7 %', 'total', two_steps),
    ('slow drift -0.5 %/night', 'total', drift),
    ('quiet: normal noise', 'quiet', quiet_noise),
    ('quiet: banding 100/105', 'quiet', banding),
    ('quiet: one outlier +30 %', 'quiet', outlier),
    ('quiet: variance x3', 'quiet', variance_change),
]


def ours(values):
    '''``(reported, first night away, size)`` of our detection.'''
    found = detect.judge(values)
    if found is None or found.recovered:
        return False, None, None

    return True, found.left, found.size


def otava_api(values):
    '''``[(index, relative change)]`` of the change points ``otava
    analyze`` finds in ``values``: the computation its CLI makes
    (``compute_change_points`` with the CLI's defaults: window 50, p-value
    0.001, no minimum magnitude), in process: the CLI spends 130 ms a
    window around 3 ms of analysis.'''
    from otava.analysis import compute_change_points

    found, _ = compute_change_points(values, window_len=50, max_pvalue=0.001,
                                     min_magnitude=0.0)
    return sorted((p.index, p.stats.forward_rel_change())
                  for p in found)


def otava_cli(command, windows):
    '''``{key: [(index, relative change)]}`` of ``windows`` (``{key:
    values}``), as CSV tests of one ``otava analyze`` call.'''
    work = Path(tempfile.mkdtemp(prefix='detection-otava-'))
    found = {}
    try:
        names, tests = {}, {}
        start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
        for number, (key, values) in enumerate(windows.items()):
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
            [command, 'analyze', *names, '--output', 'json'],
            env=dict(os.environ, OTAVA_CONFIG=str(config)),
            capture_output=True, text=True, cwd=work, check=True)
        for line in done.stdout.splitlines():
            if line.startswith('{'):
                for name, points in json.loads(line).items():
                    found[names[name]] = sorted(
                        (change['index'],
                         float(change['forward_change_percent']) / 100)
                        for point in points for change in point['changes'])
    finally:
        shutil.rmtree(work)

    return found


def same_as_cli(command, windows):
    '''``(windows compared, windows that differ)``: the change points of
    :func:`otava_api` against the CLI's own on ``windows``.'''
    if not windows:
        return 0, 0

    cli = otava_cli(command, windows)
    differ = [key for key, values in windows.items()
              if [i for i, _ in otava_api(values)] !=
              [i for i, _ in cli.get(key, [])]]
    return len(windows), len(differ)


def _share(delays, goal):
    return sum(d is not None and d <= goal for d in delays) / len(delays)


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _pct(value):
    return '–' if value is None else f'{100 * value:+.1f} %'


def measure(seeds, sigma, length):
    '''``([(pattern, kind, {tool: result})], Otava's windows)``.'''
    judged, peer, windows = {}, {}, {}
    for name, kind, make in PATTERNS:
        for seed in range(seeds):
            values, truth = make(seed, sigma, length)
            for night in range(FIRST_JUDGED, length):
                window = [float(v) for v in values[:night + 1]]
                judged[name, seed, night] = (ours(window), truth)
                windows[name, seed, night] = window[-OTAVA_WINDOW:]
                peer[name, seed, night] = otava_api(
                    windows[name, seed, night])

    rows = []
    for name, kind, _ in PATTERNS:
        result = {}
        for tool in ('ours', 'otava'):
            delays, alarms, quiet, after_fix, fix_nights, sizes = \
                [], 0, 0, 0, 0, []
            for seed in range(seeds):
                delay = None
                for night in range(FIRST_JUDGED, length):
                    (reported, left, size), truth = judged[name, seed, night]
                    if tool == 'otava':
                        points = peer[name, seed, night]
                        offset = night + 1 - len(windows[name, seed, night])
                        points = [(offset + i, s) for i, s in points]
                        reported = bool(points)
                    at = truth.get('at')
                    if kind == 'quiet':
                        quiet += 1
                        alarms += reported
                        continue

                    if at is not None and night >= at and delay is None:
                        near = ([p for p, _ in points] if tool == 'otava'
                                else [left] if reported else [])
                        if any(abs(p - at) <= SLACK for p in near):
                            delay = night - at + 1
                    if kind == 'fix' and night >= truth['fixed'] + 2:
                        fix_nights += 1
                        after_fix += reported
                    if kind == 'total' and night >= truth['from'] + 5:
                        fix_nights += 1
                        after_fix += reported
                    if kind == 'total' and night == length - 1:
                        sizes.append((points[-1][1] if points else None)
                                     if tool == 'otava' else
                                     (size if reported else None))
                delays.append(delay)

            result[tool] = dict(delays=delays, alarms=alarms, quiet=quiet,
                                after_fix=after_fix, fix_nights=fix_nights,
                                sizes=sizes)
        rows.append((name, kind, result))

    return rows, windows


def _cell(kind, r, truth_total=None):
    if kind == 'quiet':
        return (f'{1000 * r["alarms"] / r["quiet"]:.2f} / 1000 nights '
                f'({r["alarms"]} of {r["quiet"]})')

    found = [d for d in r['delays'] if d is not None]
    text = (f'{100 * _share(r["delays"], 5):.0f} % ≤ 5 nights, '
            f'{100 * _share(r["delays"], 10):.0f} % ≤ 10; median '
            f'{_median(found) if found else "never"}')
    if kind == 'fix':
        text += (f'; after the fix: reported {r["after_fix"]} of '
                 f'{r["fix_nights"]} nights')
    if kind == 'total':
        said = [s for s in r['sizes'] if s is not None]
        text = (f'last night: reported in {len(said)} of '
                f'{len(r["sizes"])}, median {_pct(_median(said))} '
                f'(the whole loss {_pct(truth_total)})')
        text += (f'; reported on {100 * r["after_fix"] / r["fix_nights"]:.0f}'
                 f' % of the nights from the 5th after the first change')
    return text


def table(rows, seeds, sigma, length):
    lines = ['| pattern | ours | Otava CLI |', '|---|---|---|']
    for name, kind, result in rows:
        _, truth = dict((n, m) for n, _, m in PATTERNS)[name](
            0, sigma, length)
        lines.append(f'| {name} | {_cell(kind, result["ours"], truth.get("total"))} '
                     f'| {_cell(kind, result["otava"], truth.get("total"))} |')
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
    parser.add_argument('--seeds', type=int, default=100)
    parser.add_argument('--noise', type=float, default=3.0,
                        help='normal noise, per cent of the level')
    parser.add_argument('--nights', type=int, default=40)
    parser.add_argument('--otava', default=os.path.join(
        os.path.dirname(sys.executable), 'otava'),
        help="Otava's command (default: the one beside this Python)")
    parser.add_argument('--cli-check', type=int, default=2,
                        help="seeds of each pattern whose windows are also "
                             "given to Otava's CLI, its change points "
                             "compared with the in-process analysis's "
                             "(default: %(default)s)")
    args = parser.parse_args(argv)

    rows, windows = measure(args.seeds, args.noise, args.nights)
    checked, differ = same_as_cli(args.otava, {
        key: values for key, values in windows.items()
        if key[1] < args.cli_check})
    when = datetime.datetime.now(datetime.timezone.utc)
    print(f'{when:%Y-%m-%d %H:%M} UTC, {_machine()}; {args.seeds} seeds a '
          f'pattern, {args.nights} nights, {args.noise:g} % noise; ours: '
          f'Z_OPEN {detect.Z_OPEN}, Z_KEEP {detect.Z_KEEP}, MIN_BEFORE '
          f'{detect.MIN_BEFORE}; Otava CLI: its defaults, window '
          f'{OTAVA_WINDOW} nights, analysed in process ({checked} windows '
          f'also given to `otava analyze`: {differ} differ)')
    print('\n'.join(table(rows, args.seeds, args.noise, args.nights)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
