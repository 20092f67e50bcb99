'''ReFrame's processor detection, run by
:func:`hpc_acceptance.tools.topology.snapshot.detect` inside a mount
namespace where a snapshot's ``sys/`` and ``proc/cpuinfo`` are bound over
the host's: prints ReFrame's description as JSON.

``python -m hpc_acceptance.tools.topology.snapshot_detect ARCHITECTURE``: the
snapshot's architecture (``x86_64``, ``aarch64``, ...), which archspec and
ReFrame ask of ``platform.machine()``, not of ``/sys``. Exits
:data:`DETECTION_FAILED`, the error on stderr, where the detection fails.
'''

import json
import platform
import sys

#: The exit status when ReFrame's detection itself fails (a file of the
#: snapshot it cannot parse), told apart from the namespace's failures.
DETECTION_FAILED = 3


def main(argv):
    architecture = argv[0]
    # before archspec first asks (it caches the answer)
    platform.machine = lambda: architecture
    from reframe.utility.cpuinfo import cpuinfo

    try:
        found = cpuinfo()
    except Exception as err:
        print(f'{type(err).__name__}: {err}', file=sys.stderr)
        return DETECTION_FAILED

    json.dump(found, sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
