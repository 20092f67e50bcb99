'''``hpc-acceptance``: the project's commands, one subcommand each.

``hpc-acceptance SUBCOMMAND --help`` describes a subcommand; each is the
``main`` of one module of :mod:`hpc_acceptance.tools`, which parses the
rest of the command line itself.
'''

import sys

from hpc_acceptance.tools import (compare_published, database,
                                  dependency_drift, export, fleet_nodes,
                                  new_system, node_topology, post_upgrade,
                                  propose_references, report, summary,
                                  suspects, verdict)

#: Subcommand -> (its module, one-line description).
SUBCOMMANDS = {
    'propose-references': (propose_references,
                           'reference values from recent runs, as a diff '
                           'or written (--write)'),
    'compare-published': (compare_published,
                          'this system\'s figures next to the seed papers\''),
    'verdict': (verdict,
                'judge an acceptance run from ReFrame\'s JSON report'),
    'report': (report,
               'write the HTML report page (trends, skips, provenance) of '
               'a session'),
    'summary': (summary,
                'the short console summary of an acceptance run'),
    'post-upgrade': (post_upgrade,
                     'run the post-upgrade set and judge each figure '
                     'against the stored baseline'),
    'topology': (node_topology,
                 'what the suite would do on this node, or on a snapshot '
                 'of another'),
    'db': (database,
           'check, back up or import into the results database'),
    'dependency-drift': (dependency_drift,
                         'say when checks take their binaries from '
                         'elsewhere than the runs before'),
    'new-system': (new_system,
                   'bring a cluster in: ask it, write and check its '
                   'system, Spack environment and topologies'),
    'nodes': (fleet_nodes,
              'the nodes a fleet run (--all-nodes) covers and those it '
              'leaves out, with their state'),
    'suspects': (suspects,
                 'the nodes of a fleet run slower than their siblings; '
                 'Slurm drain lines (--format slurm), --drain'),
    'export': (export,
               'figures to the site\'s time-series store: the spool '
               '(--replay), stored sessions (--since DATE)'),
}


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

    return SUBCOMMANDS[name][0].main(rest)
