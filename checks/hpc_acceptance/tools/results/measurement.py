'''Which figures are measurements.

A figure is a measurement when ReFrame recorded a finite number of 0 or
more for it. Anything else a report or a stored session can hold for a
figure is **no measurement**: NaN (a division by an empty count), +-inf (a
broken timer read as a rate), ``null``, a negative number, a string or
any other JSON value, or no entry at all where the figure is expected.
No measurement is never compared with anything (it would pass a band, or
move a median, a baseline or a fleet's band), and is never "passed": the
verdicts name it as a finding of its own, with what was recorded.

A figure of 0 is a measurement, the worst there is (a bandwidth of 0 lost
everything): it is judged, and always out
(:mod:`..references.noise`). A number no node could have delivered
(1e300 MB/s) is no measurement either: :mod:`.plausible` says which, and
:func:`.runs.figures_of` asks both.
'''

import math

#: Why a figure expected beside a node's others has no entry at all.
NOT_REPORTED = 'not reported'


def value(raw):
    '''``raw`` as a float if it is a measurement, else ``None``.'''
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return None

    raw = float(raw)
    return raw if math.isfinite(raw) and raw >= 0 else None


def why_not(raw):
    '''What ``raw`` is, for a figure that is no measurement: ``NaN``,
    ``+inf``, ``null``, ``negative (-3.2)``, ``not a number ('n/a')``.'''
    if raw is None:
        return 'null'

    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        if math.isnan(raw):
            return 'NaN'

        if math.isinf(raw):
            return '+inf' if raw > 0 else '-inf'

        return f'negative ({raw:g})'

    text = repr(raw)
    return f'not a number ({text[:40]}{"..." if len(text) > 40 else ""})'
