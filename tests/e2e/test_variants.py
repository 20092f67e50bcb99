'''Hardware variants through reframe on this machine; what each variant
should do is read from the host (tests/helpers/host.py).'''

import json
import re
from pathlib import Path

from conftest import DATA_DIR, ONE_TIMED_RUN
from helpers import host
from helpers.report_cases import case_of, results, skip_reasons
from hpc_acceptance.tools.results.runs import variant_of

# -n matches the display name without spaces; repeated -n means "or"
DAXPY_SINGLE = ['-c', 'checks/memory', *ONE_TIMED_RUN]
ALL_VARIANTS = ['-n', 'MemoryDaxpyCheck.*%threads=single']
DESCRIBED_CPU = DATA_DIR / 'variants' / 'local_described_cpu.py'
TURBO_VARIANTS = ['-n', 'MemoryDaxpyCheck%isa=native.*%smt=as-configured'
                        '%threads=single']


def cases(tmp_path):
    report = json.loads((tmp_path / 'report.json').read_text())
    return {tuple(sorted(variant_of(c['display_name'])[1].items())): c
            for c in report['runs'][-1]['testcases'] if not c['fixture']}


def params(isa='native', turbo='as-configured', smt='as-configured'):
    return tuple(sorted({'isa': isa, 'turbo': turbo, 'smt': smt,
                         'threads': 'single'}.items()))


def test_isa_variants_run_where_the_cpu_can_and_say_why_not_elsewhere(
        run_reframe, tmp_path):
    # Turbo is read from an empty sysfs: no cpufreq driver, whatever this
    # host has (the next test gives Turbo a state)
    done = run_reframe(*DAXPY_SINGLE, *ALL_VARIANTS, '-r',
                       env={'NODE_STATE_SYSFS': str(tmp_path / 'no-sys')})
    assert done.returncode == 0, done.stdout[-3000:]
    found = cases(tmp_path)
    assert len(found) == 9

    # the ISAs this CPU runs pass, and the binary proves what it was built
    # for; the others skip naming what the CPU lacks
    for name in ('sse4.2', 'avx', 'avx2', 'avx512'):
        case = found[params(isa=name)]
        if host.runs_isa(name):
            assert case['result'] == 'pass', name
            assert case['isa_built'] == name
            assert case['dependency_source'].endswith(f'/{name}')
        else:
            assert case['result'] == 'skip', name
            # named from this host's own flags (a local partition)
            assert re.search(rf'isa={name}: the CPU \(\w+\) cannot run '
                             rf'{name} code: its flags in /proc/cpuinfo '
                             rf'lack ', case['skip_reason']), name

    native = found[params()]
    assert native['isa_built'] == host.native_isa()
    assert 'turbo unknown (no cpufreq driver' in native['node_state']
    clock = native['perfvalues']['local:default:core_clock']
    assert clock[4] == 'GHz' and 0.5 < clock[0] < 10

    for turbo in ('on', 'off'):
        assert found[params(turbo=turbo)]['result'] == 'skip'

    assert found[params(turbo='off')]['skip_reason'] == (
        f'turbo=off: no cpufreq driver ({tmp_path}/no-sys/devices/system/'
        f'cpu/cpu0/cpufreq is missing): the state can be neither set nor '
        f'confirmed')

    # SMT variants run where the cores have a second thread
    for smt in ('on', 'off'):
        expected = 'pass' if host.threads_per_core() > 1 else 'skip'
        assert found[params(smt=smt)]['result'] == expected, smt

    if host.threads_per_core() == 1:
        assert found[params(smt='on')]['skip_reason'].startswith(
            'smt=on: SMT is absent or disabled on local:default (1 '
            'hardware thread per core)')


#: archspec name -> the ISA variants its CPUs run (CI guard: whatever the
#: host, a processor described as older must skip the rest).
OLDER_CPUS = {'haswell': {'sse4.2', 'avx', 'avx2'}, 'nehalem': {'sse4.2'}}


