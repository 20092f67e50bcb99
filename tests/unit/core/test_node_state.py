'''The node-state probe (node_state.sh) on fake /sys trees, and its parser.'''

import os
import socket
import subprocess

import pytest
from reframe.utility.cpuinfo import cpuinfo

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

    proc = tmp_path / 'proc'
    proc.mkdir()
    (proc / 'cpuinfo').write_text('processor\t: 0\nmicrocode\t: 0xa0011d5\n'
                                  'processor\t: 1\nmicrocode\t: 0xa0011d5\n')
    done = subprocess.run(['sh', node_state.SCRIPT, 'no-such-compiler'],
                          capture_output=True, text=True,
                          env=dict(env, NODE_STATE_PROC=str(proc)))
    software = node_state.software(done.stdout)
    assert software.startswith(f'kernel={os.uname().release}; '
                               f'bios=Acme 2.4.1 03/01/2026; '
                               f'microcode=0xa0011d5')
    assert 'compiler=' not in software
    assert node_state.software('software mpi Open MPI 5.0; x\n') == \
        'mpi=Open MPI 5.0, x'


def test_nominal_clock_from_intel_pstate(tmp_path):
    env = fake_sysfs(tmp_path, {'intel_pstate/no_turbo': '0',
                                'cpu0/cpufreq/scaling_driver': 'intel_pstate',
                                'cpu0/cpufreq/base_frequency': '2400000',
                                'cpu0/cpufreq/cpuinfo_max_freq': '3500000'})
    text = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, env=env).stdout
    assert node_state.nominal_clock(text) == node_state.Nominal(
        2.4, 'cpu0/cpufreq/base_frequency')
    # the lines before it read as before
    assert node_state.parse(text)['turbo'].value == 'on'
    assert node_state.node_name(text)


def test_nominal_clock_is_acpi_cpufreqs_highest(tmp_path):
    # acpi-cpufreq lists no boost states: its highest is the nominal clock
    env = fake_sysfs(tmp_path, {'cpufreq/boost': '1',
                                'cpu0/cpufreq/scaling_driver': 'acpi-cpufreq',
                                'cpu0/cpufreq/cpuinfo_max_freq': '2250000'})
    text = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, env=env).stdout
    assert node_state.nominal_clock(text) == node_state.Nominal(
        2.25, 'cpu0/cpufreq/cpuinfo_max_freq (acpi-cpufreq)')


@pytest.mark.parametrize('files, why', [
    # amd-pstate and cppc state no nominal clock; their cpuinfo_max_freq
    # is the Turbo range's top
    ({'cpu0/cpufreq/scaling_driver': 'cppc',
      'cpu0/cpufreq/cpuinfo_max_freq': '3000000'},
     'the cpufreq driver cppc states no nominal clock'),
    ({}, 'no cpufreq driver'),
])
def test_nominal_clock_unknown_says_why(tmp_path, files, why):
    env = fake_sysfs(tmp_path, files)
    text = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, env=env).stdout
    assert node_state.nominal_clock(text) == node_state.Nominal(None, why)


def test_output_of_an_older_probe_has_no_nominal_clock():
    assert node_state.nominal_clock('turbo on x\nsmt on y\n').ghz is None


def cpu_tree(cores):
    '''A /sys cpu tree of ``cores``, each a list of CPU numbers, with the
    kernel's core_cpus masks.'''
    files = {}
    for core in cores:
        mask = format(sum(1 << cpu for cpu in core), 'x')
        files.update({f'cpu{cpu}/topology/core_cpus': mask for cpu in core})

    return files


@pytest.mark.parametrize('cores, cpus, count', [
    ([[0, 2], [1, 3]], 4, 2),          # SMT on: two CPUs a core
    ([[0], [1], [2], [3]], 4, 4),      # SMT off in the BIOS
])
def test_the_probe_counts_cpus_and_cores(tmp_path, cores, cpus, count):
    env = fake_sysfs(tmp_path, cpu_tree(cores))
    text = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, env=env).stdout
    live = node_state.topology(text)
    assert (live.cpus, live.cores) == (cpus, count)


