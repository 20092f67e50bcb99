'''Whether one figure's series of nights ends away from its accepted level,
by how much in all, and the change points on the way.

The series is worked on as logarithms (a rate and a time of the same runs
shift alike). Three steps:

1. *The figure's own noise* (:func:`noise`): the robust standard deviation
   of one night, from the differences of consecutive nights (a step or a
   slow drift moves few of them) and from the nights about their levels
   (step 2, cut more finely), whichever is larger.
2. *Its levels* (:func:`segments`): binary segmentation. A stretch of
   nights is cut where the difference of the mean levels on either side,
   against its standard error (``noise * sqrt(1/n1 + 1/n2)``), is largest,
   if it is at least :data:`Z_SPLIT`; each side is cut again, down to
   :data:`MIN_SEGMENT` nights. The nights are first clipped to
   :data:`CLIP` noises about the median of their neighbours, so that one
   odd night neither makes nor hides a level.
3. *The shift* (:func:`judge`): the last level against the accepted one
   (the level a person acknowledged, :mod:`.acknowledged`; else the first
   level of :data:`MIN_BEFORE` nights or more of the series, a long
   baseline), by the difference of their means against its standard
   error: the nights at a new level add up (ten nights of a 5 % step at
   3 % noise are 5.4 standard errors after a long baseline), where one
   night never could. A shift is reported from :data:`Z_OPEN` standard
   errors (raised Student-like on a short series) and
   :func:`min_size` on, and stays reported (hysteresis) until the nights
   since the last change point are back within :data:`Z_KEEP` standard
   errors or half the minimum size of the accepted level: a staircase or a
   slow drift is judged by its total from the accepted level, and a night
   near the threshold does not turn a failed verdict into a pass and back.
   A last level back at the accepted one after a reported shift is a
   recovery, not a shift.

The thresholds were set on generated series of 3 % noise and measured on
the otava-test-data patterns (step, regression then fix, banding, outlier,
variance change, two steps, slow drift): ``ci/bench/detection.py``,
results in ``ci/bench/README.md`` ("Shifts across nights"). The method gives a number
of standard errors, not a calibrated confidence (the levels were chosen by
looking at the same nights), and none is stated.
'''

import math
from dataclasses import dataclass, field
from typing import Tuple

import numpy

#: Standard errors between two levels for segmentation to cut there.
Z_SPLIT = 3.5

#: Standard errors between levels cut to measure the noise about them: a
#: level missed would count its step as noise.
Z_LEVELS = 3.0

#: Standard errors between the last level and the accepted one for a shift
#: to be reported ...
Z_OPEN = 4.25

#: ... and below which a reported one has ended (the level returned).
Z_KEEP = 2.5

#: Nights back a reported shift is followed (:func:`judge`).
REPLAY = 10

#: The fewest nights of a level.
MIN_SEGMENT = 2

#: Nights at the new level, tonight included, before a shift is reported.
MIN_AFTER = 2

#: Nights of the accepted level a shift is judged against (4 or 10 made
#: no difference on 300 quiet series' first nights: the thresholds' rise
#: on a short series keeps them quiet; ci/bench/README.md).
MIN_BEFORE = 10

#: The smallest shift reported, whatever the figure's noise ...
MIN_SHIFT = 0.01

#: ... and in noises of one night: a long run of nights tells a shift far
#: smaller than one night's scatter from noise, too small to act on.
SIZE_FACTOR = 1.0

#: Noises about the median of its neighbours a night is clipped to.
CLIP = 3.0

#: Nights a series is read over (a year of nights: the accepted level is
#: the first of them unless a person acknowledged a later one).
HISTORY_NIGHTS = 365

#: The change points listed: those of the last nights (the trend plots').
WINDOW = 30

_MAD_TO_SD = 1.4826


@dataclass(frozen=True)
class ChangePoint:
    #: index of the first night at the new level
    index: int
    #: relative change of the level from the one before
    size: float


@dataclass(frozen=True)
class Finding:
    '''The last level of a series against its accepted level.'''
    #: index of the first night at the last level
    index: int
    #: relative change of the last level from the accepted one
    #: (``-0.07``: 7 % less), its whole change however many steps it took
    size: float
    #: the difference of the two levels in standard errors
    errors: float
    #: nights of the accepted level, and at the last level
    before: int
    after: int
    #: ``acknowledged`` or ``first nights`` (the series' first level)
    accepted: str
    #: the figure's noise of one night (relative)
    noise: float
    #: the last level is back at the accepted one after a reported shift
    recovered: bool = False
    #: index of the first night away from the accepted level (of the
    #: level that recovered, for a recovery)
    left: int = 0
    #: every change point of the last :data:`WINDOW` nights
    points: Tuple[ChangePoint, ...] = field(default_factory=tuple)


