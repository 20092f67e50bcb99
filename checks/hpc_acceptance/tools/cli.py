'''``hpc-acceptance``: the project's commands, one subcommand each.

``hpc-acceptance SUBCOMMAND --help`` describes a subcommand; each is the
``main`` of the module of its name (``post-upgrade``:
``upgrade/post_upgrade.py``), which parses the rest of the command line
itself.
'''

import sys

from hpc_acceptance.tools.export import export
from hpc_acceptance.tools.fleet import nodes, suspects
from hpc_acceptance.tools.new_system import new_system
from hpc_acceptance.tools.page import page
from hpc_acceptance.tools.references import (compare_published,
                                             propose_references)
from hpc_acceptance.tools.results import db
from hpc_acceptance.tools.run import dependency_drift, summary, verdict
from hpc_acceptance.tools.topology import topology
from hpc_acceptance.tools.upgrade import post_upgrade

#: Subcommand -> (its module, one-line description). Each subcommand's
#: module bears its name, in the room (package) of its job.
SUBCOMMANDS = {
    'verdict': (verdict,
                'judge an acceptance run from ReFrame\'s JSON report'),
    'summary': (summary,
                'the short console summary of an acceptance run'),
    'page': (page,
             'write the HTML report page (trends, skips, provenance) of a '
             'session'),
    'dependency-drift': (dependency_drift,
                         'say when checks take their binaries from '
                         'elsewhere than the runs before'),
    'db': (db,
           'check, back up or import into the results database'),
    'nodes': (nodes,
              'the nodes a fleet run (--fleet) covers and those it leaves '
              'out, with their state'),
    'suspects': (suspects,
                 'the nodes of a fleet run out of line with their '
                 'siblings; drain them (--drain), resume them (--resume)'),
    'post-upgrade': (post_upgrade,
                     'run the post-upgrade set and judge each figure '
                     'against the stored baseline'),
    'propose-references': (propose_references,
                           'reference values from recent runs, as a diff '
                           'or written (--write)'),
    'compare-published': (compare_published,
                          'this system\'s figures next to the seed papers\''),
    'new-system': (new_system,
                   'bring a cluster in: ask it, write and check its '
                   'system, Spack environment and topologies'),
    'topology': (topology,
                 'what the suite would do on this node or a snapshot of '
                 'one'),
    'export': (export,
               'send figures to the site\'s time-series store (--replay, '
               '--since)'),
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
