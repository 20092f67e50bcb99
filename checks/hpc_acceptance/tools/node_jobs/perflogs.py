'''The nodes' perflogs of a fleet night, added to the run's.

Each node's ReFrame writes its perflogs in its own folder of the night (10
000 ReFrames appending to one file on a shared file system would
interleave their lines and headers). At the end the coordinator appends
each node's lines to the run's perflog of the same name, as one ReFrame
would have written them: a file starts with its header line; where the
header of the lines to add differs from the file's, the file is moved
aside to ``<name>.h<N>`` and a new one started (ReFrame's own rule, which
a check that failed its sanity triggers: its record has no figures).
'''

import os
import re

_ROTATED = re.compile(r'^(?P<name>.+\.log)(?:\.h(?P<number>\d+))?$')


def _header(path):
    try:
        with open(path) as fp:
            return fp.readline().rstrip('\n')
    except FileNotFoundError:
        return None


def _rotate(path):
    '''Move ``path`` aside to the first free ``<path>.h<N>``.'''
    number = 0
    while os.path.exists(f'{path}.h{number}'):
        number += 1

    os.rename(path, f'{path}.h{number}')


def add_lines(target, header, lines):
    '''Append ``lines`` (of ``header``) to the perflog ``target``.'''
    os.makedirs(os.path.dirname(target), exist_ok=True)
    found = _header(target)
    if found is not None and found != header:
        _rotate(target)
        found = None

    with open(target, 'a') as fp:
        if found is None:
            fp.write(header + '\n')
        fp.writelines(line if line.endswith('\n') else line + '\n'
                      for line in lines)


def _in_order(names):
    '''A folder's perflogs, each one's rotated files (oldest first)
    before it.'''
    def key(name):
        match = _ROTATED.match(name)
        number = match['number']
        return (match['name'], 0 if number is not None else 1,
                int(number or 0))

    return sorted((n for n in names if _ROTATED.match(n)), key=key)


def merge(source, target):
    '''Append the perflogs under ``source`` (a node's) to those of the
    same relative paths under ``target`` (the run's); how many lines.'''
    added = 0
    for folder, _, names in sorted(os.walk(source)):
        into = os.path.join(target, os.path.relpath(folder, source))
        for name in _in_order(names):
            with open(os.path.join(folder, name)) as fp:
                header, *lines = fp.readlines() or ['']

            if lines:
                add_lines(os.path.join(into, _ROTATED.match(name)['name']),
                          header.rstrip('\n'), lines)
                added += len(lines)

    return added
