'''The rules of the drain plan (hpc_acceptance.tools.fleet.drain) at their
edges: the cap with this tool's earlier drains, a suspect of a partition
the run does not list, what ``scontrol -o show node`` gives (real Slurm
22.05 lines, tests/fixtures/data/slurm/) and what a failing ``scontrol``
says. Each test pins a decision a mutant of the module changed while the
other tests passed (tests/README.md, "Mutation testing").
'''

import shutil

import pytest

from conftest import DATA_DIR
from hpc_acceptance.tools.fleet import drain

REAL = (DATA_DIR / 'slurm' / 'scontrol-show-node.n1.txt').read_text()
OURS = 'hpc-acceptance: 2026-11-24 failed StreamCheck'


def _node(name, state='IDLE', reason=None, partitions=None):
    line = REAL.splitlines()[0].replace('NodeName=n1 ', f'NodeName={name} ')
    line = line.replace('State=IDLE ', f'State={state} ')
    if partitions is not None:
        line = line.replace('Partitions=compute ', f'Partitions={partitions} ')
    if reason:
        line += f' Reason={reason} [root@2026-11-24T07:05:34]'

    return line


def _nodes(count):
    return {f'n{i}' for i in range(1, count + 1)}


def test_the_cap_counts_this_tools_earlier_drains_once_each():
    '''20 nodes, a share of 0.1: two drained at once. One drained the
    night before leaves room for one more, not none.'''
    states = drain.parse_nodes('\n'.join(
        [_node('n1', 'IDLE+DRAIN', OURS)] +
        [_node(f'n{i}') for i in range(2, 21)]))
    plan = drain.plan([('c', 'n5', 'slow'), ('c', 'n6', 'slow')],
                      states, {'c': _nodes(20)}, max_share=0.1)
    assert plan.drain == [('n5', 'slow')]
    assert plan.left_alone == [('n6', (
        'c: at most 2 of its 20 node(s) are kept drained by hpc-acceptance '
        'at once (--max-drain-share 0.1; 1 drained before and not '
        'resumed)'))]


def test_a_suspect_of_a_partition_the_run_does_not_list_is_drained():
    '''Slurm could not be asked and the run named no nodes of the
    partition: the suspect is a partition of one, one node may go.'''
    plan = drain.plan([('other', 'n3', 'slow'), ('other', 'n4', 'x')],
                      None, {})
    assert plan.drain == [('n3', 'slow')]
    assert [node for node, _ in plan.left_alone] == ['n4']


def test_a_node_this_tool_drained_is_left_as_it_is():
    states = drain.parse_nodes(_node('n1', 'IDLE+DRAIN', OURS))
    plan = drain.plan([('c', 'n1', 'slow')], states, {'c': _nodes(10)})
    assert plan.left_alone == [('n1', 'already drain+idle by hpc-acceptance')]


def test_a_line_that_is_no_node_is_passed_over_not_the_rest():
    states = drain.parse_nodes('\n'.join(
        ['', 'No nodes in the system', _node('n1'), _node('n2', 'DOWN')]))
    assert sorted(states) == ['n1', 'n2']


def test_partitions_and_states_are_read_whole():
    states = drain.parse_nodes('\n'.join([
        _node('n1', 'IDLE+DRAIN', partitions='compute,debug'),
        _node('n2', partitions='(null)'),
        'NodeName=n3 Arch=x86_64']))
    assert states['n1'].partitions == {'compute', 'debug'}
    assert states['n1'].states == {'IDLE', 'DRAIN'}
    assert states['n2'].partitions == frozenset()
    assert (states['n3'].states, states['n3'].partitions,
            states['n3'].reason) == (frozenset(), frozenset(), '')
    assert not states['n3'].out_of_service


def test_no_scontrol_on_path_is_said_so(tmp_path, monkeypatch):
    monkeypatch.setenv('PATH', str(tmp_path))
    with pytest.raises(drain.SlurmError) as raised:
        drain.node_states()
    assert str(raised.value) == 'scontrol is not on PATH'


@pytest.fixture
def no_cluster(tmp_path, monkeypatch):
    '''Real scontrol, given an empty slurm.conf: it fails at once and says
    why, as it does on a host whose Slurm is not set up.'''
    if not shutil.which('scontrol'):
        pytest.skip('Slurm\'s scontrol is not installed')

    conf = tmp_path / 'slurm.conf'
    conf.write_text('')
    monkeypatch.setenv('SLURM_CONF', str(conf))


def _refused(call, *args):
    with pytest.raises(drain.SlurmError) as raised:
        call(*args)
    message = str(raised.value)
    assert 'Unable to process configuration file' in message
    return message


def test_what_a_failing_scontrol_said_is_the_error(no_cluster):
    '''The error names the command and gives its words as text.'''
    assert _refused(drain.node_states).startswith(
        'scontrol -o show node: scontrol')


