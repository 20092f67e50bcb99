'''Post-upgrade's judgement: one verdict per figure of the run after the
upgrade against its baseline (:mod:`.baseline`), and the exit status.

Each figure of the run is compared with the first baseline that has runs
of its workload (the ``--before`` runs, else the nightly runs), node by
node for a fleet run, with the band of :mod:`..references.noise`; a figure
out of its band is ``regressed`` only if its confirmation rerun is too
(:data:`RECOVERED`). A figure the baseline holds and this run did not
produce is :data:`MISSING`, with why (:func:`missing`); one this run
recorded as no number, or beyond what its nodes could deliver
(:mod:`..results.plausible`), or :data:`..fleet.model.IMPLAUSIBLE_GAIN`
better than its baseline's median, is :data:`NO_MEASUREMENT`. A figure is
compared with its baseline in the run's unit, the baseline's converted
where the units are multiples of one another (:mod:`..results.units`),
else it is :data:`NOT_COMPARED`, as is one the run reported twice on a
node. A figure of how steady the repetitions were (the median repetition,
best/median: :func:`hpc_acceptance.core.references.unbounded`) is
:data:`NOT_JUDGED`: it moves with whatever else ran on the node that night,
before or after the upgrade, and the best repetition beside it is judged. :func:`judge_run` gives the rows, the failed checks and the exit
status as one value (:class:`Judgement`); :func:`conclusion` says it in
one line.
'''

import math
import re
import statistics
from collections import Counter, defaultdict
from typing import NamedTuple

from hpc_acceptance.core import identity
from hpc_acceptance.tools.fleet.comparison import is_fleet_run
from hpc_acceptance.tools.fleet.model import (gain_over, implausible,
                                              node_of, variant_key)
from hpc_acceptance.tools.fleet.wording import number
from hpc_acceptance.core.references import unbounded
from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results import skips, units
from hpc_acceptance.tools.results.runs import (FAILED_RESULTS, figures_of,
                                               unmeasured)
from hpc_acceptance.tools.upgrade import baseline

#: Verdict of a figure the baseline holds and this run did not produce.
MISSING = 'missing after the upgrade'

#: Verdict of a figure this run recorded as no number
#: (:mod:`..results.measurement`).
NO_MEASUREMENT = 'no measurement'

#: Verdict of a figure outside its band whose confirmation rerun was not.
RECOVERED = 'within noise on rerun'

#: Verdict of a figure that cannot be compared with its baseline, the note
#: says why: its baseline's unit is no multiple of its own, or the run
#: reported it twice on one node (which is its figure cannot be told).
#: Like a figure with no baseline, it leaves the run not validated.
NOT_COMPARED = 'not compared'

#: Verdict of a figure of how steady the repetitions were, shown with its
#: change and never counted: a baseline taken before the kernels printed
#: it is no fault of the upgrade, nor a quiet night before a busy one.
NOT_JUDGED = 'not judged'

#: Note of a :data:`NOT_JUDGED` figure.
STEADINESS = 'how steady the repetitions were; the best one is judged'

#: Order of the verdicts in the table: what needs attention first.
ORDER = (MISSING, NO_MEASUREMENT, 'regressed', NOT_COMPARED, 'no baseline',
         RECOVERED, 'improved', 'within noise', NOT_JUDGED)

#: Note of a verdict from fewer than ``--min-runs`` baseline runs.
FEW_RUNS = 'few baseline runs'

# The node ReFrame's --distribute pinned a test case to, in its name.
_NID = re.compile(r'%\.nid=\S+')


def _figure_id(case, variable, per_node):
    return (baseline.workload_key(case), variable,
            node_of(case) if per_node else None)


def _row(check, node, variable, key, unit, **values):
    '''A row of the table (see :func:`judge`) of figure ``variable`` of
    workload ``key`` (:func:`.baseline.workload_key`), no baseline yet.'''
    row = {'check': check, 'node': node, 'figure': variable,
           'partition': key[1], 'environ': key[2], 'identity': key[4],
           'unit': unit, 'value': None, 'baseline': None,
           'baseline_runs': 0, 'baseline_median': None, 'band': None,
           'change': None, 'rerun_value': None, 'rerun_change': None,
           'verdict': 'no baseline', 'note': ''}
    row.update(values)
    return row