def _robust_sd(deviations):
    '''The standard deviation of ``deviations`` (about 0) with the few
    beyond :data:`CLIP` robust ones (1.4826 x their median absolute value)
    clipped there: nearly as efficient as the plain one on normal noise,
    where the median alone needs three times the nights to be as sure.'''
    deviations = numpy.abs(numpy.asarray(deviations, dtype=float))
    mad = _MAD_TO_SD * float(numpy.median(deviations))
    if mad <= 0:
        return 0.0

    clipped = numpy.minimum(deviations, CLIP * mad)
    # clipping at 3 standard deviations leaves 0.986 of a normal's variance
    return float(numpy.sqrt(numpy.mean(clipped ** 2) / 0.986))


def _clipped(logs, sigma):
    '''Each night clipped to :data:`CLIP` noises about the median of the
    nights around it (two each side, fewer at the ends).'''
    if sigma <= 0:
        return logs.copy()

    count = len(logs)
    middle = numpy.empty(count)
    if count >= 5:
        middle[2:count - 2] = numpy.median(
            numpy.lib.stride_tricks.sliding_window_view(logs, 5), axis=1)
    for i in {0, 1, count - 2, count - 1} & set(range(count)):
        middle[i] = numpy.median(logs[max(0, i - 2):i + 3])

    return numpy.clip(logs, middle - CLIP * sigma, middle + CLIP * sigma)


def _best_cut(sums, lo, hi, sigma):
    '''``(z, index)`` of the cut of ``[lo, hi)`` with the largest
    difference of means in standard errors.'''
    cuts = numpy.arange(lo + MIN_SEGMENT, hi - MIN_SEGMENT + 1)
    if len(cuts) == 0:
        return 0.0, None

    left = (sums[cuts] - sums[lo]) / (cuts - lo)
    right = (sums[hi] - sums[cuts]) / (hi - cuts)
    errors = numpy.abs(right - left) / (
        sigma * numpy.sqrt(1.0 / (cuts - lo) + 1.0 / (hi - cuts)))
    best = int(numpy.argmax(errors))
    return float(errors[best]), int(cuts[best])


def segments(logs, sigma, threshold=None):
    '''``[(start, end)]`` of the levels of ``logs`` (binary segmentation,
    the module's step 2), in order; cut at ``threshold`` standard errors
    (default: :data:`Z_SPLIT`, raised for the nights the noise was
    estimated from).'''
    if sigma <= 0:
        return [(0, len(logs))]

    if threshold is None:
        threshold = _student(Z_SPLIT, len(logs) - 1)

    sums = numpy.concatenate([[0.0], numpy.cumsum(logs)])
    cuts, todo = [], [(0, len(logs))]
    while todo:
        lo, hi = todo.pop()
        z, cut = _best_cut(sums, lo, hi, sigma)
        if cut is not None and z >= threshold:
            cuts.append(cut)
            todo += [(lo, cut), (cut, hi)]

    bounds = [0] + sorted(cuts) + [len(logs)]
    return list(zip(bounds[:-1], bounds[1:]))


def noise(logs):
    '''The robust standard deviation of one night of ``logs`` (the module's
    step 1): a first guess from the median difference of consecutive
    nights, the levels it cuts (:func:`segments` at :data:`Z_LEVELS`),
    then the larger of the estimates from the differences within levels
    and from the nights about their levels: either alone, on some quiet
    series, is low enough to raise false alarms, and a step left among
    the differences inflates it on a short series.'''
    if len(logs) < 3:
        return 0.0

    differences = numpy.diff(logs)
    guess = _MAD_TO_SD * float(numpy.median(numpy.abs(differences))) / \
        math.sqrt(2)
    if guess <= 0:
        return 0.0

    levels = segments(_clipped(logs, guess), guess, Z_LEVELS)
    cuts = {a for a, _ in levels[1:]}
    within = [d for i, d in enumerate(differences) if i + 1 not in cuts]
    residuals = numpy.concatenate([logs[a:b] - logs[a:b].mean()
                                   for a, b in levels])
    # a level's mean sits closer to its nights than the true level
    count = len(logs)
    return max(_robust_sd(within) / math.sqrt(2),
               _robust_sd(residuals) *
               math.sqrt(count / max(1, count - len(levels))))


def _student(z, freedom):
    '''The threshold of Student's t with ``freedom`` degrees of freedom
    that normal noise exceeds as rarely as it exceeds ``z`` standard
    deviations (Cornish-Fisher): the noise is estimated from the nights
    themselves, and underestimated on some series; few nights, a higher
    threshold.'''
    freedom = max(freedom, 3)
    return (z + (z ** 3 + z) / (4 * freedom) +
            (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * freedom ** 2))


def min_size(sigma):
    '''The smallest shift reported on a figure of noise ``sigma``.'''
    return max(MIN_SHIFT, math.expm1(SIZE_FACTOR * sigma))


