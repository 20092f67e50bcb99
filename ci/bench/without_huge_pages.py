'''Runs a command with transparent huge pages disabled for it and its
children (Linux's prctl PR_SET_THP_DISABLE), even where the command asks
for them with madvise(MADV_HUGEPAGE).

read_bandwidth_vs_likwid.sh runs mem_readbw so when likwid-bench, which
never asks, reads from 4 KiB pages: both sides then read the same kind of
pages (ci/bench/README.md, "Why ours read above the peers").

    without_huge_pages.py COMMAND [ARGUMENT...]

Exit status: the command's; 2 without a command, when the kernel refuses the
setting or when the command cannot be run (the message says which).
'''

import ctypes
import os
import sys

#: <linux/prctl.h>: since Linux 3.15.
PR_SET_THP_DISABLE = 41


def main(argv):
    if not argv:
        print('usage: without_huge_pages.py COMMAND [ARGUMENT...]',
              file=sys.stderr)
        sys.exit(2)

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
        print('without_huge_pages: prctl(PR_SET_THP_DISABLE): '
              f'{os.strerror(ctypes.get_errno())}', file=sys.stderr)
        sys.exit(2)

    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        print(f'without_huge_pages: cannot run {argv[0]}: {error.strerror}',
              file=sys.stderr)
        sys.exit(2)


if __name__ == '__main__':
    main(sys.argv[1:])