def judge(new_cases, baselines, confirm_cases=(), min_runs=3, floors=None,
          console=None):
    '''One row per figure of ``new_cases`` (a dict each: check, node,
    figure, identity, baseline and its runs, median, band, value, change, the
    rerun's value and change, verdict, note), compared with the first of
    ``baselines`` (a list of :class:`.baseline.Baseline`) that has runs of its
    workload; per node when ``new_cases`` is a fleet run. ``floors`` are a
    system's own family floors (:func:`..references.noise.parse_floors`). Then
    one row per figure the baselines hold and this run did not produce
    (:func:`missing`; ``console``: ReFrame's output of the run, for the reasons
    of skips of its own).

    ``confirm_cases`` are the rerun of the suspects: a figure outside its
    band is ``regressed`` only if its rerun is too (or was not rerun), else
    :data:`RECOVERED`, with both values.
    '''
    per_node = is_fleet_run(new_cases)
    reruns = {}
    for case in confirm_cases:
        if not case.get('fixture'):
            for variable, figure in figures_of(case).items():
                reruns[_figure_id(case, variable, per_node)] = figure

    rows = []
    twice = _reported_twice(new_cases, per_node)
    for case in new_cases:
        if case.get('fixture'):
            continue

        key = baseline.workload_key(case)
        node = node_of(case) if per_node else None
        if case.get('result') == 'pass':
            rows += [_row(case['display_name'], node, variable, key, unit,
                          identity=case.get('identity', ''),
                          verdict=NO_MEASUREMENT, note=why)
                     for variable, (why, unit) in sorted(
                         unmeasured(case).items())]

        for variable, (value, unit) in sorted(figures_of(case).items()):
            row = _row(case['display_name'], node, variable, key, unit,
                       identity=case.get('identity', ''), value=value)
            rows.append(row)
            if (key, node) in twice:
                row.update(verdict=NOT_COMPARED, note=(
                    f'{twice[key, node]} test cases of it'
                    f'{f" on {node}" if node else ""} in this run: which '
                    f'is its figure cannot be told'))
                continue

            for source in baselines:
                stored, whose = source.lookup(key, variable, node)
                if stored:
                    break
            else:
                if unbounded(variable):
                    row.update(verdict=NOT_JUDGED, note=STEADINESS)
                continue

            given = source.units.get((key, variable), unit)
            scale = units.factor(given, unit)
            if scale is None:
                row.update(verdict=NOT_COMPARED, baseline=source.name,
                           baseline_runs=len(stored), note=(
                               f'the baseline is '
                               f'{units.other_unit(given, unit)}'))
                continue

            stored = [before * scale for before in stored]
            floor = noise.family_floor(key[0], floors)
            if len(stored) >= min_runs:
                median, width = noise.band(stored, floor)
            else:
                median, width = statistics.median(stored), floor
                row['note'] = FEW_RUNS

            row.update(baseline=source.name + (f' ({whose})' if node and
                                               whose != 'node' else ''),
                       baseline_runs=len(stored), baseline_median=median,
                       band=width, change=noise.change(row['value'], median),
                       verdict=noise.verdict(row['value'], median, width,
                                             unit))
            if unbounded(variable):
                row.update(verdict=NOT_JUDGED, note=STEADINESS)
            elif median <= 0:
                row.update(verdict='no baseline', note='the baseline\'s '
                           'median is 0: no measurement to compare with')
            elif row['value'] <= 0:
                row['note'] = '; '.join(filter(None, [
                    row['note'], 'a figure of 0 is no measurement']))
            elif implausible(gain := gain_over(row['value'], median, unit)):
                row.update(verdict=NO_MEASUREMENT, note=(
                    f'implausible: {math.exp(gain):.0e} '
                    f'times better than the baseline\'s median '
                    f'{number(median)} {unit}'))

            # in this run's unit; in one that is no multiple of it, none
            rerun = units.convert(*reruns.get(
                _figure_id(case, variable, per_node), (None, unit)), unit)
            if row['verdict'] == 'regressed' and rerun is not None:
                row.update(rerun_value=rerun,
                           rerun_change=noise.change(rerun, median))
                if noise.verdict(rerun, median, width, unit) != 'regressed':
                    row['verdict'] = RECOVERED

    rows += missing(new_cases, baselines, per_node, console)
    rows.sort(key=lambda r: (ORDER.index(r['verdict']), r['check'],
                             r['node'] or '', r['figure']))
    return rows


def _reported_twice(new_cases, per_node):
    '''``{(workload key, node): test cases}`` of the workloads the run
    ran in two test cases or more (on one node, for a fleet run).'''
    seen = Counter((baseline.workload_key(case),
                    node_of(case) if per_node else None)
                   for case in new_cases
                   if not case.get('fixture') and
                   case.get('result') != 'skip')
    return {key: count for key, count in seen.items() if count > 1}


