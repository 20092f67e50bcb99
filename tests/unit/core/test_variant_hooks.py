'''The Turbo variants' hooks (hpc_acceptance.core.variants) on a stand-in
for the check: the job-script lines they write, run with bash, and how they
judge what the job's probes reported.

No Turbo state can be set or read for real on the VM these tests were
written on (no cpufreq driver): the /sys trees are fake, as in
test_node_state.py, the node-state output is the real probe's on them, and
the clock outputs are core_clock's, with the clock a test needs.
'''

import os
import signal
import subprocess
import time
from types import SimpleNamespace

import pytest
from reframe.core.exceptions import SkipTestError

from hpc_acceptance.core import node_state, topology_change
from hpc_acceptance.core.variants import (HardwareVariants,
                                          allocation_problems)

NO_TURBO = 'intel_pstate/no_turbo'
BASE = 'cpu0/cpufreq/base_frequency'
#: core_clock's output (src/memory), the measured clock left to fill in
CLOCK = ('# core_clock (memory benchmark kernels; figures are best of '
         'repeats)\n# built for: avx512\ncore_clock {0:.5f} GHz\n'
         'core_clock.median {0:.5f} GHz\nbest_to_median 1 ratio\n'
         '# validation: passed\n')


class Check(SimpleNamespace):
    '''What the hooks read and write of a check.'''

    def skip_if(self, condition, msg=None):
        if condition:
            raise SkipTestError(msg)


def sysfs(root, files):
    '''A fake /sys with ``files`` under devices/system/cpu; the environment
    that points the probe at it.'''
    for name, content in files.items():
        path = root / 'devices' / 'system' / 'cpu' / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'{content}\n')

    return dict(os.environ, NODE_STATE_SYSFS=str(root))


def partition(turbo_control, **extras):
    return SimpleNamespace(
        fullname='cluster:compute', extras={'turbo_control': turbo_control,
                                            **extras},
        scheduler=SimpleNamespace(registered_name='squeue'),
        processor=SimpleNamespace(info={}))


def finished(tmp_path, files, clocks, turbo, part):
    '''A check whose job probed a node with ``files`` in /sys and measured
    ``clocks`` (GHz) before and after its benchmark.'''
    env = sysfs(tmp_path / 'sys', files)
    stage = tmp_path / 'stage'
    stage.mkdir()
    probe = subprocess.run(['sh', node_state.SCRIPT], env=env, text=True,
                           capture_output=True, check=True)
    (stage / 'node_state.txt').write_text(probe.stdout)
    for name, ghz in zip(('core_clock.before', 'core_clock.after'), clocks):
        (stage / name).write_text(CLOCK.format(ghz))

    return Check(stagedir=str(stage), turbo=turbo, smt='as-configured',
                 current_partition=part, node_state='not probed')


def test_slurm_caps_the_clock_without_touching_the_turbo_switch(tmp_path):
    # --cpu-freq=HighM1: intel_pstate still says Turbo is allowed, the
    # clock stays at the nominal 2.4 GHz
    check = finished(tmp_path, {NO_TURBO: '0', BASE: '2400000'},
                     (2.39, 2.40), 'off', partition('slurm'))
    assert HardwareVariants.variant_problems(check) == []


def test_slurm_turbo_off_with_the_clock_above_nominal_fails(tmp_path):
    check = finished(tmp_path, {NO_TURBO: '0', BASE: '2400000'},
                     (2.38, 3.41), 'off', partition('slurm'))
    [problem] = HardwareVariants.variant_problems(check)
    assert problem == (
        'asked for turbo off, the core ran at 3.41 GHz, above the nominal '
        '2.40 GHz (cpu0/cpufreq/base_frequency): Slurm\'s --cpu-freq did '
        'not cap the clock')