def _errors(difference, after, before, sigma):
    '''A difference of levels of ``after`` and ``before`` nights in
    standard errors.'''
    return abs(difference) / (sigma * math.sqrt(1.0 / after + 1.0 / before))


def _open(difference, after, before, sigma, freedom, was_open):
    errors = _errors(difference, after, before, sigma)
    smallest = math.log1p(min_size(sigma))
    if was_open:
        return errors >= _student(Z_KEEP, freedom) and \
            abs(difference) >= smallest / 2

    return errors >= _student(Z_OPEN, freedom) and \
        abs(difference) >= smallest


def judge(values, accepted=None, replay=None):
    '''The :class:`Finding` of ``values`` (positive, one a night, oldest
    first, tonight last): a shift of the last level from the accepted one,
    or a recovery from one; ``None`` where neither.

    ``accepted``: ``(level, nights, index)`` a person acknowledged (the
    level in the figure's unit, the nights it was measured over, the index
    of its first night in ``values``), or ``None`` for the first level of
    the series.

    A shift reported last night stays reported while tonight's nights are
    within :data:`Z_KEEP`, with the levels cut more finely (at
    :data:`Z_LEVELS`): last night's verdict is judged the same way, back
    :data:`REPLAY` nights at most (``replay``), so that what was reported
    is not dropped because tonight's segmentation drew its levels
    otherwise.
    '''
    replay = REPLAY if replay is None else replay
    found = _judge(values, accepted)
    if (found is not None and not found.recovered) or replay <= 0:
        return found

    kept = _judge(values, accepted, Z_LEVELS, still_open=True)
    if kept is None or kept.recovered:
        return found

    last_night = judge(list(values)[:-1], accepted, replay - 1)
    return kept if last_night is not None and not last_night.recovered \
        else found


def _judge(values, accepted=None, threshold=None, still_open=False):
    ''':func:`judge` of tonight alone: levels cut at ``threshold``
    (default :data:`Z_SPLIT`, raised for few nights), a shift reported
    last night ``still_open``.'''
    values = [float(v) for v in values][-HISTORY_NIGHTS:]
    least = MIN_BEFORE if accepted is None else 2
    if len(values) < least + MIN_AFTER or min(values) <= 0:
        return None

    raw = numpy.log(values)
    sigma = noise(raw)
    if sigma <= 0:
        return None

    logs = _clipped(raw, sigma)
    levels = segments(logs, sigma, threshold)

    if accepted is None:
        base = next((i for i, (a, b) in enumerate(levels)
                     if b - a >= MIN_BEFORE), None)
        if base is None:
            return None

        a, b = levels[base]
        base_level, base_nights, kind = float(logs[a:b].mean()), b - a, \
            'first nights'
        later = levels[base + 1:]
    else:
        level, base_nights, since = accepted
        if not level > 0 or not base_nights > 0:
            return None

        base_level, kind = math.log(level), 'acknowledged'
        later = [(max(a, since), b) for a, b in levels if b > since]

    if not later or later[-1][1] - later[-1][0] < MIN_AFTER:
        return None

    freedom = len(values) - len(levels)
    sums = numpy.concatenate([[0.0], numpy.cumsum(logs)])
    # each level after the accepted one, in turn: is it away from it?
    was_open, left, excursion = still_open, None, None
    for number, (a, b) in enumerate(later):
        last = number == len(later) - 1
        nights = range(a + MIN_AFTER, b + 1) if last else [b]
        for end in nights:
            difference = float(sums[end] - sums[a]) / (end - a) - base_level
            still = _open(difference, end - a, base_nights, sigma,
                          freedom, was_open)
            if still and (not was_open or left is None):
                left = a
            was_open = still

        if was_open:
            excursion = number

    a, b = later[-1]
    difference = float(logs[a:b].mean()) - base_level
    errors = _errors(difference, b - a, base_nights, sigma)
    points = tuple(
        ChangePoint(start, math.expm1(float(logs[start:end].mean() -
                                            logs[prev:start].mean())))
        for (prev, _), (start, end) in zip(levels, levels[1:])
        if start >= len(values) - WINDOW)
    found = dict(index=a, errors=errors, after=b - a, accepted=kind,
                 before=base_nights,
                 noise=sigma, points=points)
    if was_open:
        return Finding(size=math.expm1(difference), left=left, **found)

    if excursion is not None:
        ea, eb = later[excursion]
        return Finding(size=math.expm1(float(logs[ea:eb].mean()) -
                                       base_level),
                       recovered=True, left=ea, **found)

    return None


def latest_shift(values, accepted=None):
    ''':func:`judge` of ``values`` where it reports a shift (not a
    recovery), else ``None``.'''
    found = judge(values, accepted)
    return found if found is not None and not found.recovered else None