def _other_work(before, after):
    '''``num_tasks 4 -> 8``: the inputs that differ between two
    workloads.'''
    old, new = identity.parse(before), identity.parse(after)
    return ', '.join(f'{name} {old.get(name, "(none)")} -> '
                     f'{new.get(name, "(none)")}'
                     for name in identity.differing_fields(before, after))


def _why_missing(key, variable, cases, skipped, node_ran):
    '''Why this run has no figure ``variable`` of workload ``key``:
    ``cases`` are its test cases of the same check variant (on the same
    node, for a fleet run), ``skipped`` ``{case name: skip reason}``.'''
    for case in cases:
        if case['result'] == 'skip':
            return f'skipped: {skipped[skips.case_name(case)]}'

    for case in cases:
        if case['result'] in FAILED_RESULTS:
            return (f'{case["result"]} in {case.get("fail_phase")}: '
                    f'{case.get("fail_reason") or "no reason recorded"}')

    for case in cases:
        if baseline.workload_key(case) != key:
            return (f'ran other work: '
                    f'{_other_work(key[4], baseline.workload_key(case)[4])}')

    if cases:
        return f'the check no longer reports {variable}'

    if not node_ran:
        return 'the node did not run'

    return 'no test case: the variant was not generated or not selected'


def _named(display_name, node):
    '''``display_name`` of a fleet run's test case on ``node``.'''
    return (_NID.sub(lambda _: f'%.nid={node}', display_name) if node
            else display_name)


def missing(new_cases, baselines, per_node=False, console=None):
    '''Rows of :data:`MISSING`: the figures that ``baselines`` hold and
    ``new_cases`` (a fleet run's node by node: ``per_node``) did not
    produce, each with its reason (:func:`_why_missing`; ``console``:
    ReFrame's output of the run).

    Every figure of the ``--before`` runs (the first baseline) is expected:
    of a fleet run, on each node, its own figures where the series has
    them, else every node's wherever it ran the check variant. A figure of the
    nightly runs (the second) only where this run has a test case of the
    same check variant that did not produce it: the post-upgrade set runs
    other work than the nightly by design (HPL's memory fraction).
    '''
    cases = [case for case in new_cases if not case.get('fixture')]
    tried, variants = defaultdict(list), defaultdict(list)
    for case in cases:
        variant = variant_key(baseline.workload_key(case))
        tried[variant, node_of(case) if per_node else None].append(case)
        variants[variant].append(case)

    ran = {node for _, node in tried}
    # a figure recorded as no number is no measurement, not missing
    keys = {(baseline.workload_key(case), variable,
             node_of(case) if per_node else None)
            for case in cases
            for variable in [*figures_of(case), *unmeasured(case)]}
    anywhere = {(key, variable) for key, variable, _ in keys}
    skipped = dict(skips.reasons(cases, console))

    found = {}
    before, others = baselines[0], baselines[1:]
    for (key, variable, node), stored in before.values.items():
        if unbounded(variable):
            continue

        per_node_figure = per_node and '%.nid=' in before.names[key]
        if node is None and per_node:
            # of a fleet run, a node with no figures of its own in the
            # series (it did not run there, or the series was no fleet
            # run) is held to every node's where it ran the check variant
            ran_variant = [(where, tried_cases) for (variant, where),
                           tried_cases in tried.items()
                           if variant == variant_key(key)]
            found.update(
                ((key, variable, where), (before, stored, tried_cases, True))
                for where, tried_cases in ran_variant
                if not (per_node_figure and
                        (key, variable, where) in before.values) and
                (key, variable, where) not in keys)
            if ran_variant:
                continue

        # a fleet run's figure per node, any other once
        if (node is not None) != per_node_figure:
            continue

        if node and (key, variable, node) not in keys:
            found[key, variable, node] = (
                before, stored,
                tried.get((variant_key(key), node), []), node in ran)
        elif not node and (key, variable) not in anywhere:
            found[key, variable, None] = (
                before, stored, variants.get(variant_key(key), []),
                True)

    for source in others:
        for (key, variable, node), stored in source.values.items():
            if node is not None or unbounded(variable) or \
                    before.values.get((key, variable, None)):
                continue

            for (variant, where), tried_cases in tried.items():
                if variant == variant_key(key) and \
                        (key, variable, where) not in keys and \
                        any(case['result'] != 'pass' or
                            baseline.workload_key(case) == key
                            for case in tried_cases):
                    found.setdefault((key, variable, where),
                                     (source, stored, tried_cases, True))

    return [_row(_named(source.names[key], node), node, variable, key,
                 source.units.get((key, variable), ''), verdict=MISSING,
                 baseline=source.name, baseline_runs=len(stored),
                 baseline_median=statistics.median(stored),
                 note=_why_missing(key, variable, tried_cases, skipped,
                                   node_ran))
            for (key, variable, node), (source, stored, tried_cases,
                                        node_ran) in found.items()]


