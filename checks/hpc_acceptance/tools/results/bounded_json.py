'''JSON files read with bounds: their size and how deeply they nest.

A run report is what the nodes' jobs wrote, read by every tool of a
night. Unbounded, a file of a million test cases took the verdict two
minutes and 3.5 GB, and one nested a hundred thousand levels deep stopped
it on Python's recursion limit, a traceback (exit 1). So a file larger
than :data:`MAX_BYTES` is refused before it is read, and one nested
deeper than the JSON readers follow (:mod:`.json_text`: orjson's 1,024
levels of lists and objects; Python's recursion limit, about 990, where
orjson cannot read a file) is refused when it is read, each with an
error that says so (:class:`TooLarge`; the commands exit 3 on it, naming
the file). The number of test cases a report may hold is bounded where
its shape is checked (:data:`.report_shape.MAX_TESTCASES`).

The bounds take a real night with room to spare: a fleet night of 10,000
nodes with the 38 single-node test cases a node runs (``reframe --mode
fleet -l``) and a retry of every tenth is about 420,000 test case records
of about 3 KB each, 1.3 GB; ReFrame's reports nest 7 levels deep.
'''

import os

from hpc_acceptance.tools.common.regular_file import open_regular
from hpc_acceptance.tools.results import json_text

#: The largest JSON file read, in bytes.
MAX_BYTES = 2 * 2**30


class TooLarge(ValueError):
    '''A JSON file beyond a bound; the message says which.'''


NESTED_TOO_DEEPLY = ('nested deeper than the JSON reader follows (about '
                     '1,000 levels of lists and objects)')


def read(path, max_bytes=None):
    '''The bytes of the file at ``path``.

    :raises OSError: if it cannot be read, or is no regular file
        (:class:`..common.regular_file.NotRegular`).
    :raises TooLarge: if it has more than ``max_bytes`` (default:
        :data:`MAX_BYTES`).
    '''
    max_bytes = max_bytes or MAX_BYTES
    # a pipe or a device where a report was: refused, not waited on
    with open_regular(path, 'rb') as fp:
        size = os.fstat(fp.fileno()).st_size
        if size > max_bytes:
            raise TooLarge(f'{size} bytes, more than the {max_bytes} a JSON '
                           f'file read may have')

        # as many bytes as it has: a read of the bound would map a buffer
        # of 2 GiB for each file, its pages new to the kernel each time
        # (``ci/bench/README.md``, "A night held as text"); one that grows
        # while it is read is read up to the bound, no further
        data = fp.read(size + 1)
        if len(data) > size:
            data += fp.read(max_bytes + 1 - len(data))

    if len(data) > max_bytes:
        raise TooLarge(f'more than the {max_bytes} bytes a JSON file read '
                       f'may have')

    return data


def parse(data):
    '''The JSON ``data`` (bytes) parsed.

    :raises ValueError: if it is no JSON (:class:`TooLarge`: nested too
        deeply).
    '''
    try:
        return json_text.loads(data)
    except RecursionError:
        raise TooLarge(NESTED_TOO_DEEPLY) from None


def load(path, max_bytes=None):
    '''The parsed JSON file at ``path`` (:func:`read`, :func:`parse`).'''
    return parse(read(path, max_bytes))
