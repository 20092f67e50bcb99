'''The nodes' perflogs of a fleet night, added to the run's.

Each node's ReFrame writes its perflogs in its own folder of the night (10
000 ReFrames appending to one file on a shared file system would
interleave their lines and headers). At the end the coordinator appends
each node's lines to the run's perflog of the same name, as one ReFrame
would have written them: a file starts with its header line; where the
header of the lines to add differs from the file's, the file is moved
aside to ``<name>.h<N>`` and a new one started (ReFrame's own rule, which
a check that failed its sanity triggers: its record has no figures).

A node's lines are the node's say: a line whose test case is pinned to
another node (``%.nid=``) is left out and counted, not added under that
node's name.

The lines are added as the bytes the node wrote, a file's at once, not
decoded and split into lines: where no line is pinned to another node
(every node that did its work) nothing is split at all; a byte that is
no UTF-8 is no reason to stop collecting the night.
'''

import os
import re

from hpc_acceptance.tools.common.regular_file import NotRegular, open_regular
from hpc_acceptance.tools.fleet.model import same_node

_ROTATED = re.compile(r'^(?P<name>.+\.log)(?:\.h(?P<number>\d+))?$')

_PINNED = re.compile(rb'%\.nid=([^\s|]+)')


def _header(path):
    try:
        with open(path, 'rb') as fp:
            return fp.readline().rstrip(b'\n')
    except FileNotFoundError:
        return None


def _rotate(path):
    '''Move ``path`` aside to the first free ``<path>.h<N>``.'''
    number = 0
    while os.path.exists(f'{path}.h{number}'):
        number += 1

    os.rename(path, f'{path}.h{number}')


def _in_order(names):
    '''A folder's perflogs, each one's rotated files (oldest first)
    before it.'''
    def key(name):
        match = _ROTATED.match(name)
        number = match['number']
        return (match['name'], 0 if number is not None else 1,
                int(number or 0))

    return sorted((n for n in names if _ROTATED.match(n)), key=key)


class RunPerflogs:
    '''The run's perflogs under ``folder``, the nodes' added one node
    after the other (:meth:`merge`): each file is opened once for all the
    nodes and its header read once, not opened, read and closed again for
    every node's lines (three opens a check a node, a third of the
    collecting of a 1,000-node night).'''

    def __init__(self, folder):
        self.folder = folder
        #: ``{path: (open file, its header)}``
        self._files = {}
        #: ``{node: lines}`` left out of the nodes' lines (:meth:`merge`)
        self.not_its_own = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for fp, _ in self._files.values():
            fp.close()
        self._files.clear()

    def _file(self, target, header):
        '''The open perflog ``target`` of lines of ``header``; a file
        of another header moved aside first.'''
        fp, found = self._files.pop(target, (None, None))
        if fp is None:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            found = _header(target)
        else:
            fp.close()

        if found is not None and found != header:
            _rotate(target)
            found = None

        fp = open(target, 'ab')
        if found is None:
            fp.write(header + b'\n')
        self._files[target] = (fp, header)
        return fp

    def _add(self, target, header, lines):
        '''Append ``lines`` (bytes, of ``header``, each ending in a
        newline) to the perflog ``target``.'''
        fp, found = self._files.get(target, (None, None))
        if fp is None or found != header:
            fp = self._file(target, header)
        fp.write(lines)

    def merge(self, source, node=None):
        '''Append the perflogs under ``source`` (``node``'s) to those of
        the same relative paths; how many lines. A line pinned to another
        node than ``node`` is left out (:attr:`not_its_own`). They are on
        disk when it returns: a node marked merged after it is not added
        twice by a collecting begun again.'''
        added = 0
        for folder, _, names in sorted(os.walk(source)):
            into = os.path.join(self.folder,
                                os.path.relpath(folder, source))
            for name in _in_order(names):
                try:
                    with open_regular(os.path.join(folder, name),
                                      'rb') as fp:
                        header, _, lines = fp.read().partition(b'\n')
                except NotRegular:
                    # a node's pipe or device is no perflog of its
                    continue

                if lines and not lines.endswith(b'\n'):
                    lines += b'\n'
                if node is not None:
                    lines = self._its_own(lines, node)
                if lines:
                    self._add(
                        os.path.join(into, _ROTATED.match(name)['name']),
                        header, lines)
                    added += lines.count(b'\n')

        for fp, _ in self._files.values():
            fp.flush()
        return added

    def _its_own(self, lines, node):
        '''``lines`` but those pinned to another node than ``node``.'''
        if all(_same_node(pinned, node)
               for pinned in set(_PINNED.findall(lines))):
            return lines

        each = lines.split(b'\n')[:-1]
        own = [line for line in each
               if all(_same_node(pinned, node)
                      for pinned in _PINNED.findall(line))]
        self.not_its_own[node] = (self.not_its_own.get(node, 0) +
                                  len(each) - len(own))
        return b''.join(line + b'\n' for line in own)


def _same_node(pinned, node):
    return same_node(pinned.decode('utf-8', 'replace'), node)