def test_isa_variants_skip_what_an_older_cpu_lacks(run_reframe, tmp_path):
    arch = 'haswell' if host.runs_isa('avx2') else 'nehalem'
    done = run_reframe('-C', str(DESCRIBED_CPU), *DAXPY_SINGLE,
                       '-n', 'MemoryDaxpyCheck%isa=.*%turbo=as-configured'
                             '%smt=as-configured%threads=single', '-r',
                       env={'HPC_ACCEPTANCE_TEST_ARCH': arch})
    assert done.returncode == 0, done.stdout[-3000:]
    found = cases(tmp_path)
    assert len(found) == 5
    for name in ('sse4.2', 'avx', 'avx2', 'avx512'):
        case = found[params(isa=name)]
        if name in OLDER_CPUS[arch]:
            assert case['result'] == 'pass', name
            assert case['isa_built'] == name
        else:
            assert case['result'] == 'skip', name
            # what this host's flags lack, else what archspec's target
            # for the older CPU lacks
            assert re.match(
                rf'isa={name}: the CPU \({arch}\) cannot run {name} code: '
                rf"(its flags in /proc/cpuinfo lack|archspec's {arch} lacks) ",
                case['skip_reason']), name

    assert found[params()]['result'] == 'pass'


def test_turbo_state_the_node_is_in_runs_the_other_says_why_not(
        run_reframe, tmp_path):
    # A node whose intel_pstate driver has Turbo off, no way to switch it
    sysfs = tmp_path / 'sys' / 'devices' / 'system' / 'cpu'
    (sysfs / 'intel_pstate').mkdir(parents=True)
    (sysfs / 'intel_pstate' / 'no_turbo').write_text('1\n')
    done = run_reframe(*DAXPY_SINGLE, *TURBO_VARIANTS, '-r',
                       env={'NODE_STATE_SYSFS': str(tmp_path / 'sys')})
    assert done.returncode == 0, done.stdout[-3000:]
    found = cases(tmp_path)
    assert len(found) == 3
    off = found[params(turbo='off')]
    assert off['result'] == 'pass'
    assert off['node_state'].startswith(
        'turbo off (intel_pstate/no_turbo=1)')
    assert found[params(turbo='on')]['result'] == 'skip'
    assert ('turbo=on: turbo is off on local:default (intel_pstate/'
            'no_turbo=1) and the partition declares no way to change it '
            '(extras.turbo_control)') in done.stdout


def test_turbo_switched_by_commands_and_the_node_put_back(
        run_reframe, tmp_path):
    # A node with Turbo on (intel_pstate's switch in a fake /sys: this VM
    # has no cpufreq driver) that the partition switches by commands
    switch = (tmp_path / 'sys' / 'devices' / 'system' / 'cpu' /
              'intel_pstate' / 'no_turbo')
    switch.parent.mkdir(parents=True)
    switch.write_text('0\n')
    control = {'on': [f'echo 0 > {switch}'], 'off': [f'echo 1 > {switch}']}
    done = run_reframe(
        '-C', str(DESCRIBED_CPU), *DAXPY_SINGLE,
        '-n', 'MemoryDaxpyCheck%isa=native%turbo=off%smt=as-configured'
              '%threads=single$', '-r',
        env={'NODE_STATE_SYSFS': str(tmp_path / 'sys'),
             'HPC_ACCEPTANCE_TEST_TURBO_CONTROL': json.dumps(control)})
    assert done.returncode == 0, done.stdout[-3000:]
    off = cases(tmp_path)[params(turbo='off')]
    assert off['result'] == 'pass'
    assert off['node_state'].startswith('turbo off (intel_pstate/no_turbo=1)')
    # when the job ended, the node was put back as it was found
    assert switch.read_text() == '0\n'


