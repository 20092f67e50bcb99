'''JSON read and written at a fleet night's size: by orjson, where it
gives what Python's ``json`` gives, else by Python's ``json``.

A fleet night of 10,000 nodes is about 410,000 test case records that
the coordinator reads and writes once (:mod:`.report_text`): with
Python's ``json`` that alone was more than the coordinator's budget;
orjson does the same in a fraction (``ci/bench/README.md``, "Where a
record's time goes" and "orjson, our insert, the records kept once").

orjson refuses what Python's ``json`` takes and ReFrame writes: ``NaN``
and ``Infinity`` (a figure a benchmark printed as ``nan``), a number too
large for a double, a lone surrogate escape, nesting past 1,024 levels.
Such a file is read by Python's ``json``, its non-finite numbers as
:class:`NonFinite`; such a value is written by Python's ``json`` too, as
it was read. orjson would write a non-finite ``float`` as ``null``: a
value made here is never one. One difference stays: an integer of more
than 64 bits is read by orjson as a float, where Python's ``json`` keeps
it whole; what is checked at the door is what is written.
'''

import json
import math
import sys

import orjson

#: The most levels of lists and objects orjson reads.
DEEPEST = 1024


class NonFinite(float):
    '''A ``NaN`` or an infinity read from a file: a ``float``, marked so
    that it is written back as it was read (orjson writes no subclass of
    ``float``; Python's ``json`` writes it as ``NaN`` or ``Infinity``).'''


def _number(text):
    value = float(text)
    return value if math.isfinite(value) else NonFinite(text)


def loads(data):
    '''The JSON ``data`` (bytes) parsed, as Python's ``json`` parses it
    (but an integer of more than 64 bits: a float).

    :raises ValueError: if it is no JSON (:class:`UnicodeDecodeError`:
        no UTF-8).
    :raises RecursionError: where Python's ``json`` gives up on its
        nesting.
    '''
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass

    return json.loads(data.decode('utf-8'), parse_constant=NonFinite,
                      parse_float=_number)


def encoded(value):
    '''``value`` as compact JSON text in UTF-8, as Python's ``json`` reads
    it back (:func:`loads`: a :class:`NonFinite` is written as ``NaN`` or
    ``Infinity``).'''
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        pass

    # orjson writes 255 levels of nesting and reads 1,024: what it read
    # (a node's report nested 1,000 deep), Python's json writes, given
    # the levels to go down
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + DEEPEST)
    try:
        return json.dumps(value, separators=(',', ':')).encode('ascii')
    finally:
        sys.setrecursionlimit(limit)
