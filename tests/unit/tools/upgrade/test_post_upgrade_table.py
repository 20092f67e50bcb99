'''The post-upgrade verdict per figure
(hpc_acceptance.tools.upgrade.judgement, .table and the
command, hpc_acceptance.tools.upgrade.post_upgrade).
'''

import datetime

import pytest

from helpers import fleet_cases
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.results import skips
from hpc_acceptance.tools.results.runs import short_name
from hpc_acceptance.tools.upgrade import baseline as bl
from hpc_acceptance.tools.upgrade import what_changed
from hpc_acceptance.tools.upgrade.judgement import (Judgement, exit_status,
                                                    failed_checks, judge,
                                                    judge_run, suspects)
from hpc_acceptance.tools.upgrade.table import format_table

QUIET = 'array_elements=1000000;ntimes=10'


def case(value, result='pass', identity=QUIET, unit='MB/s',
         name='StreamCheck %threads=all_cores', variable='triad'):
    return {'display_name': name, 'result': result, 'system': 'local',
            'partition': 'default', 'environ': 'gnu', 'identity': identity,
            'hashcode': 'abcd1234', 'session_uuid': f'session-{value}',
            'perfvalues': {f'local:default:{variable}': [
                value, 0, None, None, unit, result]}}


NIGHTLY = [case(v) for v in (36600, 36900, 35700, 32000, 34700)]


def nightly(cases):
    '''Only nightly runs stored: no --before run.'''
    return [bl.collect('before', []), bl.collect('nightly', cases)]


def verdicts(rows):
    return [(r['figure'], r['verdict']) for r in rows]


def test_a_quiet_repeat_is_within_noise_and_exits_0():
    rows = judge([case(33000)], nightly(NIGHTLY))
    assert verdicts(rows) == [('triad', 'within noise')]
    assert rows[0]['baseline_median'] == 35700
    assert rows[0]['baseline_runs'] == 5
    assert exit_status(rows, []) == 0


def test_a_hog_regresses_and_exits_1():
    rows = judge([case(17700)], nightly(NIGHTLY))
    assert verdicts(rows) == [('triad', 'regressed')]
    assert round(rows[0]['change'], 2) == -0.5
    assert exit_status(rows, []) == 1
    assert suspects(rows, [case(17700)]) == ['abcd1234']


def test_a_systems_own_floor_sets_the_band():
    # a system whose quiet repeats drift by 60 %: a halved figure is noise
    rows = judge([case(17700)], nightly(NIGHTLY),
                 floors={'Stream': 0.6})
    assert verdicts(rows) == [('triad', 'within noise')]
    assert rows[0]['band'] == 0.6