def test_turbo_set_by_slurm_is_measured_in_a_step(run_reframe, tmp_path):
    # Slurm sets --cpu-freq on srun's steps only: the clock probes run in
    # one, the node-state probe (no clock) in the batch script
    done = run_reframe(
        '-c', 'checks/memory', '--system', 'example-cluster',
        '-n', 'MemoryDaxpyCheck%isa=native%turbo=off%smt=as-configured'
              '%threads=single$', '--dry-run')
    assert done.returncode == 0, done.stdout[-3000:]
    [script] = (tmp_path / 'prefix' / 'stage').rglob(
        'MemoryDaxpyCheck_*/rfm_job.sh')
    text = script.read_text()
    assert '#SBATCH --cpu-freq=HighM1\n' in text
    step = 'srun --ntasks=1 --nodes=1 --ntasks-per-node=1 '
    assert re.search(rf'^{step}\S+/core_clock > core_clock.before$', text,
                     re.MULTILINE)
    assert re.search(rf'{step}\S+/core_clock > core_clock.after;', text)
    # the probe names the environment's compiler, whose version it reports
    assert re.search(r'^sh \S+/node_state.sh \S+ > node_state.txt$', text,
                     re.MULTILINE)


def test_a_node_unlike_its_description_asks_to_re_detect(run_reframe,
                                                         tmp_path):
    # The partition described with twice this host's hardware threads per
    # core, as a node is after SMT was turned off in its BIOS: the job sees
    # the node as it is
    described = 2 * host.threads_per_core()
    done = run_reframe(
        '-C', str(DESCRIBED_CPU), *DAXPY_SINGLE,
        '-n', 'MemoryDaxpyCheck%isa=native%turbo=as-configured'
              '%smt=as-configured%threads=single$', '-r',
        env={'HPC_ACCEPTANCE_TEST_THREADS_PER_CORE': str(described)})
    assert done.returncode == 1, done.stdout[-3000:]
    case = cases(tmp_path)[params()]
    assert case['result'] == 'fail'
    cpus = len(list(host.SYS_CPU.glob('cpu[0-9]*')))
    cores = cpus // host.threads_per_core()
    assert (f"the node's topology changed since it was detected: the node "
            f"has {cpus} CPUs on {cores} cores ({host.threads_per_core()} "
            f"per core), the partition's processor description {cpus} on "
            f"{cpus // described} ({described} per core): re-detect it: "
            in case['fail_reason']), case['fail_reason']


def test_nightly_runs_default_variants_post_upgrade_all(run_reframe):
    nightly = run_reframe('-c', 'checks/memory', '--mode', 'nightly', '-l')
    every = run_reframe('-c', 'checks/memory', '--mode', 'post-upgrade',
                        '-l')
    assert 'Found 16 check(s)' in nightly.stdout
    assert '%isa=avx2' not in nightly.stdout
    assert 'Found 144 check(s)' in every.stdout


# HPCC, NPB and a network check, their SMT variants only; no NPB binary is
# needed, the variant is refused before the binary is looked for
MPI_SMT_VARIANTS = [
    '-c', 'checks/hpcc', '-c', 'checks/npb', '-c', 'checks/network',
    '-n', 'HpccCheck.*%smt=(on|off)$',
    '-n', 'NpbCgCheck.*%smt=(on|off)%num_procs=2$',
    '-n', 'NetworkSinglePairCheck.*%smt=(on|off)%pattern=pingpong'
          '%placement=same_socket$',
]


def test_smt_variants_of_the_mpi_checks_say_why_not(run_reframe, tmp_path):
    # the processor described without SMT, whatever this host has
    done = run_reframe('-C', str(DESCRIBED_CPU), *MPI_SMT_VARIANTS, '-r',
                       env={'NPB_BIN_DIR': '',
                            'HPC_ACCEPTANCE_TEST_THREADS_PER_CORE': '1'})
    assert done.returncode == 0, done.stdout[-3000:]
    found = results(tmp_path / 'report.json')
    assert sorted((variant_of(name)[0], variant_of(name)[1]['smt'])
                  for name in found) == [
        (check, smt)
        for check in ('HpccCheck', 'NetworkSinglePairCheck', 'NpbCgCheck')
        for smt in ('off', 'on')
    ]
    assert {case['result'] for case in found.values()} == {'skip'}
    reasons = skip_reasons(tmp_path / 'report.json')
    assert set(reasons) == set(found)
    for name, reason in reasons.items():
        smt = variant_of(name)[1]['smt']
        assert reason.startswith(
            f'smt={smt}: SMT is absent or disabled on local:default (1 '
            f'hardware thread per core)'), (name, reason)


