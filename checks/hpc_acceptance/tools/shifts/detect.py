'''The latest persistent shift of one figure's series of nights, found by
Apache Otava's change-point detection.

Otava (``otava.analysis.compute_change_points``) is E-Divisive means over
sliding windows, each candidate change point kept only where Student's
t-test between the nights before and after it gives a p-value below
:data:`MAX_PVALUE` (Fleming et al., "Hunter: Using Change Point Detection
to Hunt for Performance Regressions", ICPE 2023). On top of it, a shift
is reported only when it is what a sysadmin would act on:

- *persistent*: the series' last change point, with at least
  :data:`MIN_NIGHTS` nights after it, and the last :data:`MIN_NIGHTS`
  nights, tonight included, all nearer the new level than the old one
  (one odd night is the nightly's band and retry's business, and a night
  back at the old level ends a dip, not a shift);
- *on a history*: at least :data:`MIN_BEFORE` nights before it;
- *larger than the figure's own scatter*: at least :data:`MIN_SHIFT`, and
  at least :data:`SCATTER_FACTOR` robust standard deviations of the nights
  before and after it, each about its own level (a figure that wanders, as
  memory bandwidth does in a busy virtual machine, is not said to have
  shifted each time it wanders).

Sizes are relative changes of the medians of the nights after and before
(``-0.07``: 7 % less); the confidence is ``1 - p``.
'''

import math
import statistics
from dataclasses import dataclass

#: The p-value below which Otava keeps a change point: Otava's own default
#: (0.001) raised about one alarm per thousand quiet nights of a 1 %-noise
#: figure (ci/bench/README.md, "Shifts across nights"), a fifth of it
#: about 0.4, while a 5 % shift is still reported within 3 nights.
MAX_PVALUE = 0.0002

#: Nights a series is searched over (the trend plots' 30).
WINDOW = 30

#: Nights after a change point, tonight included, before it is persistent.
MIN_NIGHTS = 2

#: Nights before a change point that it is judged against.
MIN_BEFORE = 4

#: The smallest shift reported, whatever the figure's scatter.
MIN_SHIFT = 0.02

#: Robust standard deviations of the nights before that a shift exceeds.
SCATTER_FACTOR = 3


@dataclass(frozen=True)
class ChangePoint:
    #: index of the first night at the new level
    index: int
    #: relative change of the medians, after against before
    size: float
    #: 1 - Otava's p-value
    confidence: float
    #: the nights before it (since the change point before, if any)
    before: int
    #: the nights from it to the last one
    after: int


def _scatter(*segments):
    '''Robust relative standard deviation of the nights of ``segments``
    about their own levels: 1.4826 x the median absolute deviation of the
    logarithms, each from its segment's median. A few quiet nights before
    a change alone can understate a figure's scatter.'''
    deviations = []
    for values in segments:
        logs = [math.log(v) for v in values]
        middle = statistics.median(logs)
        deviations += [abs(x - middle) for x in logs]

    return 1.4826 * statistics.median(deviations)


def change_points(values, max_pvalue=MAX_PVALUE, window=WINDOW):
    '''``[(index, p-value)]`` of Otava's change points of ``values``.'''
    from otava.analysis import compute_change_points

    found, _ = compute_change_points([float(v) for v in values],
                                     window_len=window,
                                     max_pvalue=max_pvalue)
    return [(point.index, float(point.stats.pvalue)) for point in found]


def latest_shift(values, max_pvalue=MAX_PVALUE, window=WINDOW):
    '''The :class:`ChangePoint` of the persistent shift that ``values``
    (positive, oldest first, the last night last) end on, or ``None``.'''
    values = [float(v) for v in values][-window:]
    if len(values) < MIN_BEFORE + MIN_NIGHTS or min(values) <= 0:
        return None

    points = change_points(values, max_pvalue, window)
    if not points or len(values) - points[-1][0] < MIN_NIGHTS:
        return None

    index, pvalue = points[-1]
    start = points[-2][0] if len(points) > 1 else 0
    before, after = values[start:index], values[index:]
    if len(before) < MIN_BEFORE:
        return None

    size = statistics.median(after) / statistics.median(before) - 1
    step = math.log1p(size)
    if abs(size) < MIN_SHIFT or \
            abs(step) < SCATTER_FACTOR * _scatter(before, after):
        return None

    # past the middle of the two levels, on the new side
    middle = math.log(statistics.median(before)) + step / 2
    if any((math.log(v) - middle) * step <= 0 for v in after[-MIN_NIGHTS:]):
        return None

    return ChangePoint(index=index, size=size, confidence=1 - pvalue,
                       before=len(before), after=len(after))
