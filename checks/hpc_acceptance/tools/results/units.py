'''The units figures are recorded in, and which of them are multiples of
one another.

Two figures are compared only in one unit. A report may hold a figure in
``GB/s`` on one node and in ``MB/s`` on another (a check's newer version,
a site's own parser), or a baseline in ``us`` and the run after the
upgrade in ``ns``: read as numbers alone, the first is a thousand times
slower and the second a thousand times faster. A unit is read here as a
quantity and the factor of its prefix (:func:`parse`): ``GB/s`` is
``1e9`` of ``B/s``, ``ns`` ``1e-9`` of ``s``. Units of one quantity are
converted (:func:`factor`); units this module does not know are compared
only when they are written alike, and a figure in another unit than the
one it is compared with is not compared at all (the callers say so).

The quantities: bytes per second (``B/s``, also bits: ``Gb/s`` is an
eighth of ``GB/s``, and binary prefixes, ``MiB/s``), floating-point
operations per second (``FLOP/s``, ``Gflop/s``, ``GFLOPS``), operations
(``Mop/s``, NPB's), updates (``GUP/s``, HPCC's RandomAccess), clock
frequency (``Hz``) and time (``s``, ``ms``, ``us``, ``usec``, ``µs``,
``ns``, ``ps``). A prefix is case-sensitive where SI's is (``m`` milli,
``M`` mega); ``k`` and ``K`` are both kilo. A prefix below one (milli,
micro, ...) is read only for a time: ``mb/s`` is someone's ``MB/s`` or
``Mb/s``, which no one can tell, so it is a unit of its own.
'''

import functools
import re

#: SI and binary prefixes, as factors.
PREFIXES = {'': 1.0, 'k': 1e3, 'K': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12,
            'P': 1e15, 'E': 1e18, 'm': 1e-3, 'u': 1e-6, 'n': 1e-9,
            'p': 1e-12, 'Ki': 2.0 ** 10, 'Mi': 2.0 ** 20, 'Gi': 2.0 ** 30,
            'Ti': 2.0 ** 40, 'Pi': 2.0 ** 50}

#: What each quantity is written as after its prefix: ``{quantity:
#: {spelling: factor}}`` (a bit is an eighth of a byte).
QUANTITIES = {
    'B/s': {'B/s': 1.0, 'Bytes/s': 1.0, 'Byte/s': 1.0,
            'b/s': 0.125, 'bit/s': 0.125, 'bps': 0.125},
    'FLOP/s': {'FLOP/s': 1.0, 'flop/s': 1.0, 'Flop/s': 1.0,
               'FLOPS': 1.0, 'flops': 1.0, 'Flops': 1.0},
    'op/s': {'op/s': 1.0, 'ops': 1.0, 'Op/s': 1.0, 'OP/s': 1.0},
    'UP/s': {'UP/s': 1.0, 'UPS': 1.0, 'up/s': 1.0},
    'Hz': {'Hz': 1.0},
    's': {'s': 1.0, 'sec': 1.0, 'secs': 1.0},
}

_MICRO = str.maketrans({'\N{MICRO SIGN}': 'u',
                        '\N{GREEK SMALL LETTER MU}': 'u'})
_SPELLINGS = sorted(((spelling, quantity, factor)
                     for quantity, spellings in QUANTITIES.items()
                     for spelling, factor in spellings.items()),
                    key=lambda item: -len(item[0]))
_PREFIX = re.compile(r'(Ki|Mi|Gi|Ti|Pi|[kKMGTPEmunp]?)')


def parse(unit):
    '''``(quantity, factor)`` of ``unit`` (``'GB/s'`` -> ``('B/s',
    1e9)``), or ``None`` for a unit this module does not know.'''
    return _parsed(str(unit or '').strip().translate(_MICRO))


@functools.lru_cache(maxsize=1024)
def _parsed(text):
    # a fleet's figures use a handful of units, each asked for at every
    # figure of every node (a tenth of judging 10,000 nodes)
    for spelling, quantity, factor in _SPELLINGS:
        if text.endswith(spelling):
            prefix = text[:-len(spelling)]
            if _PREFIX.fullmatch(prefix) and (
                    quantity == 's' or PREFIXES[prefix] >= 1):
                return quantity, PREFIXES[prefix] * factor

    return None


def factor(unit, to):
    '''What a value in ``unit`` is multiplied by to be in ``to``: ``1.0``
    where both are written alike, ``None`` where they are not multiples
    of one another (another quantity, or a unit this module does not
    know).'''
    if unit == to:
        return 1.0

    mine, theirs = parse(unit), parse(to)
    if mine is None or theirs is None or mine[0] != theirs[0]:
        return None

    return mine[1] / theirs[1]


def convert(value, unit, to):
    '''``value`` in ``unit`` as a value in ``to``, or ``None`` where the
    units are not multiples of one another (:func:`factor`) or there is
    no value.'''
    scale = factor(unit, to)
    return None if scale is None or value is None else value * scale


def most_common(units):
    '''The unit most of ``units`` (one per node or run) are in; on a tie
    the first in sorted order, whatever the order given.'''
    counts = {}
    for unit in units:
        counts[unit] = counts.get(unit, 0) + 1

    return min(counts, key=lambda unit: (-counts[unit], unit))


def other_unit(unit, to):
    '''Why a figure in ``unit`` is not compared with figures in ``to``:
    ``in 'widgets', not a multiple of the 'MB/s' compared with``.'''
    return (f"in {unit or 'no unit'!r}, not a multiple of the "
            f"{to or 'no unit'!r} it is compared with")