def test_slurm_turbo_on_needs_a_clock_above_nominal(tmp_path):
    on = finished(tmp_path / 'on', {NO_TURBO: '0', BASE: '2400000'},
                  (3.38, 3.41), 'on', partition('slurm'))
    assert HardwareVariants.variant_problems(on) == []
    flat = finished(tmp_path / 'flat', {NO_TURBO: '0', BASE: '2400000'},
                    (2.40, 2.41), 'on', partition('slurm'))
    [problem] = HardwareVariants.variant_problems(flat)
    assert problem.startswith('asked for turbo on, the core ran at 2.41 GHz, '
                              'not above the nominal 2.40 GHz')


def test_the_partition_declares_the_nominal_clock_the_node_does_not_give(
        tmp_path):
    # acpi-cpufreq's or cppc's nodes: no base_frequency
    check = finished(tmp_path, {'cpu0/cpufreq/scaling_driver': 'cppc'},
                     (2.01, 1.99), 'off',
                     partition('slurm', nominal_clock_ghz=2.0))
    assert HardwareVariants.variant_problems(check) == []


def test_slurm_turbo_that_cannot_be_confirmed_skips_saying_why(tmp_path):
    check = finished(tmp_path, {}, (2.6, 2.6), 'off', partition('slurm'))
    with pytest.raises(SkipTestError) as skipped:
        HardwareVariants.variant_problems(check)

    assert str(skipped.value) == (
        'turbo=off: Slurm set the clock (--cpu-freq), which no Turbo switch '
        'shows, and the clock measured (2.60 GHz) has no nominal clock to be '
        'compared with: the node gives none (no cpufreq driver) and the '
        'partition declares none: set extras.nominal_clock_ghz to the '
        'nodes\' base clock')


def test_a_declared_nominal_clock_that_is_no_clock_is_refused(tmp_path):
    check = finished(tmp_path, {}, (2.6, 2.6), 'off',
                     partition('slurm', nominal_clock_ghz='2.4 GHz'))
    with pytest.raises(Exception, match=r"extras.nominal_clock_ghz must be "
                       r"the nodes' base clock in GHz, not '2.4 GHz'"):
        HardwareVariants.variant_problems(check)


def commands():
    '''Turbo control commands that write the fake /sys's switch.'''
    path = f'$NODE_STATE_SYSFS/devices/system/cpu/{NO_TURBO}'
    return {'on': [f'echo 0 > {path}'], 'off': [f'echo 1 > {path}']}


def set_by_commands(tmp_path, turbo):
    '''The job-script lines set_turbo writes for a partition that switches
    Turbo by commands, and the environment of a node with Turbo on.'''
    env = sysfs(tmp_path / 'sys', {NO_TURBO: '0'})
    check = Check(turbo=turbo, current_partition=partition(commands()),
                  prerun_cmds=[], postrun_cmds=[], extra_resources={})
    HardwareVariants.set_turbo(check)
    stage = tmp_path / 'stage'
    stage.mkdir()
    return check, env, stage


def switch(tmp_path):
    return (tmp_path / 'sys' / 'devices' / 'system' / 'cpu' /
            NO_TURBO).read_text().strip()


def test_commands_put_the_node_back_when_the_benchmark_fails(tmp_path):
    check, env, stage = set_by_commands(tmp_path, 'off')
    script = '\n'.join(check.prerun_cmds + [
        f'cat $NODE_STATE_SYSFS/devices/system/cpu/{NO_TURBO} > during',
        'false',
    ] + check.postrun_cmds)
    done = subprocess.run(['bash', '-c', script], cwd=stage, env=env)
    assert done.returncode == 1
    assert (stage / 'during').read_text() == '1\n'
    assert switch(tmp_path) == '0'


def test_commands_put_the_node_back_when_the_job_is_killed(tmp_path):
    # Slurm's time limit or scancel: SIGTERM to the job's processes
    check, env, stage = set_by_commands(tmp_path, 'off')
    script = '\n'.join(check.prerun_cmds + ['touch started', 'sleep 30'] +
                       check.postrun_cmds)
    job = subprocess.Popen(['bash', '-c', script], cwd=stage, env=env,
                           start_new_session=True)
    for _ in range(100):
        if (stage / 'started').exists():
            break
        time.sleep(0.05)

    assert switch(tmp_path) == '1'
    os.killpg(job.pid, signal.SIGTERM)
    job.wait(timeout=10)
    assert switch(tmp_path) == '0'


