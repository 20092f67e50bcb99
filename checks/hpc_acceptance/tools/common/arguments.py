'''The options several ``hpc-acceptance`` commands take, each defined once
(Spack's ``cmd/common/arguments.py``), and the error of a command line
that parsed but asks for something wrong.

A command adds one to its parser with the function of the option's name
(``arguments.add_nodes(parser)``); ``cli.py`` turns :class:`UsageError`
into argparse's usage error (exit status 2).
'''


class UsageError(Exception):
    '''The options parsed but do not go together, or a value is wrong: the
    message names the option and says why.'''


def pass_on(parser):
    '''The command takes, besides the options it knows, arguments it
    passes on (to ReFrame) unparsed and in order: ``args.passed_on``.'''
    parser.set_defaults(passed_on=[])
