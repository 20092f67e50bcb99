'''Post-upgrade's verdict table: the lines a sysadmin reads, one per
figure (a fleet run: the figures not within noise, counted, and the nodes
that regressed or lost figures), and the JSON it is written as.'''

import json
from collections import Counter

from hpc_acceptance.tools.results.runs import short_name
from hpc_acceptance.tools.upgrade.judgement import (MISSING, NOT_JUDGED,
                                                    ORDER)


def _name(row):
    '''The check without default variants or ReFrame-made parameters.'''
    words = [w for w in row['check'].split() if not w.startswith('%.')]
    node = f' @{row["node"]}' if row['node'] else ''
    return f'{short_name(" ".join(words))}{node} {row["figure"]}'


def _number(value):
    return '-' if value is None else f'{value:.4g}'


def _percent(value):
    return '-' if value is None else f'{100 * value:+.1f}%'


def format_table(rows, failed, per_node=False):
    '''The verdict table; for a fleet run only the figures that are not
    within noise, counted, and the nodes that regressed. A figure that was
    rerun shows both values.'''
    shown = [r for r in rows if not per_node or
             r['verdict'] not in ('within noise', NOT_JUDGED)]
    width = max([len('verdict')] + [len(r['verdict']) for r in shown])
    lines = [f'{"verdict":<{width}} {"check / figure":<50} {"baseline":>14} '
             f'{"median":>9} {"band":>6} {"new":>9} {"rerun":>9} '
             f'{"change":>7} unit']
    for r in shown:
        band = '-' if r['band'] is None else f'±{100 * r["band"]:.0f}%'
        source = (f'{r["baseline"].split()[0]}x{r["baseline_runs"]}'
                  if r['baseline'] else '-')
        notes = [r['note']] if r['note'] else []
        if r['rerun_change'] is not None:
            notes.append(f'rerun {_percent(r["rerun_change"])}')
        note = f'  ({"; ".join(notes)})' if notes else ''
        lines.append(f'{r["verdict"]:<{width}} {_name(r):<50} {source:>14} '
                     f'{_number(r["baseline_median"]):>9} {band:>6} '
                     f'{_number(r["value"]):>9} '
                     f'{_number(r["rerun_value"]):>9} '
                     f'{_percent(r["change"]):>7} {r["unit"]}{note}')

    if per_node:
        counts = Counter(r['verdict'] for r in rows)
        lines.append('figures: ' + ', '.join(f'{counts[v]} {v}'
                                             for v in ORDER if counts[v]))
        for verdict, label in (('regressed', 'regressed'),
                               (MISSING, 'lost figures')):
            nodes = Counter(r['node'] for r in rows
                            if r['verdict'] == verdict and r['node'])
            if nodes:
                lines.append(f'nodes that {label}: ' + ', '.join(
                    f'{node} ({count} figure(s))'
                    for node, count in nodes.most_common()))

    lines += [f'FAILED check: {name}' for name in failed]
    return '\n'.join(lines)


def as_json(judged, reports, baseline_query, changed):
    '''The verdict table as the JSON ``--json`` writes: the runs' reports,
    the ``--baseline`` sessions, what changed (:mod:`.what_changed`), the
    exit status, the failed checks and the rows of ``judged`` (a
    :class:`.judgement.Judgement`).'''
    return json.dumps(
        {'reports': reports, 'baseline': baseline_query,
         'what_changed': changed, 'exit_status': judged.status,
         'failed_checks': judged.failed, 'figures': judged.rows}, indent=2)