def test_a_drain_carries_this_tools_prefix_once(no_cluster):
    assert _refused(drain.drain, 'n3', 'slow "triad"').startswith(
        "scontrol update NodeName=n3 State=DRAIN Reason=hpc-acceptance: "
        "slow 'triad': scontrol")
    assert _refused(drain.drain, 'n3', f'{OURS}: slow').startswith(
        f'scontrol update NodeName=n3 State=DRAIN Reason={OURS}: slow: ')


def test_a_resume_returns_the_node_to_service(no_cluster):
    assert _refused(drain.resume, 'n3').startswith(
        'scontrol update NodeName=n3 State=RESUME: scontrol')


def test_a_suspect_of_two_partitions_is_drained_once_with_both_reasons():
    '''n2 is a suspect of a and of b (one node in two Slurm partitions):
    one drain, both reasons, the prefix and the day once; it counts in
    each partition's cap.'''
    plan = drain.plan(
        [('a', 'n2', 'hpc-acceptance: 2026-11-24 triad -50%'),
         ('a', 'n3', 'hpc-acceptance: 2026-11-24 copy -40%'),
         ('b', 'n2', 'hpc-acceptance: 2026-11-24 latency +98%')],
        None, {'a': _nodes(20), 'b': _nodes(10)}, max_share=0.1)
    assert plan.drain == [
        ('n2', 'hpc-acceptance: 2026-11-24 triad -50%; latency +98%'),
        ('n3', 'hpc-acceptance: 2026-11-24 copy -40%')]
    # b's cap is one node: n2 took it, so a's second suspect of b is left
    plan = drain.plan(
        [('a', 'n2', 'hpc-acceptance: 2026-11-24 triad -50%'),
         ('b', 'n2', 'hpc-acceptance: 2026-11-24 latency +98%'),
         ('b', 'n4', 'hpc-acceptance: 2026-11-24 copy -40%')],
        None, {'a': _nodes(20), 'b': _nodes(10)}, max_share=0.1)
    assert [node for node, _ in plan.drain] == ['n2']
    assert plan.left_alone[0][0] == 'n4'
    assert plan.left_alone[0][1].startswith('b: at most 1 of its 10')


def test_a_suspect_of_two_partitions_waits_for_room_in_both():
    plan = drain.plan(
        [('b', 'n4', 'hpc-acceptance: 2026-11-24 copy -40%'),
         ('a', 'n2', 'hpc-acceptance: 2026-11-24 triad -50%'),
         ('b', 'n2', 'hpc-acceptance: 2026-11-24 latency +98%')],
        None, {'a': _nodes(20), 'b': _nodes(10)}, max_share=0.1)
    assert [node for node, _ in plan.drain] == ['n4']
    assert plan.left_alone == [('n2', (
        'b: at most 1 of its 10 node(s) are kept drained by hpc-acceptance '
        'at once (--max-drain-share 0.1; 0 drained before and not '
        'resumed)'))]


def test_a_node_of_two_partitions_says_its_prefix_and_day_once():
    '''The second reason's prefix and day go where they repeat the
    first's; another day, or a reason of no prefix, is kept whole.'''
    day = 'hpc-acceptance: 2026-11-24'
    plan = drain.plan([('a', 'n1', f'{day} slow triad'),
                       ('b', 'n1', f'{day} slow copy'),
                       ('c', 'n1', 'hpc-acceptance: 2026-11-25 slow add'),
                       ('d', 'n1', 'failed its NHC')], None, {})
    assert plan.drain == [('n1', f'{day} slow triad; slow copy; '
                                 f'2026-11-25 slow add; failed its NHC')]


def test_a_reason_slurm_printed_without_who_set_it_is_read_to_its_end():
    line = _node('n1', 'IDLE+DRAIN')
    states = drain.parse_nodes('\n'.join([
        f'{line} Reason=NHC: /scratch full',
        f'{line.replace("n1", "n2", 1)} Reason=NHC: ib0 down '
        f'Comment=(null)']))
    assert states['n1'].reason == 'NHC: /scratch full'
    assert states['n2'].reason == 'NHC: ib0 down'


def test_a_field_written_in_a_reason_is_no_field_of_the_node():
    states = drain.parse_nodes(
        _node('n1', 'IDLE+DRAIN', 'NHC says State=IDLE Partitions=debug'))
    assert states['n1'].states == {'IDLE', 'DRAIN'}
    assert states['n1'].partitions == {'compute'}
    assert states['n1'].reason == 'NHC says State=IDLE Partitions=debug'
    # nor where the line has no such field of its own
    states = drain.parse_nodes(
        'NodeName=n3 Arch=x86_64 Reason=NHC: State=DOWN Partitions=debug')
    assert (states['n3'].states, states['n3'].partitions) == (
        frozenset(), frozenset())
