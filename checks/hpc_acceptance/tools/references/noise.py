'''The noise model behind proposed references and post-upgrade verdicts.

A figure's band around its baseline median is the widest of

- ``SPREAD_FACTOR`` robust standard deviations of the stored runs
  (1.4826 x the median absolute deviation, relative to the median): the
  run-to-run spread;
- ``RANGE_FACTOR`` times the largest deviation from the median that more
  than a tenth of the stored runs reach (with fewer than 10 runs: the
  largest): a figure seen to jump in quiet runs can jump as far again. The
  median absolute deviation alone ignores such a jump (of 3 runs, it
  ignores the largest deviation), as latency at a last-level cache shared
  with a neighbour's jobs does;
- the family's minimum band (:data:`FAMILY_FLOOR`, or a system's own
  floors learnt from its quiet repeats, :func:`parse_floors`):
  session-to-session drift that a few runs of one evening do not show.

The built-in floors (:data:`FAMILY_FLOOR`) were set from the noise of
2-core cloud guests: wide enough for the drift between their sessions of
quiet repeats, narrow beside what a bandwidth hog or a CPU hog on the
benchmark's core does to a figure. They are for a system that has not
measured its own (:mod:`.calibration`): on a bare-metal node that moves a
few per cent they hide a 20 % loss. The repeats and faults they were set
from, and the quiet-run proof of the whole model, are documented with date
and machine in ``ci/bench/README.md`` ("Measurement history");
``ci/bench/quiet_proof.sh`` measures them again on another machine.

Direction comes from the unit (:func:`higher_is_better`): a time or a
count of clock cycles, alone or per something, is better lower, in any of
its spellings (``s``, ``sec``, ``ms``, ``us``, ``usec``, ``µs``, ``ns``,
``cycles``, ``s/iter``, ``ns/access``); everything else (bandwidths and
other rates such as ``MB/s`` or ``iter/s``, % of peak, GHz) higher. Only
the worse side is a failure; a figure better than its band is reported as
``improved``. A figure of 0 (or below) is no measurement: a bandwidth of 0
lost everything, and a time of 0 is a broken timer or a run that did no
work. It is ``regressed`` whatever its band and direction.

Deviations are measured as factors (the logarithm of value / median), so
a rate and a time, two views of one measurement, deviate alike: twice the
time is half the bandwidth. A band is the fraction of performance a figure
may lose: 0.5 lets a bandwidth fall to half and a time grow to twice, and
calls a figure improved beyond twice the bandwidth or half the time. (On
a figure's own scale, a time band of +50 % is a bandwidth band of -33 %:
a time per iteration would fail where the bandwidth of the same runs
passed.) The factors of the spread and range terms apply to the
logarithms: a jump seen in quiet runs may recur half as far again, as a
factor.
'''

import functools
import math
import re
import statistics

#: Robust standard deviations a figure may move before it is noise.
SPREAD_FACTOR = 4

#: How far beyond the largest deviation seen in quiet runs a figure may
#: move before it is no longer noise.
RANGE_FACTOR = 1.5

#: Smallest band per check family: the fraction of performance a figure may
#: lose (0.25: a quarter of a bandwidth, or a third more time).
FAMILY_FLOOR = {
    'Stream': 0.25,
    'Memory': 0.15,
    'Network': 0.20,
    'Npb': 0.10,
    'Hpcc': 0.10,
}

#: Band of a check of no family above.
DEFAULT_FLOOR = 0.10

#: Units of a figure that is better lower: times and counts of clock
#: cycles, lower case, a micro sign written ``u``.
LOWER_IS_BETTER = frozenset({
    's', 'sec', 'secs', 'second', 'seconds',
    'ms', 'msec', 'msecs', 'millisecond', 'milliseconds',
    'us', 'usec', 'usecs', 'microsecond', 'microseconds',
    'ns', 'nsec', 'nsecs', 'nanosecond', 'nanoseconds',
    'ps', 'psec', 'picosecond', 'picoseconds',
    'min', 'mins', 'minute', 'minutes', 'h', 'hr', 'hrs', 'hour', 'hours',
    'cycle', 'cycles', 'clk', 'clks', 'clock', 'clocks', 'tick', 'ticks',
})

# What a figure in a unit counts: the one word before "/" or "per" (s of
# s/iter, MB of MB/s), a remark in brackets after it allowed ("usec (avg)").
_COUNTED = re.compile(r'\s*([^\W\d_]+)\s*(\(.*)?$')
_PER = re.compile(r'/|\bper\b')
_MICRO = str.maketrans({'\N{MICRO SIGN}': 'u',
                        '\N{GREEK SMALL LETTER MU}': 'u'})