def failed_checks(new_cases, confirm_cases=()):
    '''Display names of checks that failed, and failed their rerun too
    when they had one.'''
    rerun = {c['display_name']: c['result'] for c in confirm_cases}
    return sorted(c['display_name'] for c in new_cases
                  if c.get('result') in FAILED_RESULTS and
                  rerun.get(c['display_name'], c['result']) in FAILED_RESULTS)


def suspects(rows, new_cases):
    '''Hashes of the checks with a figure that looks regressed (ReFrame's
    ``hashcode``, which ``-n /<hash>`` selects).'''
    names = {r['check'] for r in rows if r['verdict'] == 'regressed'}
    return sorted({c['hashcode'] for c in new_cases
                   if c['display_name'] in names and c.get('hashcode')})


def exit_status(rows, failed):
    '''1: a figure regressed, is missing or has no measurement, or a check
    failed; 2: a figure had no baseline or was not compared (only partly
    validated) or none was judged; else 0.'''
    verdicts = Counter(r['verdict'] for r in rows)
    if failed or verdicts['regressed'] or verdicts[MISSING] or \
            verdicts[NO_MEASUREMENT]:
        return 1

    if verdicts['no baseline'] or verdicts[NOT_COMPARED] or \
            len(rows) == verdicts[NOT_JUDGED]:
        return 2

    return 0


def conclusion(rows, failed):
    '''The last line of the verdict: what :func:`exit_status` says.'''
    verdicts = Counter(r['verdict'] for r in rows)
    status = exit_status(rows, failed)
    if status == 1:
        found = [(verdicts['regressed'], 'figure(s) regressed'),
                 (verdicts[MISSING], f'figure(s) {MISSING}'),
                 (verdicts[NO_MEASUREMENT], f'figure(s) with '
                                            f'{NO_MEASUREMENT}'),
                 (len(failed), 'check(s) failed')]
        return 'post-upgrade FAILED: ' + ', '.join(
            f'{count} {what}' for count, what in found if count)

    compared = (len(rows) - verdicts['no baseline'] -
                verdicts[NOT_COMPARED] - verdicts[NOT_JUDGED])
    refused = (f'{verdicts[NOT_COMPARED]} of {len(rows)} figure(s) '
               f'{NOT_COMPARED} (see their notes)'
               if verdicts[NOT_COMPARED] else '')
    if not compared:
        if refused:
            return f'post-upgrade NOT VALIDATED: {refused}'

        return ('post-upgrade NOT VALIDATED: no figure had a baseline to '
                'compare with (run --before before the upgrade)')

    if status == 2:
        unbased = (f'{verdicts["no baseline"]} of {len(rows)} figure(s) '
                   f'had no baseline' if verdicts['no baseline'] else '')
        return (f'post-upgrade PARTLY VALIDATED: '
                f'{"; ".join(filter(None, [unbased, refused]))}; '
                f'{compared} compared, none regressed')

    recovered = (f'; {verdicts[RECOVERED]} {RECOVERED} (out of its band '
                 f'on the first run)' if verdicts[RECOVERED] else '')
    return f'post-upgrade passed: {compared} figure(s) compared{recovered}'


class Judgement(NamedTuple):
    '''The verdict of a run after the upgrade.'''

    #: One row per figure (:func:`judge`), what needs attention first.
    rows: list
    #: The checks that failed, and failed their rerun too
    #: (:func:`failed_checks`).
    failed: list
    #: The exit status (:func:`exit_status`).
    status: int


def judge_run(new_cases, baselines, confirm_cases=(), min_runs=3,
              floors=None, console=None):
    '''The :class:`Judgement` of ``new_cases``: :func:`judge`'s rows
    (same arguments), the failed checks and the exit status.'''
    rows = judge(new_cases, baselines, confirm_cases, min_runs, floors,
                 console)
    failed = failed_checks(new_cases, confirm_cases)
    return Judgement(rows, failed, exit_status(rows, failed))
