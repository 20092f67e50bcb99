'''Which of a run's directories sit on a file system that is (nearly) full.

A run that meets a full disk fails in many places at once: a build, the
JSON report, the results database. Each says so in its own words, or not
at all (ReFrame only warns); this names the file systems to free instead.
'''

import os

#: Free space below which a file system counts as full: less than a run's
#: report, perflogs and database transaction need.
FULL_BELOW_BYTES = 4 * 1024 * 1024


def existing_parent(path):
    '''``path`` or the nearest directory above it that exists.'''
    path = os.path.abspath(path)
    while not os.path.exists(path):
        path = os.path.dirname(path)

    return path


def free_bytes(path):
    stat = os.statvfs(existing_parent(path))
    return stat.f_bavail * stat.f_frsize


def full(paths):
    '''``[(path, free bytes)]`` of the ``paths`` on a full file system,
    one per file system.'''
    seen, found = set(), []
    for path in paths:
        device = os.stat(existing_parent(path)).st_dev
        if device in seen:
            continue

        seen.add(device)
        free = free_bytes(path)
        if free < FULL_BELOW_BYTES:
            found.append((path, free))

    return found


def describe(found):
    '''One line per full file system, saying what to do.'''
    return [f'no space left on the file system of {path} ({free // 1024} '
            f'KiB free): free space there and run again'
            for path, free in found]
