'''Whether a Turbo variant can be set and confirmed on a partition
(hpc_acceptance.core.turbo.setup_skip), before its job runs.'''

from hpc_acceptance.core import turbo
from hpc_acceptance.core.node_state import State

COMMANDS = {'on': ['echo 0 > f'], 'off': ['echo 1 > f']}


def test_a_remote_partition_needs_a_declared_control():
    assert turbo.setup_skip('on', None, 'c:p') == (
        'turbo=on: c:p declares no turbo control (extras.turbo_control): '
        'the state can be neither set nor confirmed')
    assert turbo.setup_skip('on', 'slurm', 'c:p') is None


def test_a_local_node_without_a_switch_cannot_confirm_the_state():
    state = State('unknown', 'no cpufreq driver')
    assert turbo.setup_skip('off', COMMANDS, 'l:d', state) == (
        'turbo=off: no cpufreq driver: the state can be neither set nor '
        'confirmed')


def test_a_local_node_runs_the_state_it_is_in_without_a_control():
    state = State('on', 'intel_pstate/no_turbo=0')
    assert turbo.setup_skip('on', None, 'l:d', state) is None
    assert turbo.setup_skip('off', None, 'l:d', state).startswith(
        'turbo=off: turbo is on on l:d (intel_pstate/no_turbo=0) and the '
        'partition declares no way to change it')
    assert turbo.setup_skip('off', COMMANDS, 'l:d', state) is None
