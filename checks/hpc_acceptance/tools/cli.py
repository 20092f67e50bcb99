'''``hpc-acceptance``: the project's commands, one subcommand each.

``hpc-acceptance SUBCOMMAND --help`` describes a subcommand; each is the
``main`` of the module of its name (``post-upgrade``:
``upgrade/post_upgrade.py``), which parses the rest of the command line
itself.
'''

import importlib
import sys

#: Subcommand -> (its module, one-line description). Each subcommand's
#: module bears its name, in the room (package) of its job; only the one
#: asked for is imported (some import ReFrame's test machinery or
#: matplotlib, seconds that every other command would pay).
SUBCOMMANDS = {
    'verdict': ('run.verdict',
                'judge an acceptance run from ReFrame\'s JSON report'),
    'summary': ('run.summary',
                'the short console summary of an acceptance run'),
    'page': ('page.page',
             'write the HTML report page (trends, skips, provenance) of a '
             'session'),
    'run': ('pipeline.run',
            'a run from its start (ci/acceptance.sh runs it): the report, '
            'the database, ReFrame, the end'),
    'finish': ('pipeline.finish',
               'the end of a run: store, summary, page, storage check, '
               'verdict'),
    'dependency-drift': ('run.dependency_drift',
                         'say when checks take their binaries from '
                         'elsewhere than the runs before'),
    'db': ('results.db',
           'check, back up or import into the results database'),
    'nodes': ('fleet.nodes',
              'the nodes a fleet run (--fleet) covers and those it leaves '
              'out, with their state'),
    'suspects': ('fleet.suspects',
                 'the nodes of a fleet run out of line with their '
                 'siblings; drain them (--drain), resume them (--resume)'),
    'post-upgrade': ('upgrade.post_upgrade',
                     'run the post-upgrade set and judge each figure '
                     'against the stored baseline'),
    'propose-references': ('references.propose_references',
                           'reference values from recent runs, as a diff '
                           'or written (--write)'),
    'compare-published': ('references.compare_published',
                          'this system\'s figures next to the seed papers\''),
    'new-system': ('new_system.new_system',
                   'bring a cluster in: ask it, write and check its '
                   'system, Spack environment and topologies'),
    'topology': ('topology.topology',
                 'what the suite would do on this node or a snapshot of '
                 'one'),
    'export': ('export.export',
               'send figures to the site\'s time-series store (--replay, '
               '--since), read it back (--verify)'),
}


def module_of(name):
    '''The module of subcommand ``name``.'''
    return importlib.import_module(
        f'hpc_acceptance.tools.{SUBCOMMANDS[name][0]}')


def usage():
    lines = ['usage: hpc-acceptance SUBCOMMAND [ARGS...]', '',
             'subcommands:']
    width = max(map(len, SUBCOMMANDS))
    lines += [f'  {name:<{width}}  {about}'
              for name, (_, about) in SUBCOMMANDS.items()]
    return '\n'.join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ('-h', '--help'):
        print(usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2

    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        print(f'hpc-acceptance: unknown subcommand {name!r}\n\n{usage()}',
              file=sys.stderr)
        return 2

    return module_of(name).main(rest)
