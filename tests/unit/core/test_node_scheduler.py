'''The node itself as a ReFrame scheduler, in a fleet night's per-node job
(hpc_acceptance.core.node_scheduler): the node as Slurm names it, and the
task geometry a step started in the job script reads.'''

from types import SimpleNamespace

import pytest
from reframe.core.backends import getscheduler

from hpc_acceptance.core import node_scheduler


def _job(**fields):
    made = dict(num_tasks=None, num_tasks_per_node=None,
                num_tasks_per_core=None, num_tasks_per_socket=None,
                num_cpus_per_task=None, use_smt=None, options=[],
                cli_options=[])
    made.update(fields)
    return SimpleNamespace(**made)


def test_the_node_is_slurm_s_name_for_it(monkeypatch):
    monkeypatch.setenv('SLURMD_NODENAME', 'nid00042')
    assert node_scheduler.node_name() == 'nid00042'
    scheduler = getscheduler(node_scheduler.NAME)()
    assert [n.name for n in scheduler.allnodes()] == ['nid00042']
    assert scheduler.allnodes()[0].in_state('idle')


@pytest.mark.parametrize('name', ['n1;reboot', '-n1', 'a b', '../n1', ''])
def test_a_name_that_is_no_node_s_is_refused(monkeypatch, name):
    monkeypatch.setenv('SLURMD_NODENAME', name)
    if name:
        with pytest.raises(ValueError):
            node_scheduler.node_name()


def test_a_step_in_the_job_script_gets_the_test_s_tasks():
    job = _job(num_tasks=4, num_tasks_per_node=4, num_cpus_per_task=1,
               use_smt=False, options=['--cpu-freq=High', '--exclusive'],
               cli_options=['--hint=$(reboot)'])
    assert getscheduler(node_scheduler.NAME)().emit_preamble(job) == [
        'export SLURM_NTASKS=4', 'export SLURM_NTASKS_PER_NODE=4',
        'export SLURM_TASKS_PER_NODE=4', 'export SLURM_CPUS_PER_TASK=1',
        'export SLURM_HINT=nomultithread',
        'export SLURM_CPU_FREQ_REQ=High']


def test_a_single_task_job_asks_for_one_task():
    assert node_scheduler.step_environment(_job(num_tasks=1)) == [
        ('SLURM_NTASKS', '1'), ('SLURM_TASKS_PER_NODE', '1')]
