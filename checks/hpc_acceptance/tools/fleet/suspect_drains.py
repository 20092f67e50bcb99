'''The suspects of a fleet run as Slurm drains: each one's reason, the
``scontrol`` lines (``--format slurm``), and the drains themselves
(``--drain``), as :func:`.drain.plan` allows them.

The lines are for a shell: every word quoted, the suspects left out as
comments (:mod:`..common.shell_line`), whatever a report's figures, kernel
strings or Slurm's reasons hold.'''

from hpc_acceptance.tools.common import shell_line
from hpc_acceptance.tools.fleet import drain


def drain_reason(suspect, when):
    '''The Slurm drain reason: the tool's prefix, the date and what is
    worst.'''
    if suspect.differs:
        worst = f'differs: {suspect.differs[0]}'
    elif suspect.failures:
        worst = f'failed {suspect.failures[0][0]}'
    elif suspect.unmeasured:
        label, why = suspect.unmeasured[0]
        worst = f'no measurement: {label} ({why})'
    else:
        o = suspect.outliers[0]
        worst = f'{o.figure.label} {100 * o.change:+.0f}% vs fleet median'

    more = (len(suspect.differs) + len(suspect.failures) +
            len(suspect.unmeasured) + len(suspect.outliers) - 1)
    return drain.reason_text(f'{drain.PREFIX} {when} {worst}' +
                             (f' (+{more} more)' if more else ''))


def drain_commands(fleets, when):
    '''``scontrol update`` argument lists, one per suspect.'''
    return [drain.drain_command(s.node, drain_reason(s, when))
            for partition in fleets for s in partition.suspects]


def partition_nodes(fleets, nodes, states=None):
    '''``{partition: the nodes it has}``: those that ran, those the node
    list names (covered and left out), and every node of the Slurm
    partitions all of those that ran belong to (``states``: Slurm's, as
    :func:`.drain.node_states` gives them): a node drained on an earlier
    night is in none of tonight's test cases.'''
    states = states or {}
    found = {}
    for partition in fleets:
        members = set(partition.nodes)
        about = (nodes or {}).get(partition.name, {})
        members |= {n['node'] if isinstance(n, dict) else n
                    for n in about.get('covered', []) +
                    about.get('left_out', [])}
        slurm = [states[n].partitions for n in partition.nodes
                 if n in states and states[n].partitions]
        common = frozenset.intersection(*slurm) if slurm else frozenset()
        if common:
            members |= {n for n, state in states.items()
                        if common <= state.partitions}
        found[partition.name] = members

    return found


def drain_plan(fleets, when, nodes, max_share, states):
    ''':func:`.drain.plan` of the suspects of ``fleets``, the worst
    first.'''
    ranked = sorted(((p.name, s) for p in fleets for s in p.suspects),
                    key=lambda item: (-item[1].loss, item[1].node))
    return drain.plan(
        [(partition, s.node, drain_reason(s, when))
         for partition, s in ranked],
        states, partition_nodes(fleets, nodes, states), max_share)


def left_out_lines(left):
    '''Shell comments saying how many suspects a plan leaves out, and why
    each.'''
    if not left:
        return []

    return ([shell_line.comment(f'{len(left)} suspect(s) left out, not '
                                f'drained:')] +
            [shell_line.comment(f'{node}: {why}', indent='  ')
             for node, why in left])


def drain_suspects(fleets, when, nodes, max_share):
    '''Drain the suspects as :func:`.drain.plan` allows: ``(lines
    saying what happened, all drains succeeded)``.'''
    try:
        states = drain.node_states()
    except drain.SlurmError as err:
        return [f'suspects: {err}: no node was drained'], False

    plan = drain_plan(fleets, when, nodes, max_share, states)
    lines, ok = [], True
    for node, reason in plan.drain:
        try:
            drain.drain(node, reason)
            lines.append(f'drained {node}: {reason}')
        except drain.SlurmError as err:
            ok = False
            lines.append(f'could not drain {node}: {err}')

    lines += [f'not drained {node}: {why}' for node, why in plan.left_alone]
    return lines, ok


def slurm_lines(fleets, when, nodes, max_share):
    '''``--format slurm``: the ``scontrol`` line of each suspect that
    ``--drain`` would drain now (the cap and the nodes' states as Slurm
    gives them), then, as shell comments, how many suspects it leaves out
    and why each: ``(lines, note)``, ``note`` saying why Slurm could not
    be asked (the cap then counts these lines only), else ``None``.'''
    try:
        states, note = drain.node_states(), None
    except drain.SlurmError as err:
        states = None
        note = (f'suspects: {err}: the drain cap counts these lines only, '
                f'not the nodes drained before')

    plan = drain_plan(fleets, when, nodes, max_share, states)
    return ([shell_line.quoted(drain.drain_command(node, reason))
             for node, reason in plan.drain] +
            left_out_lines(plan.left_alone)), note