def test_a_bad_floor_option_is_named(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(['post-upgrade', '--floor', 'Stream=lots', '--report',
                  'none.json'])
    assert stop.value.code == 2
    assert "--floor: 'Stream=lots': 'lots' is not a fraction" in \
        capsys.readouterr().err


def test_a_quiet_confirmation_rerun_clears_a_suspect_showing_both_values():
    baseline = nightly(NIGHTLY)
    rows = judge([case(17700)], baseline, confirm_cases=[case(35000)])
    assert verdicts(rows) == [('triad', 'within noise on rerun')]
    assert (rows[0]['value'], rows[0]['rerun_value']) == (17700, 35000)
    assert exit_status(rows, []) == 0
    rows = judge([case(17700)], baseline, confirm_cases=[case(18000)])
    assert verdicts(rows) == [('triad', 'regressed')]
    assert rows[0]['rerun_value'] == 18000


def test_an_improvement_is_not_a_failure():
    rows = judge([case(60000)], nightly(NIGHTLY))
    assert verdicts(rows) == [('triad', 'improved')]
    assert exit_status(rows, []) == 0


def test_other_inputs_have_no_baseline_and_nothing_judged_exits_2():
    # HPL at memory_fraction 0.8 after nightly runs at 0.005, NPB class C
    # after class W: never compared with the other identity's runs
    bigger = case(17700, identity='array_elements=8000000;ntimes=10')
    rows = judge([bigger], nightly(NIGHTLY))
    assert verdicts(rows) == [('triad', 'no baseline')]
    assert exit_status(rows, []) == 2


def test_few_stored_runs_give_a_verdict_with_the_family_band():
    '''One run before and one after: what a maintenance window holds.'''
    rows = judge([case(17700)], nightly(NIGHTLY[:1]))
    assert verdicts(rows) == [('triad', 'regressed')]
    assert rows[0]['note'] == 'few baseline runs'
    assert rows[0]['band'] == 0.25 and rows[0]['baseline_runs'] == 1
    rows = judge([case(33000)], nightly(NIGHTLY[:2]))
    assert verdicts(rows) == [('triad', 'within noise')]
    assert exit_status(rows, []) == 0
    assert '(few baseline runs)' in format_table(rows, [])


def test_a_baseline_of_0_is_no_baseline():
    '''Stored runs that measured nothing: no band to judge a figure by.'''
    rows = judge([case(36000)], nightly([case(0.0) for _ in range(3)]))
    assert verdicts(rows) == [('triad', 'no baseline')]
    assert rows[0]['note'] == ("the baseline's median is 0: no measurement "
                               "to compare with")


def test_failed_stored_runs_are_no_baseline():
    rows = judge([case(100)], nightly([case(36000, 'fail')]))
    assert verdicts(rows) == [('triad', 'no baseline')]


def test_a_failed_check_exits_1_unless_its_rerun_passed():
    failed = case(36000, result='fail')
    rows = judge([failed], nightly(NIGHTLY))
    assert failed_checks([failed]) == ['StreamCheck %threads=all_cores']
    assert exit_status(rows, failed_checks([failed])) == 1
    assert failed_checks([failed], [case(36000)]) == []


def test_a_run_is_judged_as_one_value_of_rows_failed_checks_and_status():
    failed = case(36000, result='fail')
    baseline = nightly(NIGHTLY)
    assert judge_run([failed], baseline) == Judgement(
        judge([failed], baseline), ['StreamCheck %threads=all_cores'], 1)
    assert judge_run([failed], baseline, [case(36000)]) == Judgement(
        judge([failed], baseline, [case(36000)]), [], 0)


def test_a_run_is_judged_with_the_floors_and_the_fewest_runs_given():
    '''judge_run hands its settings on: a system's own floor widens the
    band, and three baseline runs are enough by default.'''
    three = nightly(NIGHTLY[:3])
    (row,) = judge_run([case(33000)], three).rows
    assert row['baseline_runs'] == 3 and row['verdict'] == 'within noise'
    assert row['note'] != 'few baseline runs'
    (row,) = judge_run([case(33000)], three, min_runs=4).rows
    assert row['note'] == 'few baseline runs'
    (row,) = judge_run([case(17700)], nightly(NIGHTLY),
                       floors={'Stream': 0.6}).rows
    assert row['verdict'] == 'within noise' and row['band'] == 0.6


def test_latency_up_is_a_regression_and_regressions_come_first():
    stored = [case(v, unit='ns', variable='latency',
                   name='MemoryLatencyCheck %threads=single')
              for v in (124, 126, 122)] + NIGHTLY
    new = [case(36000),
           case(283, unit='ns', variable='latency',
                name='MemoryLatencyCheck %threads=single')]
    rows = judge(new, nightly(stored))
    assert verdicts(rows) == [('latency', 'regressed'),
                              ('triad', 'within noise')]
    table = format_table(rows, [])
    assert table.splitlines()[1].startswith('regressed')
    assert '+128.2%' in table and '±15%' in table


def test_default_parameters_are_left_out_of_the_table():
    assert short_name('MemoryDaxpyCheck %isa=native %turbo=as-configured '
                      '%smt=as-configured %threads=single') == (
        'MemoryDaxpyCheck %threads=single')


def test_the_before_runs_come_first_and_the_nightly_fills_in():
    before = bl.collect('before', [case(20000), case(20500)])
    latency = case(150, unit='ns', variable='latency',
                   name='MemoryLatencyCheck %threads=single')
    stored = bl.collect('nightly', NIGHTLY + [
        case(v, unit='ns', variable='latency',
             name='MemoryLatencyCheck %threads=single') for v in (100, 101)])
    rows = judge([case(20200), latency], [before, stored])
    by_figure = {r['figure']: r for r in rows}
    assert by_figure['triad']['baseline'] == 'before'
    assert by_figure['triad']['verdict'] == 'within noise'
    assert by_figure['latency']['baseline'] == 'nightly'
    assert by_figure['latency']['verdict'] == 'regressed'
    table = format_table(rows, [])
    assert 'beforex2' in table and 'nightlyx2' in table


def test_other_software_is_compared_and_shown_as_what_changed():
    '''An upgrade brings another binary (Spack instead of in-tree, a build
    for another ISA): the same work is compared across it.'''
    old = [dict(case(v), identity=f'dependency=in-tree;isa_built=avx2;'
                f'{QUIET}', dependency_source='in-tree:/stage/build',
                isa_built='avx2', node_software='kernel=6.1.0-25; mpi=4.1.4')
           for v in (36000, 36500, 35500)]
    new = dict(case(17000), identity=f'dependency=path;isa_built=sse4.2;'
               f'{QUIET}', dependency_source='path:/usr/local/bin/stream',
               isa_built='sse4.2', node_software='kernel=6.1.0-26; '
               'mpi=4.1.4')
    rows = judge([new], [bl.collect('before', old),
                         bl.collect('nightly', [])])
    assert verdicts(rows) == [('triad', 'regressed')]
    changed = what_changed.differences(old, [new])
    assert changed == [
        'kernel: 6.1.0-25 -> 6.1.0-26',
        'StreamCheck %threads=all_cores: binary in-tree:/stage/build -> '
        'path:/usr/local/bin/stream; built for avx2 -> sse4.2']


def test_a_fleet_is_compared_node_by_node():
    slow = {'n3': (0.5, ('StreamCheck',))}
    before = bl.collect('before', fleet_cases.fleet(4, seed=1) +
                        fleet_cases.fleet(4, seed=2))
    after = fleet_cases.fleet(4, seed=3, slow=slow, session='after')
    rows = judge(after, [before, bl.collect('nightly', [])])
    regressed = {(r['node'], r['figure']) for r in rows
                 if r['verdict'] == 'regressed'}
    assert {node for node, _ in regressed} == {'n3'}
    assert all(r['baseline'] == 'before' and r['baseline_runs'] == 2
               for r in rows)
    table = format_table(rows, [], per_node=True)
    assert 'nodes that regressed: n3 (5 figure(s))' in table
    assert 'within noise' not in table.splitlines()[1]


def test_a_node_or_a_nodes_check_gone_after_the_upgrade_is_missing():
    before = bl.collect('before', fleet_cases.fleet(4, seed=1) +
                        fleet_cases.fleet(4, seed=2))
    after = [case for case in fleet_cases.fleet(4, seed=3, session='after')
             if case['node'] != 'n4' and not (
                 case['node'] == 'n3' and
                 case['display_name'].startswith('StreamCheck'))]
    after.append(fleet_cases.case('n3', 'StreamCheck', {}, result='skip'))
    rows = judge(after, [before, bl.collect('nightly', [])])
    gone = {(r['node'], r['check'].split()[0], r['note']) for r in rows
            if r['verdict'] == 'missing after the upgrade'}
    assert gone == {('n4', check, 'the node did not run')
                    for check in fleet_cases.FIGURES} | {
        ('n3', 'StreamCheck', f'skipped: {skips.NOT_RECORDED}')}
    assert all('%.nid=n4' in r['check'] for r in rows if r['node'] == 'n4')
    assert exit_status(rows, []) == 1
    table = format_table(rows, [], per_node=True)
    assert 'nodes that lost figures: n4 (12 figure(s)), n3 (5 figure(s))' \
        in table


def test_an_interrupted_before_run_is_not_a_baseline():
    assert bl.interrupted([case(1), dict(case(2), result='abort')])
    assert not bl.interrupted([case(1), dict(case(2), result='fail')])


def _row(uuid, day, kind):
    return {'UUID': uuid, 'Start time': f'202611{day:02d}T020000+0000',
            'post_upgrade': kind}


def _series(sessions, day):
    uuids, _ = bl.before_series(sessions, datetime.datetime(
        2026, 11, day, 3, tzinfo=datetime.timezone.utc))
    return uuids


def test_the_latest_series_of_before_runs_is_the_baseline():
    sessions = [_row('b1', 1, 'before'), _row('a1', 2, 'after'),
                _row('b2', 3, 'before'), _row('b3', 4, 'before'),
                _row('a2', 5, 'after'), _row('a3', 6, 'after')]
    # the verdict runs of one window (a3 a re-check of a2) share a series
    assert _series(sessions, 6) == ['b2', 'b3']
    # what started after the verdict run is not its baseline
    assert _series(sessions, 3) == ['b2']
    assert _series(sessions[:1], 2) == ['b1']
    assert _series([], 2) == []


def test_a_series_is_consecutive_before_runs_a_window_apart():
    sessions = [_row('b1', 1, 'before'), _row('b2', 9, 'before'),
                _row('b3', 10, 'before')]
    uuids, notes = bl.before_series(sessions, datetime.datetime(
        2026, 11, 25, tzinfo=datetime.timezone.utc))
    assert uuids == ['b2', 'b3']
    assert notes == ['1 older --before run(s), the last of 2026-11-01 02:00 '
                     'UTC, left out: more than 7 days before the next, '
                     'another series']


def test_a_verdict_run_beyond_the_window_ends_the_series():
    sessions = [_row('b1', 1, 'before'), _row('a1', 2, 'after'),
                _row('a2', 8, 'after')]
    # a2 re-checked a1 within 7 days; a run 7 days after a2 is another
    # upgrade's
    assert _series(sessions, 14) == ['b1']
    uuids, notes = bl.before_series(sessions, datetime.datetime(
        2026, 11, 16, tzinfo=datetime.timezone.utc))
    assert uuids == []
    assert notes == ['no --before run since the verdict run of 2026-11-08 '
                     '02:00 UTC, more than 7 days before this one: its '
                     "--before runs were another upgrade's baseline (record "
                     '--before before each upgrade)']
