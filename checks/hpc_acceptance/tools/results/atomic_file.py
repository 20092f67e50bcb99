'''Files replaced in one step, for results a killed run must not corrupt.'''

import os
import tempfile

from hpc_acceptance.tools.common.file_modes import shared_mode


def write_atomically(path, text, shared=False):
    '''Replace ``path`` with ``text`` (a string, in UTF-8; bytes as they
    are; or pieces of either, written one after the other) in one step:
    a run killed while writing (Ctrl-C, a batch time limit) leaves the
    old file or the new one, never half of one. The file is
    its owner's alone (``mkstemp``'s 0600), or with ``shared`` (settings
    the night's account reads) has the mode of the file it replaces, else
    the one the umask allows.'''
    directory = os.path.dirname(os.path.abspath(path))
    mode = shared_mode(path) if shared else None
    fd, tmp = tempfile.mkstemp(dir=directory, prefix='.', suffix='.tmp')
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        pieces = iter([text] if isinstance(text, (str, bytes)) else text)
        first = next(pieces, b'')
        with (os.fdopen(fd, 'wb') if isinstance(first, bytes) else
              os.fdopen(fd, 'w', encoding='utf-8')) as fp:
            fp.write(first)
            fp.writelines(pieces)
            fp.flush()
            os.fsync(fp.fileno())

        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
