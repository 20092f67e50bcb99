'''The post-upgrade verdict per figure (hpc_acceptance.tools.post_upgrade).
'''

import pytest

from hpc_acceptance.tools import post_upgrade as pu

QUIET = 'array_elements=1000000;ntimes=10'


def case(value, result='pass', identity=QUIET, unit='MB/s',
         name='StreamCheck %threads=all_cores', variable='triad'):
    return {'display_name': name, 'result': result, 'system': 'local',
            'partition': 'default', 'environ': 'gnu', 'identity': identity,
            'hash': 'abcd1234',
            'perfvalues': {f'local:default:{variable}': [
                value, 0, None, None, unit, result]}}


NIGHTLY = [case(v) for v in (36600, 36900, 35700, 32000, 34700)]


def verdicts(rows):
    return [(r['figure'], r['verdict']) for r in rows]


def test_a_quiet_repeat_is_within_noise_and_exits_0():
    rows = pu.judge([case(33000)], pu.baseline_values(NIGHTLY))
    assert verdicts(rows) == [('triad', 'within noise')]
    assert rows[0]['baseline_median'] == 35700
    assert rows[0]['baseline_runs'] == 5
    assert pu.exit_status(rows, []) == 0


def test_a_hog_regresses_and_exits_1():
    rows = pu.judge([case(17700)], pu.baseline_values(NIGHTLY))
    assert verdicts(rows) == [('triad', 'regressed')]
    assert round(rows[0]['change'], 2) == -0.5
    assert pu.exit_status(rows, []) == 1
    assert pu.suspects(rows, [case(17700)]) == ['abcd1234']


def test_a_systems_own_floor_sets_the_band():
    # a system whose quiet repeats drift by 60 %: a halved figure is noise
    rows = pu.judge([case(17700)], pu.baseline_values(NIGHTLY),
                    floors={'Stream': 0.6})
    assert verdicts(rows) == [('triad', 'within noise')]
    assert rows[0]['band'] == 0.6


def test_a_bad_floor_option_is_named(capsys):
    with pytest.raises(SystemExit) as stop:
        pu.main(['--floor', 'Stream=lots', '--report', 'none.json'])
    assert stop.value.code == 2
    assert "--floor: 'Stream=lots': 'lots' is not a fraction" in \
        capsys.readouterr().err


def test_a_quiet_confirmation_rerun_clears_a_suspect():
    baseline = pu.baseline_values(NIGHTLY)
    rows = pu.judge([case(17700)], baseline, confirm_cases=[case(35000)])
    assert verdicts(rows) == [('triad', 'within noise')]
    assert rows[0]['rerun_value'] == 35000
    rows = pu.judge([case(17700)], baseline, confirm_cases=[case(18000)])
    assert verdicts(rows) == [('triad', 'regressed')]


def test_an_improvement_is_not_a_failure():
    rows = pu.judge([case(60000)], pu.baseline_values(NIGHTLY))
    assert verdicts(rows) == [('triad', 'improved')]
    assert pu.exit_status(rows, []) == 0


def test_other_inputs_have_no_baseline_and_nothing_judged_exits_2():
    # HPL at memory_fraction 0.8 after nightly runs at 0.005, NPB class C
    # after class W: never compared with the other identity's runs
    bigger = case(17700, identity='array_elements=8000000;ntimes=10')
    rows = pu.judge([bigger], pu.baseline_values(NIGHTLY))
    assert verdicts(rows) == [('triad', 'no baseline')]
    assert pu.exit_status(rows, []) == 2


def test_too_few_stored_runs_are_no_baseline():
    rows = pu.judge([case(17700)], pu.baseline_values(NIGHTLY[:2]))
    assert verdicts(rows) == [('triad', 'no baseline')]
    assert rows[0]['baseline_runs'] == 2
    assert pu.exit_status(rows, []) == 2


def test_failed_stored_runs_are_no_baseline():
    rows = pu.judge([case(100)], pu.baseline_values([case(36000, 'fail')]))
    assert verdicts(rows) == [('triad', 'no baseline')]


def test_a_failed_check_exits_1_unless_its_rerun_passed():
    failed = case(36000, result='fail')
    rows = pu.judge([failed], pu.baseline_values(NIGHTLY))
    assert pu.failed_checks([failed]) == ['StreamCheck %threads=all_cores']
    assert pu.exit_status(rows, pu.failed_checks([failed])) == 1
    assert pu.failed_checks([failed], [case(36000)]) == []


def test_latency_up_is_a_regression_and_regressions_come_first():
    nightly = [case(v, unit='ns', variable='latency',
                    name='MemoryLatencyCheck %threads=single')
               for v in (124, 126, 122)] + NIGHTLY
    new = [case(36000),
           case(283, unit='ns', variable='latency',
                name='MemoryLatencyCheck %threads=single')]
    rows = pu.judge(new, pu.baseline_values(nightly))
    assert verdicts(rows) == [('latency', 'regressed'),
                              ('triad', 'within noise')]
    table = pu.format_table(rows, [])
    assert table.splitlines()[1].startswith('regressed')
    assert '+128.2%' in table and '±15%' in table


def test_default_parameters_are_left_out_of_the_table():
    assert pu.short_name('MemoryDaxpyCheck %isa=native %turbo=as-configured '
                         '%smt=as-configured %threads=single') == (
        'MemoryDaxpyCheck %threads=single')
