'''Files a node's job wrote, opened only where they are files.

A node's job may leave anything where its report, record, output and
perflogs go: a named pipe opened for reading waits for a writer that never
comes, and a device reads without end. Every such file is opened here
without waiting (``O_NONBLOCK``) and used only where it is a regular file:
one that is not is unreadable, as a missing one is, and says so.
'''

import os
import stat


class NotRegular(OSError):
    '''A path that names no regular file (a pipe, a device, a folder).'''


def open_regular(path, mode='r', **options):
    '''``path`` opened for reading (``mode`` ``'r'`` or ``'rb'``, the
    other ``options`` as :func:`open` takes them) where it is a regular
    file.

    :raises NotRegular: where it is something else.
    :raises OSError: where it cannot be opened.
    '''
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        kind = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(kind):
            # the callers name the file: what it is, not where
            raise NotRegular(f'not a regular file (a {_kind(kind)}): not '
                             f'read')
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, mode, **options)
    except BaseException:
        os.close(descriptor)
        raise


def _kind(mode):
    for test, name in ((stat.S_ISFIFO, 'named pipe'),
                       (stat.S_ISCHR, 'character device'),
                       (stat.S_ISBLK, 'block device'),
                       (stat.S_ISDIR, 'folder'),
                       (stat.S_ISSOCK, 'socket')):
        if test(mode):
            return name
    return 'special file'
