'''``hpc-acceptance topology``: the figures this node's checks size
themselves from, for scripts that measure at the same sizes (``ci/bench/``).

Prints ``memory_working_set``, ``cores``, ``sockets`` and the one-thread
working set of each cache level (``working_set_l1`` ...) as ``name value
unit`` lines, computed by :mod:`hpc_acceptance.core.topology` from
ReFrame's auto-detected processor description of this node.
'''

import argparse
import sys

from reframe.core.systems import ProcessorInfo
from reframe.utility.cpuinfo import cpuinfo

from hpc_acceptance.core.topology import TopologyError, level_working_sets


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='hpc-acceptance topology',
        description=__doc__.split('\n\n')[0],
    )
    parser.parse_args(argv)
    info = cpuinfo()
    # the count the checks use: ReFrame's, of the same description
    cores = ProcessorInfo(info).num_cores
    try:
        working_sets = level_working_sets(info)
    except TopologyError as err:
        print(f'this node: {err}', file=sys.stderr)
        return 2

    if not cores:
        print('this node: the processor description has no '
              'num_cpus/num_cpus_per_core', file=sys.stderr)
        return 2

    figures = [('memory_working_set', working_sets.pop('memory'), 'B'),
               ('cores', cores, 'cores'),
               ('sockets', info.get('num_sockets') or 1, 'sockets')]
    figures += [(f'working_set_{level}', size, 'B')
                for level, size in working_sets.items()]

    for name, value, unit in figures:
        print(name, value, unit)

    return 0
