'''The noise model behind proposed references and post-upgrade verdicts.

A figure's band around its baseline median is the widest of

- ``SPREAD_FACTOR`` robust standard deviations of the stored runs
  (1.4826 x the median absolute deviation, relative to the median): the
  run-to-run spread;
- ``RANGE_FACTOR`` times the largest deviation from the median that more
  than a tenth of the stored runs reach (with fewer than 10 runs: the
  largest): a figure seen to jump in quiet runs can jump as far again. The
  median absolute deviation alone ignores such a jump (of 3 runs, it
  ignores the largest deviation): on a KVM guest memory latency at the L3
  working set measured 17.9, 48.9 and 18.5 ns in three quiet runs and
  49.9 ns two runs later (neighbours on the host sharing its L3);
- the family's minimum band (:data:`FAMILY_FLOOR`, or a system's own
  floors learnt from its quiet repeats, :func:`parse_floors`):
  session-to-session drift that a few runs of one evening do not show.

The default floors come from quiet repeats on a 2-core KVM guest (issue 15:
STREAM triad 36.6/36.9/35.7 GB/s in three runs, then 32.0 and 34.7; copy
down to 27.8 from 36.3, i.e. -23 %; memory latency 131 ns against 124,
+6 %). The faults seen there move figures much further: a bandwidth hog
halves STREAM and read bandwidth (-50 %), a CPU hog on the benchmark's core
takes latency +22 % to +128 %. ``ci/bench/quiet_proof.sh`` measures them
again on another machine.

Direction comes from the unit: times (``s``, ``ms``, ``us``, ``ns``) and
latencies in ``cycles`` are better lower, everything else (bandwidths,
rates, % of peak) higher. Only the worse side is a failure; a figure better
than its band is reported as ``improved``.
'''

import statistics

#: Robust standard deviations a figure may move before it is noise.
SPREAD_FACTOR = 4

#: How far beyond the largest deviation seen in quiet runs a figure may
#: move before it is no longer noise.
RANGE_FACTOR = 1.5

#: Smallest band per check family, as a fraction of the median.
FAMILY_FLOOR = {
    'Stream': 0.25,
    'Memory': 0.15,
    'Network': 0.20,
    'Npb': 0.10,
    'Hpcc': 0.10,
}

#: Band of a check of no family above.
DEFAULT_FLOOR = 0.10

_LOWER_IS_BETTER = {'s', 'ms', 'us', 'ns', 'cycles'}


def higher_is_better(unit):
    '''Whether a larger value of a figure in ``unit`` is the better one.'''
    return unit not in _LOWER_IS_BETTER


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
    commas between entries).

    :raises ValueError: naming the entry that is not ``FAMILY=FRACTION``
        with a known family and a fraction in [0, 1].
    '''
    floors = {}
    for entry in text.replace(',', ' ').split():
        family, _, value = entry.partition('=')
        if family not in FAMILY_FLOOR:
            raise ValueError(f'{entry!r}: unknown family {family!r} (one '
                             f'of {", ".join(FAMILY_FLOOR)})')

        try:
            floors[family] = float(value)
        except ValueError:
            raise ValueError(f'{entry!r}: {value!r} is not a fraction'
                             ) from None

        if not 0 <= floors[family] <= 1:
            raise ValueError(f'{entry!r}: a fraction in [0, 1]')

    return floors


def band(values, floor):
    '''``(median, band)``: the band a fraction of the median, >= ``floor``.

    :raises ValueError: if ``values`` is empty.
    '''
    median = statistics.median(values)
    if median == 0:
        return median, floor

    mad = statistics.median(abs(v - median) for v in values)
    spread = SPREAD_FACTOR * 1.4826 * mad / abs(median)
    deviations = sorted((abs(v - median) / abs(median) for v in values),
                        reverse=True)
    seen = RANGE_FACTOR * deviations[len(deviations) // 10]
    return median, round(max(floor, spread, seen), 3)


def change(value, median):
    '''Relative change of ``value`` from ``median`` (0 if median is 0).'''
    return (value - median) / abs(median) if median else 0.0


def verdict(value, median, width, unit):
    '''``regressed``, ``improved`` or ``within noise``.'''
    delta = change(value, median)
    if abs(delta) <= width:
        return 'within noise'

    better = delta > 0 if higher_is_better(unit) else delta < 0
    return 'improved' if better else 'regressed'


def tolerances(width, unit):
    '''``(lower, upper)`` of a reference entry: only the worse side is
    bounded, so an improvement never fails a check.'''
    if higher_is_better(unit):
        return -min(width, 1.0), None

    return None, width
