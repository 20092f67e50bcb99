'''One test run at a time for what a test takes of the whole machine.

The Slurm clusters of tests/helpers/slurm_cluster.py listen on Slurm's fixed
ports and make a bridge and namespaces of fixed names; the cached Spack of
tests/helpers/spack_ci.py is one install tree under ~/.cache. Two test runs on
one machine (two checkouts, say) would collide there: each holds the lock of
what it uses while it uses it, and the other waits. A kernel ``flock``:
gone with the process however it ends, so never stale.

The cores are shared the same way. A test whose assertions read measured
figures (a fleet's nodes judged against each other, a run against the
references its own earlier runs wrote) runs :func:`alone`; every other
test, and every build or install, runs :func:`beside_others`. The two
pytest workers of ci/test.sh, and a second checkout's test run, then
overlap everything but the figures that are judged.
'''

import contextlib
import fcntl
import os
import tempfile

LOCK_DIR = '/run/lock' if os.access('/run/lock', os.W_OK) \
    else tempfile.gettempdir()


def _path(name):
    return os.path.join(LOCK_DIR, f'hpc-acceptance-tests-{name}.lock')


@contextlib.contextmanager
def held(name):
    '''Hold the machine-wide lock ``name`` for the ``with`` block.'''
    with open(_path(name), 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _take(cores, mode, turnstile=True):
    '''Lock the open file ``cores`` in ``mode``, through the turnstile
    if ``turnstile``.'''
    with held('turnstile') if turnstile else contextlib.nullcontext():
        fcntl.flock(cores, mode)


def _cores(mode, turnstile=True):
    '''The lock of the cores taken in ``mode``, through the turnstile
    if ``turnstile``: the open file that holds it.'''
    cores = open(_path('cores'), 'a')
    _take(cores, mode, turnstile)
    return cores


class Alone:
    '''The cores held alone (:func:`alone`), which a step that reads no
    figure (a build, an install) may share for its time.'''

    def __init__(self, cores):
        self._cores = cores

    @contextlib.contextmanager
    def shared(self):
        '''Others may run beside the ``with`` block; alone again after
        it, through the turnstile as at the start, holding nothing while
        it waits: a test waiting to be alone holds the turnstile until the
        cores are free, so waiting for the turnstile with the cores shared
        would keep both waiting for ever.'''
        fcntl.flock(self._cores, fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(self._cores, fcntl.LOCK_UN)
            _take(self._cores, fcntl.LOCK_EX)


@contextlib.contextmanager
def alone():
    '''The ``with`` block runs with no test or install beside it
    (:class:`Alone`). The turnstile is held while waiting, so that tests
    starting one after the other beside it cannot keep it waiting for
    ever.'''
    with _cores(fcntl.LOCK_EX) as cores:
        yield Alone(cores)


@contextlib.contextmanager
def beside_others(turnstile=True):
    '''The ``with`` block may run beside other tests and installs, never
    beside a test :func:`alone`. ``turnstile=False`` for what a waiting
    test may itself be waiting for (the install ahead), which must not
    queue behind it.'''
    with _cores(fcntl.LOCK_SH, turnstile):
        yield
