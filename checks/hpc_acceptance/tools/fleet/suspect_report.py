'''The suspects of a fleet run as ``hpc-acceptance suspects`` shows them:
lines for people (``--format text``) and the same for scripts
(``--format json``).'''

from hpc_acceptance.tools.fleet import contention, fingerprint
from hpc_acceptance.tools.fleet.node_map import left_out_line
from hpc_acceptance.tools.fleet.wording import node_list, number


def text_lines(fleets, nodes=None):
    '''The suspects of each partition, its findings, and what was not
    compared.'''
    lines = []
    for partition in fleets:
        count = len(partition.suspects)
        if partition.not_compared:
            lines.append(f'{partition.name}: not compared across nodes: '
                         f'{partition.not_compared}')

        judged = partition.judged_groups
        if len(judged) > 1:
            lines.append(f'{partition.name}: {len(judged)} groups of nodes '
                         f'of other hardware or software, each judged on '
                         f'its own:')
            lines += [f'  {len(g.nodes)} node(s) ({node_list(g.nodes)})'
                      f': {fingerprint.describe(g.fingerprint)}'
                      for g in judged]

        lines += partition.findings()
        lines.append(f'{partition.name}: {count} suspect node(s) of '
                     f'{len(partition.nodes)}'
                     f'{":" if count else ""}')
        lines += [f'  {s.describe()}' for s in partition.suspects]
        lines += [f'  {c.describe()}'
                  for c in contention.of_partition(partition)]
        lines += [f'  passed only when retried: {node}: {case}'
                  for node, case in partition.passed_on_retry]
        lines += [f'  within the fleet on its rerun: {node}: {label} '
                  f'{number(first)} on the first run, '
                  f'{number(then)} on the rerun'
                  for node, label, first, then in partition.recovered]
        lines += [f'  ran with other inputs: {node}: {case} ({what})'
                  for node, case, what in partition.other_inputs]

    for partition, about in (nodes or {}).items():
        lines += [f'{partition}: left out: {left_out_line(n)}'
                  for n in about.get('left_out', [])]

    return lines


def as_json(fleets, nodes=None):
    '''``--format json``: what :func:`text_lines` says, for scripts.'''
    return {
        'partitions': [{
            'partition': p.name, 'nodes': len(p.nodes),
            'not_compared': p.not_compared,
            'groups': [{'nodes': g.nodes,
                        'fingerprint': fingerprint.describe(g.fingerprint)}
                       for g in p.groups],
            'findings': p.findings(),
            'suspects': [{
                'node': s.node, 'again': s.again, 'differs': s.differs,
                'failures': [{'check': c, 'reason': r}
                             for c, r in s.failures],
                'no_measurement': [{'figure': f, 'recorded': w}
                                   for f, w in s.unmeasured],
                'figures': [{'figure': o.figure.label,
                             'unit': o.figure.unit, 'value': o.value,
                             'fleet_median': o.median, 'band': o.band,
                             'change': o.change} for o in s.outliers],
            } for s in p.suspects],
            'passed_on_retry': [{'node': n, 'check': c}
                                for n, c in p.passed_on_retry],
            'recovered_on_rerun': [{'node': n, 'figure': f, 'first': a,
                                    'rerun': b}
                                   for n, f, a, b in p.recovered],
            'other_inputs': [{'node': n, 'check': c, 'differs': w}
                             for n, c, w in p.other_inputs],
            'left_out': (nodes or {}).get(p.name, {}).get('left_out', []),
        } for p in fleets]
    }
