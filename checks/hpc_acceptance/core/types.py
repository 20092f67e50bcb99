'''Variable types that can be set from the command line with ``-S``.

ReFrame converts ``-S`` strings with the variable's type; a plain ``int``
variable turns ``-S repeats=many`` into a traceback without the variable's
name. These types reject a bad value with a message ReFrame prefixes with
the variable's name.
'''

import math

import reframe.utility.typecheck as typ


class _PositiveIntType(typ.ConvertibleType):
    def __instancecheck__(cls, value):
        return (isinstance(value, int) and not isinstance(value, bool) and
                value >= 1)


class PositiveInt(metaclass=_PositiveIntType):
    '''A whole number >= 1; ``-S NAME=VALUE`` accepts decimal digits.'''

    @classmethod
    def __rfm_cast_str__(cls, text):
        try:
            value = int(text)
        except ValueError:
            raise TypeError(f'{text!r} is not a whole number') from None

        if value < 1:
            raise TypeError(f'{text!r} is not >= 1')

        return value


class _FractionType(typ.ConvertibleType):
    def __instancecheck__(cls, value):
        return (isinstance(value, (int, float)) and
                not isinstance(value, bool) and 0 < value <= 1)


class Fraction(metaclass=_FractionType):
    '''A number in (0, 1]; ``-S NAME=VALUE`` accepts decimals like ``0.8``.'''

    @classmethod
    def __rfm_cast_str__(cls, text):
        try:
            value = float(text)
        except ValueError:
            raise TypeError(f'{text!r} is not a number') from None

        if not (math.isfinite(value) and 0 < value <= 1):
            raise TypeError(f'{text!r} is not in (0, 1]')

        return value
