'''One test run at a time for what a test takes of the whole machine.

The Slurm clusters of tests/helpers/slurm_cluster.py listen on Slurm's fixed
ports and make a bridge and namespaces of fixed names; the cached Spack of
tests/helpers/spack_ci.py is one install tree under ~/.cache. Two test runs on
one machine (two checkouts, say) would collide there: each holds the lock of
what it uses while it uses it, and the other waits. A kernel ``flock``:
gone with the process however it ends, so never stale.
'''

import contextlib
import fcntl
import os
import tempfile

LOCK_DIR = '/run/lock' if os.access('/run/lock', os.W_OK) \
    else tempfile.gettempdir()


@contextlib.contextmanager
def held(name):
    '''Hold the machine-wide lock ``name`` for the ``with`` block.'''
    path = os.path.join(LOCK_DIR, f'hpc-acceptance-tests-{name}.lock')
    with open(path, 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
