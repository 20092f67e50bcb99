'''What else used this machine's CPUs while a quiet test held them alone.

A quiet test (conftest.READS_FIGURES) judges figures measured here; when
one fails, the first question is what ran beside it: a process another
test left behind, a daemon of the other worker's cluster, or the host
taking this VM's CPUs (steal). Two snapshots of /proc, one when the test
took the cores and one when it failed, answer it. A process that started
and ended between them is not seen: its time went to its parent's
children's time, which this does not read.
'''

import contextlib
import os
from typing import NamedTuple

TICKS = os.sysconf('SC_CLK_TCK')

#: CPU seconds under which a process is not named.
LEAST_SECONDS = 0.5


class Snapshot(NamedTuple):
    #: ``{pid: (command, parent pid, CPU ticks of user and system)}``
    processes: dict
    #: the ticks the host took from this VM's CPUs, all CPUs
    steal: int


def _process(pid):
    with open(f'/proc/{pid}/stat') as stat:
        text = stat.read()

    # the command is in parentheses and may hold anything, spaces too
    name = text[text.index('(') + 1:text.rindex(')')]
    fields = text[text.rindex(')') + 2:].split()
    return name, int(fields[1]), int(fields[11]) + int(fields[12])


def snapshot():
    ''':class:`Snapshot` of every process now.'''
    processes = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            # gone since listed, or not ours to read
            with contextlib.suppress(OSError, ValueError, IndexError):
                processes[int(entry)] = _process(entry)

    with open('/proc/stat') as stat:
        steal = int(stat.readline().split()[8])

    return Snapshot(processes, steal)


def _descends(pid, ancestor, processes):
    seen = set()
    while pid in processes and pid not in seen:
        if pid == ancestor:
            return True
        seen.add(pid)
        pid = processes[pid][1]

    return pid == ancestor


def beside(before, after, own, least=LEAST_SECONDS):
    '''Lines saying the steal and each process, not ``own`` nor below
    it, that used ``least`` CPU seconds or more from ``before`` to
    ``after``, the busiest first.'''
    used = []
    for pid, (name, _, ticks) in after.processes.items():
        if _descends(pid, own, after.processes):
            continue
        earlier = before.processes.get(pid)
        start = earlier[2] if earlier and earlier[0] == name else 0
        seconds = (ticks - start) / TICKS
        if seconds >= least:
            used.append((seconds, pid, name))

    lines = [f'steal (the host running something else on this VM\'s '
             f'CPUs): {(after.steal - before.steal) / TICKS:.1f} s']
    lines += [f'pid {pid} {name!r}: {seconds:.1f} s of CPU'
              for seconds, pid, name in sorted(used, reverse=True)]
    if not used:
        lines.append(f'no other process used {least} s of CPU or more')
    return lines