def test_a_node_already_in_the_state_asked_is_left_as_it_is(tmp_path):
    check, env, stage = set_by_commands(tmp_path, 'on')
    script = '\n'.join(check.prerun_cmds + ['true'] + check.postrun_cmds)
    subprocess.run(['bash', '-c', script], cwd=stage, env=env, check=True)
    assert switch(tmp_path) == '0'
    assert not (stage / 'turbo_restored.txt').exists()


def test_a_partition_without_commands_for_both_states_is_refused(tmp_path):
    check = Check(turbo='off',
                  current_partition=partition({'off': ['cpupower ...']}),
                  prerun_cmds=[], postrun_cmds=[], extra_resources={})
    with pytest.raises(Exception, match=r"cluster:compute: extras\."
                       r"turbo_control needs commands for both 'on' and "
                       r"'off'"):
        HardwareVariants.set_turbo(check)


def test_a_node_whose_topology_changed_since_it_was_detected(
        tmp_path, monkeypatch):
    # described with SMT (4 CPUs on 2 cores); SMT off in the BIOS since
    described = partition(None)
    described.processor.info = {'num_cpus': 4, 'num_cpus_per_core': 2}
    files = {f'cpu{cpu}/topology/core_cpus': str(1 << cpu)
             for cpu in range(2)}
    check = finished(tmp_path, files, (2.6, 2.6), 'as-configured', described)
    check.current_system = SimpleNamespace(name='cluster')
    check.current_partition.name = 'compute'
    monkeypatch.setattr(topology_change, 'topology_prefix',
                        lambda: str(tmp_path / 'var' / 'topology'))
    [problem] = HardwareVariants.variant_problems(check)
    assert problem == (
        "the node's topology changed since it was detected: the node has 2 "
        "CPUs on 2 cores (1 per core), the partition's processor "
        "description 4 on 2 (2 per core): re-detect it: reframe "
        "--detect-host-topology=FILE on a compute node, into the file the "
        "partition's processor description is read from")

    # a topology ReFrame detected on a node itself
    detected = tmp_path / 'var' / 'topology' / 'cluster-compute'
    detected.mkdir(parents=True)
    (detected / 'processor.json').write_text('{}')
    [problem] = HardwareVariants.variant_problems(check)
    assert problem.endswith(
        f're-detect it: delete {detected}/processor.json, which ReFrame '
        f'detected on a node: it detects it again')


def test_a_job_given_fewer_cpus_than_its_plan_needs_fails():
    # a partition's jobs given 6 CPUs of a node planned whole: 32 ranks
    probed = 'allowed 0-5 0 /proc/self/status\n'
    [problem] = allocation_problems(probed, 32, 1)
    assert problem.startswith('the job may use 6 CPUs of its node (0-5); '
                              'its 32 rank(s) x 1 thread(s) need 32')
    assert '--exclusive' in problem
    assert allocation_problems(probed, 2, 3) == []
    assert allocation_problems('allowed unknown', 32, 1) == []


def test_a_clock_probe_without_its_median_is_named(tmp_path):
    # a core_clock built before it printed its median chain: the check's
    # core_clock_median and best_to_median_core_clock would be missing
    check = finished(tmp_path, {}, (2.6, 2.6), 'as-configured',
                     partition(None))
    old = ''.join(line for line in CLOCK.format(2.6).splitlines(True)
                  if 'median' not in line)
    (tmp_path / 'stage' / 'core_clock.after').write_text(old)
    problems = HardwareVariants.variant_problems(check)
    assert [p for p in problems if p.startswith('core_clock.after')] == [
        "core_clock.after: figure 'core_clock.median' is missing",
        "core_clock.after: figure 'best_to_median' is missing"]
