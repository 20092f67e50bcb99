'''When a shift across nights fails the nightly: the figure's reference
tolerance, the site's shift limit, or the figure's noise floor.

A shift to the worse side fails the run when the performance it lost (all
of it since the accepted level, :mod:`.detect`) is more than the figure's
reference tolerance (what its reference entry lets it lose: ``-lower`` of
a rate, ``upper / (1 + upper)`` of a time) or more than the site's shift
limit, whichever is smaller. The site sets its limit with
:data:`VARIABLE`: a fraction for every family (``0.05``), or one per
family (``Memory=0.05 Stream=0.08``; the families of
:data:`..references.noise.FAMILY_FLOOR`: ``Stream``, ``Memory``,
``Network``, ``Npb``, ``Hpcc``, in any case), or both (the family's entry
wins). Without a site limit for the figure's family, its noise floor takes
the limit's place: the system's own floor where it measured one
(:mod:`..references.calibration`), else the family's built-in one; a loss
beyond it is no noise.
'''

import math
from types import MappingProxyType
from typing import Mapping, NamedTuple, Optional, Tuple

from hpc_acceptance.core.paths import REFERENCE_DIR
from hpc_acceptance.tools.common import command_settings
from hpc_acceptance.tools.references import calibration, noise

#: The environment variable of the site's shift limit.
VARIABLE = command_settings.SHIFT_LIMIT


#: The reference directories without a prefix or a site directory.
CHECKOUT_DIRS = (str(REFERENCE_DIR),)


class LimitError(ValueError):
    '''The site's shift limit cannot be read; the message names the
    variable and the entry.'''


class Limits(NamedTuple):
    '''What a shift is judged against beside its reference tolerance:
    the site's shift limit (:data:`VARIABLE`) and the reference
    directories the systems' noise floors are read from.'''
    #: the site's limit for every family, else ``None``
    every: Optional[float] = None
    #: ``{family: limit}`` the site set
    families: Mapping = MappingProxyType({})
    #: the reference directories, in the order they are searched
    #: (:func:`hpc_acceptance.core.references.search_dirs`)
    reference_dirs: Tuple[str, ...] = CHECKOUT_DIRS


def site_limits(text, reference_dirs=CHECKOUT_DIRS):
    '''The :class:`Limits` of ``text``, the site's :data:`VARIABLE`,
    and ``reference_dirs``; ``text`` empty: no site limit.

    :raises LimitError: naming the entry that is neither a fraction nor
        ``FAMILY=FRACTION``.
    '''
    every, families = None, {}
    for entry in text.replace(',', ' ').split():
        try:
            if '=' in entry:
                families.update(noise.parse_floors(entry))
                continue

            every = float(entry)
        except ValueError as err:
            raise LimitError(f'{VARIABLE}={text!r}: {err}') from None

        if not 0 < every < 1:
            raise LimitError(f'{VARIABLE}={text!r}: {entry!r} is not a '
                             f'fraction between 0 and 1')

    return Limits(every, MappingProxyType(families), tuple(reference_dirs))


def loss(size, unit):
    '''The fraction of performance a shift of relative ``size`` lost
    (negative: it gained): a rate 7 % lower lost 0.07, a time 10 % longer
    lost 1 - 1/1.1.'''
    if noise.higher_is_better(unit):
        return -size

    return 1 - 1 / (1 + size)


def reference_tolerance(perf):
    '''The performance loss the reference entry of a figure allows, from
    ReFrame's ``[value, ref, lower, upper, unit, result]``; ``None`` where
    it bounds nothing on the worse side.'''
    _, ref, lower, upper, unit = perf[:5]
    if not _number(ref) or not ref or not isinstance(unit, str):
        return None

    if noise.higher_is_better(unit):
        return -float(lower) if _number(lower) else None

    return (float(upper) / (1 + float(upper))
            if _number(upper) and upper > -1 else None)


def _number(bound):
    '''Whether a reference entry's value or bound is one (a report handed
    over may hold anything there).'''
    return isinstance(bound, (int, float)) and not isinstance(bound, bool) \
        and math.isfinite(bound)


def of_settings(given):
    ''':func:`site_limits` of a command's settings ``given``
    (:class:`..common.command_settings.Settings`).

    :raises LimitError: as :func:`site_limits`.
    '''
    return site_limits(given.shift_limit,
                       calibration.reference_dirs(given))


def limit_of(check, perf, limits, floors=None, floors_kind='built-in'):
    '''``(limit, what it is)`` of a figure of ``check``: the smaller of its
    reference tolerance and the site's limit (:class:`Limits`), or where
    the site set none for its family, of its tolerance and its noise floor
    (``floors``: the system's own,
    :func:`..references.calibration.floors_of`; ``floors_kind`` says whose).'''
    site = limits.families.get(noise.family_of(check), limits.every)
    tolerance = reference_tolerance(perf)
    if site is not None:
        other = (site, f'the site\'s shift limit ({VARIABLE})')
    else:
        other = (noise.family_floor(check, floors),
                 f'its noise floor ({floors_kind})')

    # the tolerance first: named where the two are equal
    found = [(value, what) for value, what in
             ((tolerance, 'its reference tolerance'), other)
             if value is not None]
    return min(found, key=lambda item: item[0])
