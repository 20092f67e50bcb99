'''``hpc-acceptance topology``: the figures this node's checks size
themselves from, for scripts that measure at the same sizes (``ci/bench/``).

Prints ``memory_working_set``, ``cores``, ``sockets`` and the one-thread
working set of each cache level (``working_set_l1`` ...) as ``name value
unit`` lines, computed by :mod:`hpc_acceptance.core.topology` from
ReFrame's auto-detected processor description of this node.
'''

import argparse
import sys

from reframe.utility.cpuinfo import cpuinfo

from hpc_acceptance.core.topology import (TopologyError, level_working_sets,
                                          memory_working_set, num_cores)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='hpc-acceptance topology',
        description=__doc__.split('\n\n')[0],
    )
    parser.parse_args(argv)
    info = cpuinfo()
    try:
        figures = [('memory_working_set', memory_working_set(info), 'B'),
                   ('cores', num_cores(info), 'cores'),
                   ('sockets', info.get('num_sockets') or 1, 'sockets')]
        figures += [(f'working_set_{level}', size, 'B')
                    for level, size in level_working_sets(info).items()
                    if level != 'memory']
    except TopologyError as err:
        print(f'this node: {err}', file=sys.stderr)
        return 2

    for name, value, unit in figures:
        print(name, value, unit)

    return 0
