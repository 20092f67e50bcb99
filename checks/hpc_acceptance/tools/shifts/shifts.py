'''The shifts across nights the stored runs stand on, and a person's
acknowledgement of one.

    hpc-acceptance shifts [--db RESULTS.db] [--sessions PERIOD]
    hpc-acceptance shifts --ack FIGURE --why TEXT [--by NAME] [--db ...]
    hpc-acceptance shifts --acknowledged [--db RESULTS.db]

Without options: each figure whose nightly series (the stored runs of the
last year) ends away from its accepted level, largest first, as the
summary names it; recoveries after them. ``--ack FIGURE`` accepts the
level the figure's series stands at now (the figure as listed, the text
before its size): from then on its shift is measured from that level, and
the shift that was reported ends. It is recorded, with who (``--by``,
default the user who ran ``sudo``, else the user) and why (``--why``,
required), in ``shift-acks.json`` beside the results database
(:mod:`.acknowledged`). ``--acknowledged`` lists what was acknowledged.

Exit status: 0 done; 2 a figure that has no shift, a missing ``--why``, or
a file that cannot be read or written (named).
'''

import sys

from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.results.runs import ResultsError, stored_testcases
from hpc_acceptance.tools.shifts import acknowledged, limit, nightly

#: One line for ``hpc-acceptance --help``.
description = ('the shifts across nights the stored runs stand on; '
               'acknowledge one (--ack)')


def _standing(args, given, limits, acks):
    '''The shifts the runs stored in the settings' database stand on.'''
    return nightly.standing(stored_testcases(args.sessions, db_path=given.db),
                            limits, acks)


def _ack(args, given, limits, path, acks):
    shifts = {s.figure: s for s in _standing(args, given, limits, acks)
              if not s.recovered}
    shift = shifts.get(args.ack)
    if shift is None:
        listed = '; '.join(sorted(shifts)) or 'none'
        raise arguments.UsageError(
            f'--ack {args.ack!r}: no figure of that name has a shift (the '
            f'figures with one: {listed})')

    level, nights = shift.level
    entry = acknowledged.add(path, shift.figure, level, nights,
                             shift.nights[shift.point.index].when,
                             args.by or given.user, args.why or '')
    print(f'shifts: {entry.figure}: level {level:.6g} {shift.unit} '
          f'({nights} nights, {100 * shift.point.size:+.1f} % from the '
          f'level accepted before) acknowledged by {entry.by} '
          f'({entry.why}); in {path}')
    return 0


def setup_parser(parser):
    arguments.add_db(parser, command_settings.DEFAULT_DB)
    arguments.add_sessions(parser, nightly.HISTORY)
    parser.add_argument('--ack', metavar='FIGURE',
                        help='accept the level FIGURE (as listed) stands '
                             'at now: its shift ends, later ones are '
                             'measured from it')
    parser.add_argument('--why', help='why the level is accepted (needed '
                                      'with --ack; kept with it)')
    parser.add_argument('--by', help='who accepts it (default: the user '
                                     'who ran sudo, else the user)')
    parser.add_argument('--acknowledged', action='store_true',
                        help='list what was acknowledged')


def command(args):
    try:
        given = command_settings.read(db=args.db)
        limits = limit.of_settings(given)
    except (command_settings.BadSetting, limit.LimitError) as err:
        print(f'shifts: {err}', file=sys.stderr)
        return 2

    path = acknowledged.path_of(given.db)
    try:
        entries = acknowledged.read(path)
        if args.acknowledged:
            for entry in entries:
                print(f'{entry.when} {entry.by}: {entry.figure} at '
                      f'{entry.level:.6g} ({entry.nights} nights): '
                      f'{entry.why}')
            return 0

        acks = acknowledged.latest(entries)
        if args.ack:
            if not (args.why or '').strip():
                raise arguments.UsageError('--ack needs --why: say why the '
                                           'level is accepted')
            return _ack(args, given, limits, path, acks)

        standing = _standing(args, given, limits, acks)
        for shift in standing:
            print(shift.describe())
        if not standing:
            print(f'shifts: no figure of the runs stored in {args.sessions} '
                  f'stands away from its accepted level')
        return 0
    except (ResultsError, acknowledged.AcknowledgedError) as err:
        print(f'shifts: {err}', file=sys.stderr)
        return 2
