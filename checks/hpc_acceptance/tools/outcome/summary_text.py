'''The summary of a finished run, as text: the failures, the checks left
out and why, the nodes compared, the shifts, the export's state.
'''

import os
import sys
import textwrap
from collections import Counter, OrderedDict
from typing import NamedTuple

from hpc_acceptance.tools.export import run_export
from hpc_acceptance.tools.fleet import contention, fingerprint, wording
from hpc_acceptance.tools.fleet.node_map import left_out_line
from hpc_acceptance.tools.node_jobs.gather import lines as night_lines
from hpc_acceptance.tools.results import skips
from hpc_acceptance.tools.results.runs import FAILED_RESULTS, short_name


MAX_LINES = 40

_COLUMNS = ('pass', 'fail', 'skip')

_HEADERS = ('passed', 'failed', 'skipped')


def family_of(case):
    '''``npb`` for ``checks/npb/benchmarks.py``: the directory of the
    check file.'''
    return os.path.basename(os.path.dirname(case.get('filename') or '')) \
        or 'other'


def _wrap(text, width):
    '''``text`` as indented lines of at most ``width`` characters; the
    lines after the first indented further.'''
    return textwrap.wrap(' '.join(str(text).split()), width,
                         initial_indent='  ', subsequent_indent='      ',
                         break_on_hyphens=False) or ['  ']


def tally(testcases):
    '''``{family: Counter(pass=, fail=, skip=)}`` of the non-fixture
    test cases, families sorted.'''
    families = {}
    for case in testcases:
        if case.get('fixture'):
            continue

        result = 'fail' if case['result'] in FAILED_RESULTS else case['result']
        families.setdefault(family_of(case), Counter())[result] += 1

    return OrderedDict(sorted(families.items()))


def label(case):
    '''A test case as people read it: its variants at their defaults and
    ReFrame's partition parameter left out, the node of a fleet run said
    so (``on n4``), and where it ran.'''
    words = []
    for word in short_name(case['display_name']).split():
        if word.startswith('%.nid='):
            words.append(f'on {word.split("=", 1)[1]}')
        elif not word.startswith('%.'):
            words.append(word)

    return (f'{" ".join(words)} @{case["system"]}:{case["partition"]}+'
            f'{case["environ"]}')


def failures(testcases):
    '''``[(test case, reason)]`` of every failed test case, fixtures
    included (a failed build is why its checks did not run).'''
    return [(label(case),
             f'{case.get("fail_phase") or case["result"]}: '
             f'{case.get("fail_reason") or case["result"]}')
            for case in testcases if case['result'] in FAILED_RESULTS]


def left_out(testcases):
    '''The distinct notes on variants not generated, in first-seen order.'''
    notes = OrderedDict()
    for case in testcases:
        note = case.get('variants_left_out')
        if note:
            notes[note] = None

    return list(notes)


def shape_notes(testcases):
    '''What the node's shape decided, once per partition: the share of
    the node the run may use where less than all of it
    (``allowed_view``), the NUMA nodes of other kinds of memory not
    measured (``memory_kinds``), a hybrid CPU's
    kinds of core and the choice of cores (the checks' ``core_kinds``),
    each cache level not measured and why (``levels_not_measured``), in
    first-seen order.'''
    notes = OrderedDict()
    for case in testcases:
        where = f'{case.get("system")}:{case.get("partition")}'
        if case.get('allowed_view'):
            notes[f'{where}: {case["allowed_view"]}'] = None
        if case.get('memory_kinds'):
            notes[f'{where}: {case["memory_kinds"]}'] = None
        if case.get('core_kinds'):
            notes[f'{where}: {case["core_kinds"]}; all-cores and multi-rank '
                  f'cases ran on every kind (threads=performance_cores on '
                  f'the performance cores alone)'] = None
        # 'l3: a thread's share of L3 is 1.5 MiB with 72 threads ...'
        for level in filter(None, (case.get('levels_not_measured') or
                                   '').split('; ')):
            name, _, why = level.partition(': ')
            notes[f'{where}: {name} not measured: {why}'] = None

    return list(notes)


class _Section:
    '''A titled list of items, wrapped, cut to the lines it is given.'''

    def __init__(self, title, items, width, more='see the report page',
                 shown_empty=False):
        self.title = title
        self.items = [_wrap(item, width) for item in items]
        self.more = more
        #: the title alone says something (no suspect node)
        self.shown_empty = shown_empty

    @property
    def needed(self):
        if not self.items:
            return 1 if self.shown_empty else 0

        return 1 + sum(len(lines) for lines in self.items)

    def lines(self, room):
        if not self.items:
            return [self.title] if self.shown_empty and room else []

        if room < 2:
            return []

        out = [self.title]
        for number, lines in enumerate(self.items):
            after = 1 if number + 1 < len(self.items) else 0
            if len(out) + len(lines) + after > room:
                out.append(f'  ... {len(self.items) - number} more: '
                           f'{self.more}')
                break

            out += lines

        return out


def _fleet_items(fleets):
    several = len(fleets) > 1
    items = []
    for partition in fleets:
        where = f'{partition.name} ' if several else ''
        if partition.not_compared:
            items.append(f'{partition.name}: not compared across nodes: '
                         f'{partition.not_compared}')

        items += partition.findings()
        judged = partition.judged_groups
        if len(judged) > 1:
            items.append(f'{partition.name}: {len(judged)} groups of other '
                         f'hardware or software, judged apart: ' + '; '.join(
                             f'{len(g.nodes)} node(s) '
                             f'{fingerprint.describe(g.fingerprint)}'
                             for g in judged))

        items += [f'{where}{s.describe()}' for s in partition.suspects]
        items += [f'{where}{c.describe()}'
                  for c in contention.of_partition(partition)]
        items += [f'{where}{node}: {case} passed only when retried'
                  for node, case in partition.passed_on_retry]
        items += [f'{where}{node}: {label} {wording.number(first)} on the '
                  f'first run, {wording.number(then)} on its rerun: not a '
                  f'suspect' for node, label, first, then in
                  partition.recovered]
        items += [f'{where}{node} ran with other inputs, not compared: '
                  f'{case} ({what})'
                  for node, case, what in partition.other_inputs]

    return items


