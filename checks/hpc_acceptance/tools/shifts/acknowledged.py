'''The shifts a person acknowledged: ``shift-acks.json`` beside the results
database.

A shift stays reported (and, beyond its limit, fails every night) until its
figure's level returns or a person acknowledges it
(``hpc-acceptance shifts --ack FIGURE --why TEXT``). An acknowledgement
records the figure as the summary names it, the level it accepted (the
mean of the nights since the shift's last change point, in the figure's
unit) and over how many nights, the first night of that level, when, who
and why. From then on the figure's shifts are measured from that level.

The file is JSON, ``{"acknowledged": [{...}, ...]}``, written in one step;
one that cannot be read is an error naming the file and the entry, never
read as "nothing acknowledged".
'''

import datetime
import json
import math
import os
from dataclasses import asdict, dataclass

from hpc_acceptance.tools.results.atomic_file import write_atomically

FILE_NAME = 'shift-acks.json'

#: The longest text kept of who and why.
MAX_TEXT = 500


class AcknowledgedError(ValueError):
    '''The file cannot be read or an acknowledgement not made; the message
    names the file and what is wrong.'''


@dataclass(frozen=True)
class Acknowledged:
    #: the figure, as the summary names it
    figure: str
    #: the level accepted, in the figure's unit, and its nights
    level: float
    nights: int
    #: completion time of the first night at that level
    since: float
    #: when, who and why
    at: float
    by: str
    why: str

    @property
    def when(self):
        return datetime.datetime.fromtimestamp(
            self.at, datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')


def path_of(db_path):
    '''The file beside the results database ``db_path``.'''
    return os.path.join(os.path.dirname(os.path.abspath(db_path)),
                        FILE_NAME)


def _entry(path, number, raw):
    where = f'{path}: acknowledged[{number}]'
    if not isinstance(raw, dict):
        raise AcknowledgedError(f'{where}: not a mapping')

    kinds = {'figure': str, 'level': (int, float), 'nights': int,
             'since': (int, float), 'at': (int, float), 'by': str,
             'why': str}
    for key, kind in kinds.items():
        value = raw.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise AcknowledgedError(f'{where}: {key!r} missing or not '
                                    f'{getattr(kind, "__name__", "a number")}')

    if not (math.isfinite(raw['level']) and raw['level'] > 0 and
            raw['nights'] > 0):
        raise AcknowledgedError(f'{where}: level and nights must be '
                                f'positive')

    return Acknowledged(**{key: raw[key] for key in kinds})


def read(path):
    '''The :class:`Acknowledged` of the file at ``path``, oldest first;
    none where there is no file.

    :raises AcknowledgedError: naming the file and the entry at fault.
    '''
    if not os.path.exists(path):
        return []

    try:
        with open(path) as fp:
            data = json.load(fp)
    except (OSError, ValueError) as err:
        raise AcknowledgedError(f'{path}: {err}') from None

    entries = data.get('acknowledged') if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise AcknowledgedError(f'{path}: no "acknowledged" list')

    return [_entry(path, number, raw) for number, raw in enumerate(entries)]


def latest(entries):
    '''``{figure: its latest Acknowledged}``.'''
    found = {}
    for entry in sorted(entries, key=lambda e: e.at):
        found[entry.figure] = entry

    return found


def _text(what, value):
    value = ' '.join(str(value).split())
    if not value:
        raise AcknowledgedError(f'{what}: say it (it is kept with the '
                                f'acknowledgement)')

    if len(value) > MAX_TEXT or not value.isprintable():
        raise AcknowledgedError(f'{what}: at most {MAX_TEXT} printable '
                                f'characters')

    return value


def add(path, figure, level, nights, since, by, why, at=None):
    '''Record an acknowledgement in the file at ``path``; returns it.'''
    entry = Acknowledged(figure=figure, level=float(level),
                         nights=int(nights), since=float(since),
                         at=float(at if at is not None else
                                  datetime.datetime.now(
                                      datetime.timezone.utc).timestamp()),
                         by=_text('--by', by), why=_text('--why', why))
    entries = read(path) + [entry]
    write_atomically(path, json.dumps(
        {'acknowledged': [asdict(e) for e in entries]}, indent=1) + '\n')
    return entry
