'''``hpc-acceptance``: the project's commands, one subcommand each.

``hpc-acceptance SUBCOMMAND --help`` describes a subcommand. Each lives in
the module of its name (``post-upgrade``: ``upgrade/post_upgrade.py``), in
the room of its job, with one contract (Spack's ``cmd/`` modules'):
``description`` (its line in ``hpc-acceptance --help``),
``setup_parser(parser)`` (its options) and ``command(args)`` (the exit
status). A command is a front-end: it reads its settings once
(:mod:`.common.command_settings`) and passes them down as values to the
library modules of its room, named for what they do, which return
values; no module imports a command's.
'''

import argparse
import importlib
import sys

from hpc_acceptance.tools.common import arguments, console, file_modes

#: Subcommand -> its module. Only the one asked for is imported (some
#: import ReFrame's test machinery or matplotlib, seconds that every other
#: command would pay); ``hpc-acceptance --help`` imports them all.
SUBCOMMANDS = {
    'verdict': 'outcome.verdict',
    'summary': 'outcome.summary',
    'page': 'page.page',
    'run': 'pipeline.run',
    'finish': 'pipeline.finish',
    'collect': 'node_jobs.collect',
    'dependency-drift': 'outcome.dependency_drift',
    'db': 'results.db',
    'nodes': 'fleet.nodes',
    'suspects': 'fleet.suspects',
    'post-upgrade': 'upgrade.post_upgrade',
    'propose-references': 'references.propose_references',
    'compare-published': 'references.compare_published',
    'new-system': 'new_system.new_system',
    'topology': 'topology.topology',
    'export': 'export.export',
    'shifts': 'shifts.shifts',
}


#: Subcommands that write settings an administrator makes for the night's
#: account to read (the site directory, reference files): they keep the
#: caller's umask; every other one writes results, with a private one
#: (:mod:`.common.file_modes`).
WRITES_SETTINGS = {'new-system', 'propose-references'}


def module_of(name):
    '''The module of subcommand ``name``.'''
    return importlib.import_module(
        f'hpc_acceptance.tools.{SUBCOMMANDS[name]}')


def usage():
    lines = ['usage: hpc-acceptance SUBCOMMAND [ARGS...]', '',
             'subcommands:']
    width = max(map(len, SUBCOMMANDS))
    lines += [f'  {name:<{width}}  {module_of(name).description}'
              for name in SUBCOMMANDS]
    return '\n'.join(lines)


def parser_of(name, module):
    '''The argument parser of subcommand ``name``: its module's options,
    its docstring's first paragraph as the description.'''
    parser = argparse.ArgumentParser(
        prog=f'hpc-acceptance {name}',
        description=(module.__doc__ or '').split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    module.setup_parser(parser)
    return parser


def main(argv=None):
    '''Run the subcommand of ``argv``; its exit status. What it prints goes
    through :func:`.common.console.guarded`: no control character a node
    or a report wrote reaches the terminal.'''
    if argv is None and sys.argv[1:2] and \
            sys.argv[1] not in WRITES_SETTINGS:
        # run as the command: the process is this command's alone (a
        # caller in the same process, the tests, keeps its own umask)
        file_modes.keep_private()

    with console.guarded():
        return _main(sys.argv[1:] if argv is None else argv)


def _main(argv):
    if not argv or argv[0] in ('-h', '--help'):
        print(usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2

    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        print(f'hpc-acceptance: unknown subcommand {name!r}\n\n{usage()}',
              file=sys.stderr)
        return 2

    module = module_of(name)
    parser, args = parse(name, module, rest)
    try:
        return module.command(args)
    except arguments.UsageError as err:
        parser.error(str(err))


def parse(name, module, argv):
    '''``(parser, args)`` of subcommand ``name`` (of ``module``) given
    ``argv``: what it passes on (:func:`.common.arguments.pass_on`) in
    ``args.passed_on``; a usage error exits 2.'''
    parser = parser_of(name, module)
    if parser.get_default(arguments.OWN_FIRST):
        own, others = arguments.split_own(parser, argv)
        args = parser.parse_args(own)
    else:
        args, others = parser.parse_known_args(argv)
        if others and not hasattr(args, 'passed_on'):
            parser.error(f'unrecognized arguments: {" ".join(others)}')
    if others:
        args.passed_on = others
    return parser, args