def test_a_nul_ending_the_masks_is_no_core(tmp_path):
    # a 5.15 arm64 kernel (tests/fixtures/data/sysfs/128arm-*) ends every
    # mask with a NUL byte after its newline: 4 cores, not 5
    env = fake_sysfs(tmp_path, {})
    for name, mask in cpu_tree([[0], [1], [2], [3]]).items():
        path = tmp_path / 'devices' / 'system' / 'cpu' / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f'0000000{mask}\n\0'.encode())
    text = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, env=env).stdout
    live = node_state.topology(text)
    assert (live.cpus, live.cores) == (4, 4)


def test_thread_siblings_count_cores_on_older_kernels(tmp_path):
    files = {name.replace('core_cpus', 'thread_siblings'): mask
             for name, mask in cpu_tree([[0, 1], [2, 3]]).items()}
    env = fake_sysfs(tmp_path, files)
    text = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, env=env).stdout
    live = node_state.topology(text)
    assert (live.cpus, live.cores) == (4, 2)


def test_the_probe_counts_this_host_as_reframe_detects_it():
    info = cpuinfo()
    text = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, check=True).stdout
    live = node_state.topology(text)
    assert (live.cpus, live.cores) == (
        info['num_cpus'], info['num_cpus'] // info['num_cpus_per_core'])


def test_no_cpu_tree_no_topology(tmp_path):
    env = fake_sysfs(tmp_path, {})
    text = subprocess.run(['sh', node_state.SCRIPT], capture_output=True,
                          text=True, env=env).stdout
    assert node_state.topology(text).cpus is None
    assert node_state.topology('turbo on x\nsmt on y\n').cpus is None


def test_the_cpus_clocks_numa_distances_and_flags_are_read(tmp_path):
    env = fake_sysfs(tmp_path, {
        'cpu0/cpufreq/cpuinfo_max_freq': '5000000',
        'cpu0/cpufreq/base_frequency': '1900000',
        'cpu1/cpufreq/cpuinfo_max_freq': '5000000',
        'cpu1/cpufreq/base_frequency': '1900000',
        'cpu2/cpufreq/cpuinfo_max_freq': '3900000'})
    for node, (cpus, row) in {0: ('0-1', '10 21'), 1: ('2', '21 10')}.items():
        directory = tmp_path / 'devices' / 'system' / 'node' / f'node{node}'
        directory.mkdir(parents=True)
        (directory / 'cpulist').write_text(cpus + '\n')
        (directory / 'distance').write_text(row + '\n')
    proc = tmp_path / 'proc'
    proc.mkdir()
    (proc / 'cpuinfo').write_text(
        'processor\t: 0\nflags\t\t: fpu pni sse4_2\n')
    text = node_state.probe_text_here(dict(env, NODE_STATE_PROC=str(proc)))
    assert node_state.frequencies(text) == {
        0: (5000000, 1900000), 1: (5000000, 1900000), 2: (3900000, None)}
    distances = node_state.numa_distances(text)
    assert distances[0] == node_state.NumaNode(frozenset({0, 1}),
                                               {0: 10, 1: 21})
    assert distances[1].cpus == {2}
    assert node_state.cpu_flags(text) == {'fpu', 'pni', 'sse4_2'}


def test_a_node_without_them_reads_none():
    assert node_state.frequencies('turbo on x') is None
    assert node_state.numa_distances('') is None
    # rows that do not fit the nodes listed
    assert node_state.numa_distances('numa_distance 0 0-1 10 20\n') is None
    assert node_state.cpu_flags('') is None


def test_clocks_and_turbo_are_read_of_the_first_online_cpu(tmp_path):
    # cpu0 offline, its cpufreq stale: before, the probe read cpu0
    env = fake_sysfs(tmp_path, {
        'online': '4-7',
        'cpu0/cpufreq/scaling_driver': 'stale',
        'cpu4/cpufreq/scaling_driver': 'intel_pstate',
        'cpu4/cpufreq/base_frequency': '2400000'})
    text = node_state.probe_text_here(env)
    assert 'nominal_khz 2400000 cpu4/cpufreq/base_frequency' in text
    assert node_state.parse(text)['turbo'].detail == (
        'the cpufreq driver intel_pstate has no turbo switch')


def test_the_probe_says_which_cpus_the_job_may_use():
    # as a job given one CPU of the node sees it
    cpu = min(os.sched_getaffinity(0))
    done = subprocess.run(['taskset', '-c', str(cpu), 'sh',
                           node_state.SCRIPT], capture_output=True,
                          text=True, check=True)
    assert node_state.allowed_cpus(done.stdout) == {cpu}
    assert node_state.allowed_cpus('allowed unknown no status') is None
