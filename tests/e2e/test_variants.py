'''Hardware variants through reframe on this machine: AVX-512 CPU, no
cpufreq driver, no SMT.'''

import json
import os

from hpc_acceptance.results import variant_of

# -n matches the display name without spaces; repeated -n means "or"
DAXPY_SINGLE = ['-c', 'checks/memory', '-S', 'repeats=1']
ALL_VARIANTS = ['-n', 'MemoryDaxpyCheck.*%threads=single']
TURBO_VARIANTS = ['-n', 'MemoryDaxpyCheck%isa=native.*%smt=as-configured'
                        '%threads=single']


def cases(tmp_path):
    report = json.loads((tmp_path / 'report.json').read_text())
    return {tuple(sorted(variant_of(c['display_name'])[1].items())): c
            for c in report['runs'][-1]['testcases'] if not c['fixture']}


def params(isa='native', turbo='as-configured', smt='as-configured'):
    return tuple(sorted({'isa': isa, 'turbo': turbo, 'smt': smt,
                         'threads': 'single'}.items()))


def test_isa_variants_run_and_turbo_and_smt_say_why_not(run_reframe,
                                                         tmp_path):
    done = run_reframe(*DAXPY_SINGLE, *ALL_VARIANTS, '-r')
    assert done.returncode == 0, done.stdout[-3000:]
    found = cases(tmp_path)
    assert len(found) == 9

    # every ISA runs, and the binary proves what it was built for
    for name in ('sse4.2', 'avx', 'avx2', 'avx512'):
        case = found[params(isa=name)]
        assert case['result'] == 'pass'
        assert case['isa_built'] == name
        assert case['dependency_source'].endswith(f'/{name}')

    native = found[params()]
    assert native['isa_built'] == 'avx512'
    assert 'turbo unknown (no cpufreq driver' in native['node_state']
    clock = native['perfvalues']['local:default:core_clock']
    assert clock[4] == 'GHz' and 0.5 < clock[0] < 10

    for turbo in ('on', 'off'):
        assert found[params(turbo=turbo)]['result'] == 'skip'

    for smt in ('on', 'off'):
        assert found[params(smt=smt)]['result'] == 'skip'

    assert ('turbo=off: no cpufreq driver (/sys/devices/system/cpu/cpu0/'
            'cpufreq is missing): the state can be neither set nor '
            'confirmed') in done.stdout
    assert ('smt=on: SMT is absent or disabled on local:default (1 hardware '
            'thread per core)') in done.stdout


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


def test_nightly_runs_default_variants_post_upgrade_all(run_reframe):
    nightly = run_reframe('-c', 'checks/memory', '--mode', 'nightly', '-l')
    every = run_reframe('-c', 'checks/memory', '--mode', 'post-upgrade',
                        '-l')
    assert 'Found 16 check(s)' in nightly.stdout
    assert '%isa=avx2' not in nightly.stdout
    assert 'Found 144 check(s)' in every.stdout
