'''The C heap of a command that reads a fleet night's reports one node
after the other: what it frees kept for the next node, not given back to
the kernel.

glibc's malloc gives a freed block of more than 128 KB back to the kernel
at once (it was mapped for it alone), and the free top of its heap once it
passes twice that. A node's report as read is such a block, and so are
the buffers its parsing and its text take: each node's were mapped again,
and the kernel zeroed every page of them at its first touch, a page fault
each, a large share of collecting a night of 10,000 nodes
(``ci/bench/README.md``, "A night held as text"). Kept, the next node's
blocks take the same pages. The process's heap then stays as large as it
grew until it exits: a command that reads a night ends with it.
'''

import ctypes

#: ``mallopt``'s parameters (glibc's ``malloc.h``).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

#: The largest block glibc's malloc is asked to take from its heap rather
#: than map: more than the text of a night's part
#: (:mod:`..results.session_parts`), which is made, copied by SQLite and
#: freed part after part.
LARGEST_FROM_HEAP = 2 ** 30

#: Never trim the heap's free top.
_NEVER = 2 ** 31 - 1


def keep_freed():
    '''Ask the C library's malloc to keep what this process frees (see
    the module's docstring); whether it took it. A C library without
    glibc's ``mallopt`` (musl) is left as it is.'''
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return False

    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, LARGEST_FROM_HEAP) and
                mallopt(_M_TRIM_THRESHOLD, _NEVER))
