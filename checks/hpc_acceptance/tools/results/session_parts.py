'''A night too large for one value of the results database, stored as
several sessions: its parts.

ReFrame keeps a session's whole report as one SQLite value, and SQLite
takes at most 1,000,000,000 bytes in one (as it is built by default). A
test case record is about 4 KB, so a fleet night of about 240,000 of them
(10,000 nodes of 24, 6,000 of the nightly set's 41) does not fit. Such a
night is stored as parts (:func:`split`):

- the first under the night's own UUID, its session information the
  night's with :data:`PARTS`, how many there are;
- each other under a UUID made from the night's (:func:`part_uuid`), its
  session information the night's with :data:`PART_OF` naming the night;
- every attempt of a test case in one part (the test cases of one
  display name together: whatever else tells attempts apart, they share
  it), each record keeping the night's ``session_uuid``; its ``uuid`` the
  part's
  (``<part>:<run>:<test>``), where ReFrame's storage finds it.

The readers put the night together again: one session row
(:func:`is_part`), every test case of a night asked by its UUID
(``..results.runs.session_testcases``), one report a night
(:func:`merged`).
'''

import itertools
import math
import uuid as uuids

from hpc_acceptance.tools.results.report_text import ReportText

#: The session extra of a part after the first: the night's UUID.
PART_OF = 'part_of'

#: The session extra of a night's first part: how many parts it has.
PARTS = 'parts'


def part_uuid(night, index):
    '''The session UUID of the night ``night``'s part ``index`` (1 the
    second part: the first is the night's own): made from the night's,
    so that a reader asks for it by name, never by a search.'''
    return str(uuids.uuid5(uuids.UUID(night), f'part {index}'))


def sessions(night, stored):
    '''The session UUIDs of the night ``night``: its own, then each of its
    parts' for which ``stored(uuid)`` is true, up to the first that is
    not.'''
    yield night
    for index in itertools.count(1):
        part = part_uuid(night, index)
        if not stored(part):
            return
        yield part


def needed(size, largest):
    '''How many parts a report of ``size`` bytes of JSON is stored in,
    where SQLite takes at most ``largest`` bytes in one value: each part
    at most half of that, as ReFrame's encoding of a report is longer
    than a compact file's (its separators have spaces).'''
    return max(1, math.ceil(size / max(1, largest // 2)))


def most(report):
    '''The most parts ``report`` (a :class:`.report_text.ReportText`) is
    stored in: one a test case (a report of none is stored as one).'''
    return len({record.display_name for record in report.records()})


def split(report, parts):
    '''The run report ``report`` (a :class:`.report_text.ReportText`) as
    at most ``parts`` reports to store, as the module's docstring says;
    ``[report]`` itself for one part.'''
    sizes = {}
    for record in report.records():
        sizes[record.display_name] = sizes.get(record.display_name, 0) + 1

    if parts <= 1 or not sizes:
        return [report]

    # whole test cases, in the order they first ran, about ``each``
    # records a part; the records before any test case are fewer than
    # ``each * parts``, so none starts a part beyond the last
    each = math.ceil(sum(sizes.values()) / parts)
    owner, filled = {}, 0
    for name, size in sizes.items():
        owner[name] = filled // each
        filled += size
    # a test case larger than a part's share leaves a number unused
    numbers = {index: number for number, index in
               enumerate(sorted(set(owner.values())))}

    night = report.session_info['uuid']
    made = []
    for number in range(len(numbers)):
        session = night if number == 0 else part_uuid(night, number)
        extra = {PARTS: len(numbers)} if number == 0 else {PART_OF: night}
        made.append(ReportText(dict(report.head, session_info=dict(
            report.session_info, uuid=session, **extra)),
            [[] for _ in report.runs]))

    for position, records in enumerate(report.runs):
        for record in records:
            part = made[numbers[owner[record.display_name]]]
            held = part.runs[position]
            held.append(record.placed(f'{part.session_info["uuid"]}:'
                                      f'{position}:{len(held)}'))

    return made


def is_part(session_info):
    '''Whether a stored session is a night's part after its first.'''
    return bool(session_info.get(PART_OF))


def merged(sessions):
    '''``sessions`` (reports, as ReFrame's storage gives them) with each
    night's parts after the first put into it: the night's runs holding
    every part's test cases, in the order stored. A part whose night is
    not among ``sessions`` stays a session of its own: what it holds is
    not lost.'''
    nights = {session['session_info'].get('uuid'): session
              for session in sessions if not is_part(session['session_info'])}
    kept, parts = [], {}
    for session in sessions:
        night = session['session_info'].get(PART_OF)
        if night in nights:
            parts.setdefault(night, []).append(session)
        else:
            kept.append(session)

    return [_joined(session, parts.get(session['session_info'].get('uuid')))
            for session in kept]


def _joined(night, parts):
    if not parts:
        return night

    # every part holds every run of the night (split), each its own cases
    runs = [dict(run, testcases=list(run['testcases']))
            for run in night['runs']]
    for part in parts:
        for position, run in enumerate(part['runs']):
            runs[position]['testcases'].extend(run['testcases'])

    info = {key: value for key, value in night['session_info'].items()
            if key != PARTS}
    return dict(night, runs=runs, session_info=info)