def _fleet_title(fleets):
    count = sum(len(f.suspects) for f in fleets)
    nodes = sum(len(f.nodes) for f in fleets)
    if count:
        return (f'suspect nodes ({count} of {nodes}; against the median of '
                f'their partition\'s nodes in this run):')

    return f'suspect nodes: none of {nodes} node(s)'


def _shifts_title(shifts):
    failing = sum(shift.failing for shift in shifts)
    recovered = sum(shift.recovered for shift in shifts)
    back = f'; {recovered} recovered' if recovered else ''
    return (f'shifts across nights ({len(shifts) - recovered}; {failing} '
            f'beyond their tolerance, the site\'s limit or their noise '
            f'floor{back}; largest first):')


def render(testcases, skipped, width=100, fleets=None, nodes=None,
           footer=(), shifts=(), night=()):
    '''The summary's lines; ``fleets`` is the fleet comparison of a fleet
    run (:func:`..fleet.comparison.compare`), ``nodes`` its node list
    (:mod:`..fleet.node_map`), ``footer`` the lines it ends with, ``shifts``
    the persistent shifts its figures' nightly series ended on
    (:func:`..shifts.nightly.shifts_of`), ``night`` how a fleet night of node
    jobs ran (:func:`..node_jobs.gather.lines`: its jobs, the limits that
    bound it, the nodes named or left out for their jobs).'''
    families = tally(testcases)
    lines = ['== acceptance summary ' + '=' * max(0, width - 22),
             f'{"family":<12}' + ''.join(f'{c:>8}' for c in _HEADERS)]
    for family, counts in families.items():
        lines.append(f'{family:<12}' +
                     ''.join(f'{counts[c]:>8}' for c in _COLUMNS))

    failed = failures(testcases)
    groups = skips.by_reason(skipped)
    suspects = _Section(_fleet_title(fleets or []),
                        _fleet_items(fleets or []), width,
                        'hpc-acceptance suspects',
                        shown_empty=fleets is not None)
    shifted = _Section(_shifts_title(shifts),
                       [shift.describe() for shift in shifts], width)
    failures_section = _Section(
        f'failed ({len(failed)}):',
        [f'{case}: {reason}' for case, reason in failed], width)
    skips_section = _Section(
        f'skipped, by reason ({len(skipped)}):',
        [f'{sum(checks.values()):>3} x {reason} ({", ".join(checks)})'
         for reason, checks in groups.items()], width)
    notes = _Section('not generated (no partition can hold them):',
                     left_out(testcases), width)
    shapes = _Section('decided from the node\'s shape:',
                      shape_notes(testcases), width)
    absent = _Section(
        'nodes left out (not in the state asked for when the run '
        'started):',
        [f'{partition} {left_out_line(n)}'
         for partition, about in (nodes or {}).items()
         for n in about.get('left_out', [])], width)

    jobs = _Section(night[0] if night else '',
                    [line.strip() for line in night[1:]], width,
                    shown_empty=bool(night))
    footer = [line for item in footer for line in textwrap.wrap(
        item, width, subsequent_indent='  ', break_on_hyphens=False)]
    budget = MAX_LINES - len(lines) - len(footer)
    rooms = {}
    for section, cap in ((jobs, 6), (suspects, max(4, budget // 3)),
                         (failures_section, max(4, budget // 2)),
                         (shifted, max(4, budget // 4)),
                         (absent, 4), (notes, 6), (shapes, 5)):
        rooms[id(section)] = min(section.needed, cap,
                                 budget - sum(rooms.values()))

    rooms[id(skips_section)] = budget - sum(rooms.values())
    for section in (jobs, suspects, failures_section, shifted,
                    skips_section, notes, shapes, absent):
        lines += section.lines(rooms[id(section)])

    return lines[:MAX_LINES - len(footer)] + footer


class Summary(NamedTuple):
    '''The summary of a run and what it says on standard error: why
    there is none (``error``), else a warning before its lines and a note
    after them (``None`` where there is nothing to say).'''
    lines: list
    error: str = None
    warning: str = None
    note: str = None


def summary_of(run, width=100, *, db_path, site_dir):
    '''The :class:`Summary` of the :class:`.finished_run.FinishedRun`
    ``run``: no lines where it cannot be read or compared; what waits for
    the site's store (the export setting of the site directory
    ``site_dir``) is read beside the results database ``db_path``.'''
    error = run.unreadable or run.fleet_error or run.nodes_error
    if error:
        return Summary([], error=error)

    console = ''.join(skips.read(log) or '' for log in run.logs)
    # the noise floors the bands were drawn with, and the site's
    # time-series store: what it took of this run, what waits
    return Summary(render(run.testcases, skips.reasons(run.testcases, console),
                          width, run.fleets, run.node_map,
                          [run.floors[1]] + run_export.status_lines(
                              run.parsed, db_path, site_dir),
                          run.shifts,
                          [line for report in run.parsed
                           for line in night_lines(report)]),
                   warning=run.shift_error, note=run.fleet_note)


def show(told):
    '''Print the summary ``told``.'''
    for line in filter(None, (told.error, told.warning)):
        print(f'summary: {line}', file=sys.stderr)

    if told.lines:
        print('\n'.join(told.lines))

    if told.note:
        print(f'summary: {told.note}', file=sys.stderr)
