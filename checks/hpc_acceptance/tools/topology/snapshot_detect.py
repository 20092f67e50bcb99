'''ReFrame's processor detection, run by
:func:`hpc_acceptance.tools.topology.snapshot.detect` inside a mount
namespace where a snapshot's ``sys/`` and ``proc/cpuinfo`` are bound over
the host's: prints ReFrame's description as JSON.

``python -m hpc_acceptance.tools.topology.snapshot_detect ARCHITECTURE``: the
snapshot's architecture (``x86_64``, ``aarch64``, ...), which archspec and
ReFrame ask of ``platform.machine()``, not of ``/sys``.
'''

import json
import platform
import sys


def main(argv):
    architecture = argv[0]
    # before archspec first asks (it caches the answer)
    platform.machine = lambda: architecture
    from reframe.utility.cpuinfo import cpuinfo

    json.dump(cpuinfo(), sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
