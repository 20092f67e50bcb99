'''The node-state probe (node_state.sh) on fake /sys trees, and its parser.'''

import os
import socket
import subprocess

import pytest

from hpc_acceptance.core import node_state


def fake_sysfs(root, files):
    for name, content in files.items():
        path = root / 'devices' / 'system' / 'cpu' / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content + '\n')

    return dict(os.environ, NODE_STATE_SYSFS=str(root))


def test_intel_pstate_with_turbo_disabled_and_smt_on(tmp_path):
    env = fake_sysfs(tmp_path, {'intel_pstate/no_turbo': '1',
                                'cpu0/cpufreq/scaling_driver': 'intel_pstate',
                                'smt/active': '1', 'smt/control': 'on'})
    states = node_state.probe_here(env)
    assert states['turbo'] == node_state.State(
        'off', 'intel_pstate/no_turbo=1')
    assert states['smt'] == node_state.State(
        'on', 'smt/active=1 smt/control=on')


def test_acpi_cpufreq_boost(tmp_path):
    env = fake_sysfs(tmp_path, {'cpufreq/boost': '1',
                                'cpu0/cpufreq/scaling_driver': 'acpi-cpufreq'})
    assert node_state.probe_here(env)['turbo'].value == 'on'


def test_driver_without_turbo_switch(tmp_path):
    env = fake_sysfs(tmp_path, {'cpu0/cpufreq/scaling_driver': 'cppc'})
    turbo = node_state.probe_here(env)['turbo']
    assert turbo.value == 'unknown'
    assert 'cppc has no turbo switch' in turbo.detail


def test_no_cpufreq_driver_like_this_vm(tmp_path):
    env = fake_sysfs(tmp_path, {'smt/active': '0',
                                'smt/control': 'notsupported'})
    states = node_state.probe_here(env)
    assert states['turbo'].value == 'unknown'
    assert 'no cpufreq driver' in states['turbo'].detail
    assert states['smt'] == node_state.State(
        'off', 'smt/active=0 smt/control=notsupported')


def test_output_without_the_lines_is_an_error():
    with pytest.raises(node_state.NodeStateError,
                       match='job.out: no smt line'):
        node_state.parse('turbo on intel_pstate/no_turbo=0\n', 'job.out')


def test_the_probe_names_its_node_as_the_scheduler_does(tmp_path):
    env = fake_sysfs(tmp_path, {})
    done = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, env=dict(env, SLURMD_NODENAME='nid0042'))
    assert node_state.node_name(done.stdout) == 'nid0042'
    env.pop('SLURMD_NODENAME', None)
    done = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, env=env)
    assert node_state.node_name(done.stdout) == \
        socket.gethostname().split('.')[0]
    assert node_state.node_name('turbo on x\nsmt on y\n') is None


def test_the_probe_reports_the_software_an_upgrade_changes(tmp_path):
    env = fake_sysfs(tmp_path, {})
    dmi = tmp_path / 'class' / 'dmi' / 'id'
    dmi.mkdir(parents=True)
    for name, text in (('bios_vendor', 'Acme'), ('bios_version', '2.4.1'),
                       ('bios_date', '03/01/2026')):
        (dmi / name).write_text(text + '\n')

    done = subprocess.run(['sh', node_state.SCRIPT, 'no-such-compiler'],
                          capture_output=True, text=True, env=env)
    software = node_state.software(done.stdout)
    assert software.startswith(f'kernel={os.uname().release}; '
                               f'bios=Acme 2.4.1 03/01/2026')
    assert 'compiler=' not in software
    assert node_state.software('software mpi Open MPI 5.0; x\n') == \
        'mpi=Open MPI 5.0, x'
