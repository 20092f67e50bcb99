'''Python's cyclic garbage collector, paused while a night's records are
read, judged and written.

A night's reports parse into millions of lists and dictionaries, none of
them in a reference cycle (JSON has none). The cyclic collector runs every
few hundred allocations, walking the young objects each time and, ever
more often as they grow, all of them: most of its work finds nothing, and
on a fleet night it was a large share of the CPU (ci/bench/README.md,
"The cyclic garbage collector"). Reference counting frees those objects
all the same; what the paused block leaves in a cycle is collected once
the collector runs again. What the block made and kept (the night's
report) is made old to the collector as the block ends, so that its next
run does not walk it all as young.
'''

import contextlib
import gc


@contextlib.contextmanager
def paused():
    '''The ``with`` block (or the function it decorates) run with the
    cyclic collector off; on, after, where it was on before.'''
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # what the block made and kept is young to the collector, which
        # would walk it all at its next run: moved to its oldest
        # generation, walked only where everything is
        gc.freeze()
        gc.unfreeze()
        if was_on:
            gc.enable()