def higher_is_better(unit):
    '''Whether a larger value of a figure in ``unit`` is the better one:
    not for a time or a count of cycles, alone or per something
    (:data:`LOWER_IS_BETTER`: ``usec``, ``µs``, ``s/iter``, ``ns per
    access``, in any case), for every other unit.'''
    return _higher_is_better(str(unit or '').lower())


@functools.lru_cache(maxsize=1024)
def _higher_is_better(unit):
    # asked at every comparison of every node's figure (a tenth of
    # judging a fleet), of a handful of units
    counted = _PER.split(unit.translate(_MICRO), 1)[0]
    word = _COUNTED.match(counted)
    return not (word and word[1] in LOWER_IS_BETTER)


def family_of(check):
    '''The family prefix of check class ``check`` (``StreamCheck`` ->
    ``Stream``), or ``None``.'''
    return next((prefix for prefix in FAMILY_FLOOR
                 if check.startswith(prefix)), None)


def family_floor(check, floors=None):
    '''The minimum band of check class ``check``: its family's entry in
    ``floors`` (a system's own, :func:`parse_floors`), else in
    :data:`FAMILY_FLOOR`.'''
    family = family_of(check)
    if floors and family in floors:
        return floors[family]

    return FAMILY_FLOOR.get(family, DEFAULT_FLOOR)


def parse_floors(text):
    '''``{family: fraction}`` from ``'Memory=0.5 Stream=0.25'`` (spaces or
    commas between entries; a family in any case, ``memory=0.5``, is read
    as spelled in :data:`FAMILY_FLOOR`).

    :raises ValueError: naming the entry that is not ``FAMILY=FRACTION``
        with a known family and a fraction in [0, 1].
    '''
    floors = {}
    spelled = {name.lower(): name for name in FAMILY_FLOOR}
    for entry in text.replace(',', ' ').split():
        given, _, value = entry.partition('=')
        family = spelled.get(given.lower())
        if family is None:
            raise ValueError(f'{entry!r}: unknown family {given!r} (one '
                             f'of {", ".join(FAMILY_FLOOR)}, in any case)')

        try:
            floors[family] = float(value)
        except ValueError:
            raise ValueError(f'{entry!r}: {value!r} is not a fraction'
                             ) from None

        if not 0 <= floors[family] <= 1:
            raise ValueError(f'{entry!r}: a fraction in [0, 1]')

    return floors


def _deviation(value, median):
    '''``value`` against ``median`` as the logarithm of their ratio (the
    relative change where either is not positive).'''
    if value > 0 and median > 0:
        return math.log(value / median)

    return change(value, median)


def _as_factor(width):
    '''The band ``width`` (a fraction of performance lost) as the largest
    deviation (:func:`_deviation`) within it.'''
    return math.inf if width >= 1 else -math.log(1 - width)


def band(values, floor):
    '''``(median, band)``: the fraction of performance a figure may lose
    against the median of ``values``, >= ``floor``.

    :raises ValueError: if ``values`` is empty.
    '''
    median = statistics.median(values)
    if median == 0:
        return median, floor

    deviations = sorted((abs(_deviation(v, median)) for v in values),
                        reverse=True)
    spread = SPREAD_FACTOR * 1.4826 * statistics.median(deviations)
    seen = RANGE_FACTOR * deviations[len(deviations) // 10]
    width = max(_as_factor(floor), spread, seen)
    return median, round(1 - math.exp(-width), 3)


def limits(median, width):
    '''``(low, high)`` on the figure's own scale: the values within
    ``width`` of ``median`` either way, as factors; ``high`` is ``None``
    where no value is above.'''
    worst = max(1 - width, 0.0)
    return median * worst, (median / worst if worst else None)


def change(value, median):
    '''Relative change of ``value`` from ``median`` on the figure's own
    scale, as people read it (0 if median is 0).'''
    return (value - median) / abs(median) if median else 0.0


def verdict(value, median, width, unit):
    '''``regressed``, ``improved`` or ``within noise``; a ``value`` of 0
    or below is ``regressed`` (no measurement, the worst value).'''
    if value <= 0:
        return 'regressed'

    delta = _deviation(value, median)
    if abs(delta) <= _as_factor(width):
        return 'within noise'

    better = delta > 0 if higher_is_better(unit) else delta < 0
    return 'improved' if better else 'regressed'


def tolerances(width, unit):
    '''``(lower, upper)`` of a reference entry, relative to its value:
    only the worse side is bounded, so an improvement never fails a check.
    Band 0.5 allows half the rate, or twice the time.'''
    if higher_is_better(unit):
        return -min(width, 1.0), None

    if width >= 1:
        return None, None

    return None, round(width / (1 - width), 3)