def test_isa_variants_only_where_the_suite_builds_per_isa(run_reframe):
    done = run_reframe('-c', 'checks', '-l')
    assert done.returncode == 0, done.stdout[-3000:]
    isas = {}
    for name in re.findall(r'^- (.+?) /\w+$', done.stdout, re.MULTILINE):
        check, params = variant_of(name)
        isas.setdefault(check, set()).add(params['isa'])

    every = {'native', 'sse4.2', 'avx', 'avx2', 'avx512'}
    for check, found in isas.items():
        # hpcc and NPB are one build for the node; net_pairs does not
        # depend on vector instructions
        if check.startswith(('Hpcc', 'Npb', 'Network')):
            assert found == {'native'}, check
        else:
            assert check.startswith(('Memory', 'Stream')), check
            assert found == every, check

    assert {'HpccCheck', 'NpbCgCheck', 'NetworkSinglePairCheck',
            'NetworkMultiPairCheck', 'StreamCheck',
            'MemoryDaxpyCheck'} <= set(isas)


def test_smt_layouts_on_a_partition_with_smt(run_reframe, tmp_path):
    # example-cluster: 2 sockets x 36 cores, 2 hardware threads per core
    # (core c is CPUs c and c + 72); the dry run shows the job scripts
    done = run_reframe(
        '-c', 'checks/stream', '-c', 'checks/hpcc', '-c', 'checks/npb',
        '-c', 'checks/network', '--system', 'example-cluster',
        '-n', 'StreamCheck.*%smt=on%threads=socket$',
        '-n', 'HpccCheck.*%smt=(on|off)$',
        '-n', 'NpbCgCheck.*%smt=on%num_procs=256$',
        '-n', 'NetworkSinglePairCheck.*%smt=on%pattern=pingpong'
              '%placement=same_socket$',
        '--dry-run', env={'NPB_BIN_DIR': ''})
    assert done.returncode == 0, done.stdout[-3000:]
    found = results(tmp_path / 'report.json')
    assert len(found) == 5

    def script(check, **params):
        stage = Path(case_of(found, check, **params)['stagedir'])
        return (stage / 'rfm_job.sh').read_text()

    # STREAM: a thread on each hardware thread of the socket's cores
    stream = script('StreamCheck')
    assert 'export OMP_NUM_THREADS=72\n' in stream
    assert "export OMP_PLACES='{0},{72},{1},{73}," in stream
    assert ",{35},{107}'\n" in stream
    assert '#SBATCH --hint=multithread\n' in stream

    # HPCC: a rank per hardware thread with SMT on, per core with it off
    on = script('HpccCheck', smt='on')
    assert '#SBATCH --ntasks-per-node=144\n' in on
    assert '#SBATCH --hint=multithread\n' in on
    off = script('HpccCheck', smt='off')
    assert '#SBATCH --ntasks-per-node=72\n' in off
    assert '#SBATCH --hint=nomultithread\n' in off

    # NPB and the network pair: ranks bound to hardware threads
    npb = script('NpbCgCheck')
    assert '#SBATCH --ntasks=256\n#SBATCH --ntasks-per-node=144\n' in npb
    assert ('\nsrun --distribution=block:block --cpu-bind=threads cg.C.x\n'
            in npb)
    pair = script('NetworkSinglePairCheck')
    assert re.search(r'^srun --distribution=block:block --cpu-bind=threads '
                     r'\S+/net_pairs ', pair, re.MULTILINE)
