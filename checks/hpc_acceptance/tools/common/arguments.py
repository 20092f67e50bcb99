'''The options several ``hpc-acceptance`` commands take, each defined once
(Spack's ``cmd/common/arguments.py``), and the error of a command line
that parsed but asks for something wrong.

A command adds one to its parser (or to a group of it) with the function
of the option's name (``arguments.add_nodes(parser)``); ``cli.py`` turns
:class:`UsageError` into argparse's usage error (exit status 2). Options
of one name but another meaning in two commands (``--system``,
``--partition``, ``--format``, ``--json``) stay each in its command.
'''

import argparse
import re

from hpc_acceptance.tools.common import identifiers


class UsageError(Exception):
    '''The options parsed but do not go together, or a value is wrong: the
    message names the option and says why.'''


#: The default of a parser whose own options come first
#: (:func:`pass_on`'s ``own_first``).
OWN_FIRST = 'own_options_first'


def pass_on(parser, own_first=False):
    '''The command takes, besides the options it knows, arguments it
    passes on (to ReFrame) unparsed and in order: ``args.passed_on``.
    ``own_first``: its own options come first, and from the first argument
    that is none of them everything is passed on, words that look like
    its options included (:func:`split_own`).'''
    parser.set_defaults(passed_on=[], **{OWN_FIRST: own_first})


def split_own(parser, argv):
    '''``(own, passed on)``: ``argv`` split before the first argument
    that is not one of ``parser``'s options (as ``--name`` or
    ``--name=value``) or the value after one that takes a value.'''
    argv = list(argv)
    own = []
    while argv:
        word = argv[0]
        action = parser._option_string_actions.get(word.split('=', 1)[0])
        if action is None:
            break
        own.append(argv.pop(0))
        # an option with one value given apart (``--max-jobs 8``)
        if '=' not in word and action.nargs is None and argv:
            own.append(argv.pop(0))
    return own, argv


def _identifier(check, *args):
    '''``check(*args)`` (one of :mod:`.identifiers`), its refusal as
    argparse's error of an option's value.'''
    try:
        return check(*args)
    except identifiers.BadIdentifier as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def session_id(text):
    '''A ``--session`` value: a ReFrame session UUID, never a period or a
    filter (ReFrame evaluates a filter as Python).'''
    return _identifier(identifiers.session, text, 'session')


def reframe_name(text):
    '''A ``--system`` or ``--partition`` value: a ReFrame name (files and
    queries are made of it).'''
    return _identifier(identifiers.name, text, 'name')


def add_session(parser, what='a stored session'):
    '''``--session UUID``: the stored session read instead of reports.'''
    parser.add_argument('--session', type=session_id, metavar='UUID',
                        help=f'UUID of {what}')


def add_run_report(parser, help):
    '''``--run-report REPORT.json``, again for each further report of the
    run, in order.'''
    parser.add_argument('--run-report', action='append', help=help)


def add_sessions(parser, default):
    '''``--sessions QUERY``: stored sessions, as ReFrame's
    ``--describe-stored-testcases`` takes them.'''
    parser.add_argument('--sessions', default=default,
                        help="stored sessions to use: a time period, a "
                             "session UUID or a filter, as ReFrame's "
                             "--describe-stored-testcases takes "
                             "(default: %(default)s)")


def add_logs(parser, why):
    '''``--log FILE``, again for each run: ReFrame's console output.'''
    parser.add_argument('--log', action='append', default=[],
                        help=f"ReFrame's console output of a run{why}")


def add_nodes(parser, default=None):
    '''``--nodes NODES.json``: a fleet run's node list.'''
    parser.add_argument('--nodes', help='the node list of a fleet run '
                        '(hpc-acceptance nodes --json)' +
                        (f'; default: {default}' if default else ''))


def add_floor_bands(parser, default, help):
    '''``--floor "FAMILY=F ..."``: minimum bands per family, read by
    :func:`..references.noise.parse_floors` in the command.'''
    parser.add_argument('--floor', default=default, metavar='FAMILY=F ...',
                        help=help)


def add_db(parser, default):
    '''``--db FILE``: the results database.'''
    parser.add_argument('--db', help='the results database (default: '
                                     f'$RFM_SQLITE_DB_FILE, else {default})')


def is_max_jobs(text):
    '''Whether ``text`` is a ``--max-jobs`` value: a whole number, 1 or
    more.'''
    return re.fullmatch(r'[1-9][0-9]*', text) is not None


def _max_jobs(text):
    '''A ``--max-jobs`` value, kept as its text (ReFrame's variable).'''
    count(text)
    return text


def minutes(text):
    '''A time limit in minutes: a whole number, 1 or more.'''
    if not is_max_jobs(text):
        raise argparse.ArgumentTypeError(f'{identifiers.shown(text)}: '
                                         f'minutes, a whole number, 1 or '
                                         f'more')
    return int(text)


def count(text):
    '''A count of things: a whole number, 1 or more.'''
    if not is_max_jobs(text):
        raise argparse.ArgumentTypeError(f'{identifiers.shown(text)}: a '
                                         f'whole number, 1 or more')
    return int(text)


#: A node state as ReFrame's ``--distribute`` and Slurm take it (``idle``,
#: ``avail``, ``all``, ``mixed``, ``idle+drain``).
_NODE_STATE = re.compile(r'[A-Za-z][A-Za-z0-9_+]{0,31}')


def node_state(text):
    '''A ``--fleet`` value: a node state; empty (``--fleet`` alone): the
    default one.'''
    if text and not _NODE_STATE.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f'{identifiers.shown(text)}: a node state (idle, avail, all, '
            f'or a state of Slurm\'s)')
    return text


def reservation_name(text):
    '''A ``--reservation`` value: a Slurm reservation's name, as it goes
    into a job script's ``#SBATCH`` line.'''
    return _identifier(identifiers.reservation, text)


def add_run_options(parser):
    '''The options of a run of ReFrame's checks: ``--fleet[=STATE]``,
    ``--reservation``, ``--max-jobs``.'''
    parser.add_argument('--fleet', nargs='?', const='', type=node_state,
                        metavar='STATE',
                        help='every node (in STATE: idle, avail in a '
                             'reservation)')
    parser.add_argument('--reservation', type=reservation_name,
                        metavar='NAME',
                        help='a Slurm reservation to run in')
    parser.add_argument('--max-jobs', type=_max_jobs, metavar='N',
                        help='at most N jobs submitted at once per '
                             'scheduler partition (a fleet run\'s default: '
                             'one per node it covers)')
