'''Files replaced in one step, for results a killed run must not corrupt.'''

import os
import tempfile


def write_atomically(path, text):
    '''Replace ``path`` with ``text`` in one step: a run killed while
    writing (Ctrl-C, a batch time limit) leaves the old file or the new
    one, never half of one.'''
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix='.', suffix='.tmp')
    try:
        with os.fdopen(fd, 'w') as fp:
            fp.write(text)
            fp.flush()
            os.fsync(fp.fileno())

        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
