'''Runs a command and records when each of its descendant processes ran.

    process_timeline.py OUTPUT.json [--interval 0.1] [--also-under DIR] \
        -- COMMAND [ARGS...]

Every INTERVAL seconds it looks at /proc for new processes whose parent
it follows, and at the ones it follows for their end. ``--also-under``
follows new processes working in DIR or below it too, and what they
start: the jobs a scheduler started in ReFrame's stage directories, whose
parent is the scheduler's daemon, not the command (a process seen before
it changed into its directory is looked at once more). It only reads
/proc: nothing is installed or enabled on the host (process accounting
would be exact but is a machine-wide switch that a site may use for its
own accounting).

Each process gets its pid, parent, start (exact to the kernel's clock
tick, from /proc/PID/stat), ``zombie`` (when it was first seen exited but
not yet reaped by its parent: for a ReFrame job script, the time ReFrame
takes to notice), ``end`` (when it was first seen gone; late by up to one
interval), its command line (first words, as last seen: a process seen
between fork and exec still shows its parent's), working directory, and
CPU seconds as last seen: ``cpu`` its own (user + system), ``child_cpu``
that of its children it reaped (what it ran that ended before it).
Processes that live less than an interval may be missed; their time
counts as their parent's.

OUTPUT is JSON: {command, start, end, interval, status, processes}.
The exit status is COMMAND's.
'''

import argparse
import json
import os
import subprocess
import sys
import time

_CLOCK_TICKS = os.sysconf('SC_CLK_TCK')


def boot_time():
    '''The wall-clock time of boot, to the microsecond: /proc counts a
    process's start in clock ticks since boot (``btime`` of /proc/stat
    is whole seconds only).'''
    return time.time() - time.clock_gettime(time.CLOCK_BOOTTIME)


def stat_of(pid):
    '''``(ppid, state, start ticks, CPU ticks, reaped children's CPU
    ticks)`` of a process, ``None`` if gone.'''
    try:
        with open(f'/proc/{pid}/stat') as fp:
            text = fp.read()
    except OSError:
        return None

    # the command name, in parentheses, may hold spaces and parentheses
    fields = text[text.rindex(')') + 2:].split()
    # proc(5)'s fields 4, 3, 22, 14 + 15 and 16 + 17
    return (int(fields[1]), fields[0], int(fields[19]),
            int(fields[11]) + int(fields[12]),
            int(fields[13]) + int(fields[14]))


def details_of(pid):
    '''``(command line words, working directory)``, empty if gone.'''
    try:
        with open(f'/proc/{pid}/cmdline', 'rb') as fp:
            words = fp.read().split(b'\0')
        cwd = os.readlink(f'/proc/{pid}/cwd')
    except OSError:
        return [], ''

    return [w.decode(errors='replace')[:200] for w in words[:6] if w], cwd


class Timeline:
    '''The processes below one root, as seen at each look.'''

    def __init__(self, root, under=None):
        self.boot = boot_time()
        self.followed = {}      # pid -> record, while it lives
        self.done = []
        self.foreign = set()    # pids seen not to descend from the root
        self.unsure = set()     # pids seen once outside ``under``
        self.under = under
        ppid, _, ticks, _, _ = stat_of(root)
        self.follow(root, ppid, ticks)

    def follow(self, pid, ppid, start_ticks):
        argv, cwd = details_of(pid)
        self.followed[pid] = {
            'pid': pid, 'ppid': ppid, 'ticks': start_ticks,
            'start': self.boot + start_ticks / _CLOCK_TICKS,
            'zombie': None, 'end': None, 'argv': argv, 'cwd': cwd,
            'cpu': 0.0, 'child_cpu': 0.0}

    def look(self, now):
        for pid, record in list(self.followed.items()):
            stat = stat_of(pid)
            if stat is None or stat[2] != record['ticks']:
                record['end'] = now
                self.done.append(self.followed.pop(pid))
            elif stat[1] == 'Z':
                record['zombie'] = record['zombie'] or now
            else:
                record['cpu'] = stat[3] / _CLOCK_TICKS
                record['child_cpu'] = stat[4] / _CLOCK_TICKS
                # first seen between fork and exec, a process shows its
                # parent's command line (or none): keep the latest
                argv, cwd = details_of(pid)
                if argv:
                    record['argv'], record['cwd'] = argv, cwd

        new = {}
        for name in os.listdir('/proc'):
            if name.isdigit():
                pid = int(name)
                if pid not in self.followed and pid not in self.foreign:
                    stat = stat_of(pid)
                    if stat:
                        new[pid] = stat

        # parents before children: a child's parent may be new too
        for pid, (ppid, _, ticks, _, _) in sorted(
                new.items(), key=lambda item: item[1][2]):
            if ppid in self.followed or self.works_under(pid):
                self.follow(pid, ppid, ticks)
            elif self.under is None or pid in self.unsure:
                self.foreign.add(pid)
            else:
                self.unsure.add(pid)

    def works_under(self, pid):
        '''Whether the process works in ``under`` or below.'''
        if self.under is None:
            return False

        try:
            cwd = os.readlink(f'/proc/{pid}/cwd')
        except OSError:
            return False

        return os.path.commonpath([cwd, self.under]) == self.under

    def records(self, now):
        for record in self.followed.values():
            record['end'] = now

        return sorted(self.done + list(self.followed.values()),
                      key=lambda r: r['start'])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        usage='%(prog)s OUTPUT [--interval S] [--also-under DIR] -- '
              'COMMAND [ARGS...]')
    parser.add_argument('output')
    parser.add_argument('--interval', type=float, default=0.1)
    parser.add_argument('--also-under', metavar='DIR')
    if '--' not in argv or argv.index('--') == len(argv) - 1:
        parser.error('no COMMAND (after --)')

    split = argv.index('--')
    args = parser.parse_args(argv[:split])
    command = argv[split + 1:]
    if not args.interval > 0:
        parser.error(f'--interval {args.interval}: a positive number')

    under = args.also_under and os.path.realpath(args.also_under)
    start = time.time()
    proc = subprocess.Popen(command)
    timeline = Timeline(proc.pid, under)
    while proc.poll() is None:
        timeline.look(time.time())
        time.sleep(args.interval)

    end = time.time()
    timeline.look(end)
    with open(args.output, 'w') as fp:
        json.dump({'command': command, 'pid': proc.pid,
                   'start': start, 'end': end,
                   'interval': args.interval, 'status': proc.returncode,
                   'processes': timeline.records(end)}, fp, indent=1)

    return proc.returncode


if __name__ == '__main__':
    sys.exit(main())
