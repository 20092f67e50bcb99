'''Where a nightly's wall time goes: the benchmark programs' own run time
against everything around them.

    suite_cost.py TIMELINE.json REPORT.json [REPORT.json...]

TIMELINE is what ci/bench/process_timeline.py recorded of the nightly
(ci/acceptance.sh), REPORT its ReFrame JSON report(s). A benchmark
program is a process, inside a ReFrame job script, whose name is the
``executable`` of a check of the report. Every instant of the wall time
goes to one class, the first of these that has a process running then:

  programs   the benchmark programs
  jobs       the rest of the job scripts: launcher, ``spack load``,
             node-state probes, the shell between them
  builds     ReFrame's build scripts (in-tree builds, ``spack install``)
  polling    a job or build script has ended and ReFrame has not yet
             noticed (its poll interval grows to 10 s on long jobs)
  commands   other processes ReFrame started (``spack find`` in setup
             hooks, topology probes)
  setup      ci/setup.sh
  reports    hpc-acceptance after ReFrame (summary, page, verdict)
  reframe    ReFrame alone: loading checks, setup, sanity, performance,
             reports and the results database
  other      the wrapper scripts alone

Prints one line per figure: wall time, the programs' time, their ratio
(goal <= 1.3), then the other classes with their largest parts, ReFrame's
own timings (its jobs from submission to completion, the builds'
time_compile) and the checks with the most time around their programs.
'''

import argparse
import json
import os
import sys
from collections import defaultdict

#: Classes in order of precedence, and how the output names them.
CLASSES = {
    'programs': 'benchmark programs',
    'jobs': 'job scripts around the programs',
    'builds': 'builds',
    'polling': 'ReFrame noticing an ended job',
    'commands': "ReFrame's other commands",
    'setup': 'ci/setup.sh',
    'reports': 'summary, page and verdict',
    'reframe': 'ReFrame itself',
    'other': 'other',
}

#: Interpreters whose script, not themselves, names a process.
_INTERPRETERS = {'bash', 'sh', 'dash', 'env', 'perl'}

#: The goal: wall time at most this times the programs' time.
GOAL = 1.3


def process_name(argv):
    '''``reframe`` for ``python .venv/bin/reframe -C ...``, ``setup.sh``
    for ``bash ci/setup.sh``, ``lock`` for ``python3 -m
    hpc_acceptance.tools.launch.lock``.'''
    if not argv:
        return '?'

    words = list(argv)
    name = os.path.basename(words.pop(0))
    while (name in _INTERPRETERS or name.startswith('python')) and words:
        word = words.pop(0)
        if word == '-m' and words:
            return words[0].rsplit('.', 1)[-1]

        if word.startswith('-'):
            continue

        name = os.path.basename(word)

    return name


def program_names(cases):
    return {os.path.basename(str(case['executable']))
            for case in cases if not case.get('fixture')
            and case.get('executable') not in (None, '<undefined>')}


class Processes:
    '''The timeline's processes with their ancestors.'''

    def __init__(self, records):
        self.records = records
        self.by_pid = defaultdict(list)
        for record in records:
            record['name'] = process_name(record['argv'])
            self.by_pid[record['pid']].append(record)

    def parent(self, record):
        return next((p for p in self.by_pid.get(record['ppid'], ())
                     if p['start'] <= record['start'] <= p['end']), None)

    def lineage(self, record):
        '''The record and its ancestors, nearest first.'''
        while record is not None:
            yield record
            record = self.parent(record)


def intervals(processes, programs):
    '''``(start, end, class, label, test, depth)`` of every process: what
    it was doing, for whom, and how deep in the tree.'''
    for record in processes.records:
        lineage = list(processes.lineage(record))
        names = [r['name'] for r in lineage]
        script = next((r for r in lineage
                       if r['name'] in ('rfm_job.sh', 'rfm_build.sh')),
                      None)
        start, end, depth = record['start'], record['end'], len(lineage)
        if script is not None:
            test = os.path.basename(script['cwd'])
            kind = 'jobs' if script['name'] == 'rfm_job.sh' else 'builds'
            if record is script and record['zombie'] is not None:
                yield record['zombie'], end, 'polling', test, test, depth
                end = record['zombie']

            if kind == 'jobs' and record['name'] in programs:
                kind = 'programs'
            yield start, end, kind, record['name'], test, depth
        elif 'reframe' in names[1:]:
            yield start, end, 'commands', record['name'], None, depth
        elif record['name'] == 'reframe':
            yield start, end, 'reframe', 'reframe', None, depth
        elif 'setup.sh' in names:
            yield start, end, 'setup', record['name'], None, depth
        elif 'hpc-acceptance' in names:
            # the subcommand: summary, report, verdict
            label = (record['argv'][2] if record['name'] == 'hpc-acceptance'
                     and len(record['argv']) > 2 else record['name'])
            yield start, end, 'reports', label, None, depth
        else:
            yield start, end, 'other', record['name'], None, depth


