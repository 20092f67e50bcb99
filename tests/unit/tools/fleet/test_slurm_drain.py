'''Drains a sysadmin would sign (hpc_acceptance.tools.fleet.drain), on
``scontrol -o show node`` output as Slurm 22.05 prints it
(tests/fixtures/data/slurm/).'''

import pytest

from conftest import DATA_DIR
from hpc_acceptance.tools.fleet import drain
from hpc_acceptance.tools.fleet import resume

REAL = (DATA_DIR / 'slurm' / 'scontrol-show-node.n1.txt').read_text()


def _node(name, state='IDLE', reason=None):
    line = REAL.splitlines()[0].replace('NodeName=n1 ', f'NodeName={name} ')
    line = line.replace('State=IDLE ', f'State={state} ')
    if reason:
        line += f' Reason={reason} [root@2026-11-24T07:05:34]'

    return line


def _nodes(count):
    return {f'n{i}' for i in range(1, count + 1)}


def _states(*lines):
    return drain.parse_nodes('\n'.join(lines))


def test_states_and_reasons_are_read_whole():
    states = _states(_node('n1'), _node('n2', 'IDLE+DRAIN', 'DIMM errors'),
                     _node('n3', 'IDLE+DRAIN', 'hpc-acceptance: 2026-11-24 '
                                               'failed StreamCheck'))
    assert states['n1'].states == {'IDLE'} and states['n1'].reason == ''
    assert states['n2'].reason == 'DIMM errors'
    assert states['n2'].out_of_service and not states['n2'].ours
    assert states['n3'].ours


def test_an_administrators_node_and_one_out_of_service_are_left_alone():
    states = _states(_node('n1'), _node('n2', 'IDLE+DRAIN', 'DIMM errors'),
                     _node('n3', 'DOWN+NOT_RESPONDING', 'Not responding'),
                     _node('n4', 'IDLE', 'power capping test'))
    plan = drain.plan(
        [('c', n, 'hpc-acceptance: slow') for n in ('n2', 'n3', 'n4', 'n1',
                                                    'n9')],
        states, {'c': _nodes(10)}, max_share=1.0)
    assert plan.drain == [('n1', 'hpc-acceptance: slow')]
    assert dict(plan.left_alone) == {
        'n2': "already drain+idle with the reason 'DIMM errors'",
        'n3': "already down+not_responding with the reason 'Not "
              "responding'",
        'n4': 'it has a reason an administrator set: power capping test',
        'n9': 'Slurm does not know it',
    }


def test_at_most_a_share_of_a_partition_is_drained_at_once_worst_first():
    states = _states(*(_node(f'n{i}') for i in range(1, 41)))
    suspects = [('c', f'n{i}', 'slow') for i in (7, 3, 9, 1, 5)]
    plan = drain.plan(suspects, states, {'c': _nodes(40)},
                      max_share=0.1)
    assert [n for n, _ in plan.drain] == ['n7', 'n3', 'n9', 'n1']
    (node, why), = plan.left_alone
    assert node == 'n5'
    assert why == ('c: at most 4 of its 40 node(s) are kept drained by '
                   'hpc-acceptance at once (--max-drain-share 0.1; 0 drained '
                   'before and not resumed)')


def test_a_node_late_to_answer_is_drained_like_any_suspect():
    states = _states(_node('n1', 'IDLE+NOT_RESPONDING'))
    plan = drain.plan([('c', 'n1', 'x')], states, {'c': _nodes(10)})
    assert plan.drain == [('n1', 'x')]


def test_a_small_partition_may_lose_one_node():
    states = _states(*(_node(f'n{i}') for i in range(1, 5)))
    plan = drain.plan([('c', 'n1', 'x'), ('c', 'n2', 'y')], states,
                      {'c': _nodes(4)})
    assert [n for n, _ in plan.drain] == ['n1']


def test_resume_tests_only_its_own_drained_nodes_that_answer_slurm():
    ours = 'hpc-acceptance: 2026-11-24 failed StreamCheck'
    states = _states(_node('n1', 'IDLE+DRAIN', ours),
                     _node('n2', 'IDLE+DRAIN+NOT_RESPONDING', ours),
                     _node('n3', 'DOWN+DRAIN', ours),
                     _node('n4', 'IDLE+DRAIN', 'DIMM errors'),
                     _node('n5', 'IDLE'))
    assert resume.drained_by_us(states) == ['n1']
    assert resume.left_drained(states) == [('n2', 'NOT_RESPONDING'),
                                           ('n3', 'DOWN')]


# -- reasons are anyone's text: only the tool's own count ---------------------

def test_a_reason_that_holds_the_tools_own_is_not_the_tools():
    # NHC drains with the text of what it found: a process name, a user's
    states = _states(
        _node('n1', 'IDLE+DRAIN', 'NHC: check_ps_unauth_users: '
                                  'Reason=hpc-acceptance: 2026-11-24 slow'),
        _node('n2', 'IDLE+DRAIN', 'NHC: rogue process Reason=hpc-acceptance:'
                                  ' x State=IDLE Partitions=other'))
    assert not states['n1'].ours and states['n1'].ambiguous
    assert states['n2'].states == {'IDLE', 'DRAIN'}
    assert states['n2'].partitions == {'compute'}
    assert states['n2'].reason.startswith('NHC: rogue process Reason=')
    assert resume.drained_by_us(states) == []
    plan = drain.plan([('c', 'n1', 'hpc-acceptance: slow')], states,
                      {'c': _nodes(10)}, max_share=1.0)
    assert plan.drain == [] and 'already drain+idle with the reason' in \
        plan.left_alone[0][1]


def test_a_reason_is_read_up_to_who_set_it_and_the_fields_after_it():
    line = _node('n1', 'IDLE+DRAIN', 'hpc-acceptance: 2026-11-24 slow')
    newer = line + ' Comment=rack 4 Extra=x=1'
    # a reason of two lines: the second after the first's [user@time]
    continued = line + '        and more'
    for text in (line, newer, continued):
        (state,) = _states(text).values()
        assert state.reason == 'hpc-acceptance: 2026-11-24 slow'
        assert state.ours and state.drained_by_us


def test_a_line_of_no_node_name_slurms_form_is_left_out():
    states = _states(_node('n1'), _node('n$(id)'), _node('n2'))
    assert set(states) == {'n1', 'n2'}


def test_the_drain_and_resume_arguments_take_node_names_only():
    assert drain.drain_command('n1', 'slow\n\x1b[2K"x"') == [
        'scontrol', 'update', 'NodeName=n1', 'State=DRAIN',
        "Reason=hpc-acceptance: slow ^[[2K'x'"]
    assert drain.resume_command('n1') == ['scontrol', 'update',
                                          'NodeName=n1', 'State=RESUME']
    for node in ('n1\nn2', 'n1 State=RESUME', '$(id)'):
        with pytest.raises(ValueError):
            drain.drain_command(node, 'slow')
        with pytest.raises(ValueError):
            drain.resume_command(node)