def attribute(spans, wall_start, wall_end, order=tuple(CLASSES)):
    '''Seconds per class, per (class, label) and per (class, test): each
    instant goes to the first class of ``order`` running then, and within
    it to the most recently started process. An instant with nothing
    running goes to the last class of ``order``.'''
    order = list(order)
    events = sorted({wall_start, wall_end,
                     *(t for s in spans for t in s[:2]
                       if wall_start <= t <= wall_end)})
    spans = sorted(spans, key=lambda s: s[0])
    per_class, per_label, per_test = (defaultdict(float), defaultdict(float),
                                      defaultdict(float))
    active, index = [], 0
    for begin, finish in zip(events, events[1:]):
        while index < len(spans) and spans[index][0] <= begin:
            active.append(spans[index])
            index += 1
        active = [s for s in active if s[1] > begin]
        if not active:
            per_class[order[-1]] += finish - begin
            continue

        top = min(order.index(s[2]) for s in active)
        # the youngest process, the deepest of those started together
        leaf = max((s for s in active if order.index(s[2]) == top),
                   key=lambda s: (s[0], s[5]))
        seconds = finish - begin
        per_class[leaf[2]] += seconds
        per_label[leaf[2], leaf[3]] += seconds
        if leaf[4]:
            per_test[leaf[2], leaf[4]] += seconds

    return per_class, per_label, per_test


def largest(parts, cls, count=4):
    items = sorted(((seconds, label) for (c, label), seconds in parts.items()
                    if c == cls), reverse=True)[:count]
    return ', '.join(f'{label} {seconds:.1f}' for seconds, label in items)


def read_report(path):
    with open(path) as fp:
        report = json.load(fp)

    return report['session_info'], [case for run in report['runs']
                                    for case in run['testcases']]


def summary(timeline, reports, out=sys.stdout):
    '''Prints the cost lines.'''
    cases = []
    sessions = []
    for path in reports:
        session, run_cases = read_report(path)
        sessions.append(session)
        cases += run_cases

    programs = program_names(cases)
    processes = Processes(timeline['processes'])
    wall = timeline['end'] - timeline['start']
    per_class, per_label, per_test = attribute(
        list(intervals(processes, programs)), timeline['start'],
        timeline['end'])
    ran = per_class['programs']
    print(f'nightly: {" ".join(timeline["command"])} (exit '
          f'{timeline["status"]}); looked every {timeline["interval"]} s',
          file=out)
    print(f'{"wall time":<36} {wall:8.1f} s', file=out)
    print(f'{CLASSES["programs"]:<36} {ran:8.1f} s  '
          f'({largest(per_label, "programs", 8) or "none ran"})', file=out)
    ratio = f'{wall / ran:.2f}' if ran else 'n/a'
    print(f'{"ratio wall / programs":<36} {ratio:>8}    (goal <= {GOAL})',
          file=out)
    print(f'where the rest goes ({wall - ran:.1f} s):', file=out)
    for cls, words in CLASSES.items():
        if cls == 'programs' or not per_class.get(cls):
            continue

        print(f'  {words:<34} {per_class[cls]:8.1f} s  '
              f'({largest(per_test if cls == "polling" else per_label, cls)})',
              file=out)

    # time_run of a case counts its wait for the partition's job slots
    # too; submission to completion is the job alone
    jobs = [c['job_completion_time_unix'] - c['job_submit_time']
            for c in cases if c.get('job_submit_time')
            and c.get('job_completion_time_unix')]
    print(f"ReFrame's report: session "
          f"{sum(s.get('time_elapsed') or 0 for s in sessions):.1f} s; "
          f"{len(jobs)} jobs from submission to completion {sum(jobs):.1f} s;"
          f" builds' time_compile "
          f"{sum(c.get('time_compile') or 0 for c in cases):.1f} s", file=out)
    tests = defaultdict(dict)
    for (cls, test), seconds in per_test.items():
        tests[test][cls] = seconds

    around = sorted(tests.items(), key=lambda item: -sum(
        s for c, s in item[1].items() if c != 'programs'))
    print('checks with the most time around their programs:', file=out)
    for test, parts in around[:8]:
        print(f'  {test:<40} ' + ', '.join(
            f'{cls} {seconds:.1f} s' for cls, seconds in
            sorted(parts.items(), key=lambda item: -item[1])), file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('timeline')
    parser.add_argument('reports', nargs='+')
    args = parser.parse_args(argv)
    try:
        with open(args.timeline) as fp:
            timeline = json.load(fp)
        summary(timeline, args.reports)
    except (OSError, ValueError, KeyError) as err:
        print(f'suite_cost: {err}', file=sys.stderr)
        return 2

    return 0


if __name__ == '__main__':
    sys.exit(main())
