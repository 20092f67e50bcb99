'''The rules of post-upgrade's judgement
(hpc_acceptance.tools.upgrade.judgement) at their edges: how many
baseline runs make a band, a fleet run node by node and its reruns, no
measurement and figures below 1, fixtures, what the nightly baseline
expects, which checks are rerun, and the verdict line. Baselines are made
by :func:`..upgrade.baseline.collect` from test cases shaped as ReFrame
stores them (tests/helpers/upgrade_runs.py, tests/helpers/fleet_cases.py). Each
test pins a decision a mutant of the module changed while the other tests
passed (tests/README.md, "Mutation testing").
'''

import math

from helpers import fleet_cases
from helpers import upgrade_runs as runs
from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.upgrade import baseline
from hpc_acceptance.tools.upgrade.judgement import (FEW_RUNS, MISSING,
                                                    NO_MEASUREMENT,
                                                    NOT_JUDGED, RECOVERED,
                                                    conclusion, exit_status,
                                                    judge, _other_work,
                                                    suspects)

DEFAULTS = '%isa=native %turbo=as-configured %smt=as-configured'
STREAM = f'StreamCheck {DEFAULTS} %threads=all_cores'
DAXPY = f'MemoryDaxpyCheck {DEFAULTS} %threads=single'
LATENCY = f'MemoryLatencyCheck {DEFAULTS} %threads=single'
WORK = 'array_elements=80000000;dependency=in-tree;ntimes=10'


def stream(triad, **kwargs):
    return runs.case(STREAM, {'triad': (triad, 'MB/s')}, identity=WORK,
                     **kwargs)


def daxpy(figures, **kwargs):
    return runs.case(DAXPY, figures, identity='num_cpus_per_task=1',
                     **kwargs)


def _before(*cases):
    return baseline.collect('before', list(cases))


def _row(rows, figure, node=None):
    (row,) = [r for r in rows if r['figure'] == figure and r['node'] == node]
    return row


def _fleet(values, check='StreamCheck', figure='triad', unit='MB/s'):
    '''A fleet run's test cases: ``{node: value}``.'''
    return [fleet_cases.case(node, check, {figure: (value, unit)})
            for node, value in values.items()]


# -- the band -----------------------------------------------------------------

def test_three_baseline_runs_make_a_band_of_their_own():
    stored = [38000.0, 38500.0, 39000.0]
    row = _row(judge([stream(38400.0)],
                     [_before(*map(stream, stored))]), 'triad')
    assert row['note'] == '' and row['baseline_runs'] == 3
    assert row['band'] == noise.band(stored, 0.25)[1]
    row = _row(judge([stream(38400.0)],
                     [_before(*map(stream, stored[:2]))]), 'triad')
    assert row['note'] == FEW_RUNS


def test_a_single_node_run_is_judged_once_against_all_runs():
    row = _row(judge([stream(38400.0)], [_before(stream(38500.0))]),
               'triad')
    assert (row['node'], row['baseline'], row['unit'], row['identity'],
            row['verdict']) == (None, 'before', 'MB/s', WORK, 'within noise')


def test_a_figure_below_one_is_a_measurement():
    clock = [runs.case(DAXPY, {'core_clock': (0.8, 'GHz')}) for _ in
             range(3)]
    row = _row(judge([clock[0]], [_before(*clock)]), 'core_clock')
    assert (row['verdict'], row['note']) == ('within noise', '')


def test_a_case_that_recorded_no_identity_has_an_empty_one():
    '''Runs stored before the identity was recorded: its rows say
    nothing of it, measured or not.'''
    nan, fine = stream(math.nan), daxpy({'flops_l1': (9000.0, 'MFLOP/s')})
    old = daxpy({'flops_l1': (9000.0, 'MFLOP/s')})
    for case in (nan, fine, old):
        del case['identity']

    rows = judge([nan, fine], [_before(stream(38000.0), old)])
    assert {r['figure']: (r['verdict'], r['identity']) for r in rows} == {
        'triad': (NO_MEASUREMENT, ''), 'flops_l1': ('within noise', '')}


# -- a fleet run, node by node ------------------------------------------------

def test_a_node_without_figures_of_its_own_is_held_to_all_nodes():
    before = _before(*_fleet({'n1': 38000.0, 'n2': 38500.0, 'n3': 38200.0}))
    rows = judge(_fleet({'n1': 38000.0, 'n2': 38500.0, 'n3': 38200.0,
                         'n4': 38300.0}), [before])
    assert _row(rows, 'triad', 'n1')['baseline'] == 'before'
    assert _row(rows, 'triad', 'n4')['baseline'] == 'before (all nodes)'


def test_a_node_with_no_measurement_has_a_row_of_its_own():
    before = _before(*_fleet({'n1': 38000.0, 'n2': 38500.0}))
    after = _fleet({'n1': 38000.0, 'n2': math.nan})
    row = _row(judge(after, [before]), 'triad', 'n2')
    assert {key: row[key] for key in ('check', 'unit', 'identity',
                                      'verdict', 'note')} == {
        'check': after[1]['display_name'], 'unit': 'MB/s',
        'identity': after[1]['identity'], 'verdict': NO_MEASUREMENT,
        'note': 'NaN'}


def test_each_node_is_held_to_its_own_rerun():
    before = _before(*_fleet({f'n{i}': 38000.0 for i in range(1, 5)}))
    after = _fleet({'n1': 38000.0, 'n2': 19000.0, 'n3': 19000.0,
                    'n4': 38000.0})
    confirm = _fleet({'n2': 38100.0, 'n3': 19500.0})
    rows = judge(after, [before], confirm)
    assert _row(rows, 'triad', 'n2')['verdict'] == RECOVERED
    assert _row(rows, 'triad', 'n3')['verdict'] == 'regressed'


def test_a_node_new_to_the_series_is_held_to_every_nodes_figures():
    '''n4 was not in the --before series; its check passed without the
    copy figure every node reported before: missing there, as on a node of
    the series.'''
    both = {'triad': (38000.0, 'MB/s'), 'copy': (36000.0, 'MB/s')}
    before = _before(*[fleet_cases.case(node, 'StreamCheck', both)
                       for node in ('n1', 'n2', 'n3')])
    after = [fleet_cases.case(node, 'StreamCheck', both)
             for node in ('n1', 'n2', 'n3')]
    after.append(fleet_cases.case('n4', 'StreamCheck',
                                  {'triad': (38000.0, 'MB/s')}))
    rows = judge(after, [before])
    row = _row(rows, 'copy', 'n4')
    assert (row['verdict'], row['note']) == (
        MISSING, 'the check no longer reports copy')
    assert _row(rows, 'triad', 'n4')['verdict'] == 'within noise'
    assert [r['node'] for r in rows if r['verdict'] == MISSING] == ['n4']
    assert exit_status(rows, []) == 1


def test_a_fleet_run_after_a_single_node_series_is_held_node_by_node():
    '''The --before series ran on one node, n1, the run after the upgrade
    on every node: each node that ran the check is held to the series'
    figures (n1 too), and one that no longer reports a figure misses it.'''
    both = {'triad': (38000.0, 'MB/s'), 'copy': (36000.0, 'MB/s')}
    single = fleet_cases.case('n1', 'StreamCheck', both)
    single['display_name'] = single['display_name'].replace(' %.nid=n1', '')
    after = [fleet_cases.case(node, 'StreamCheck', {
        'triad': (38000.0, 'MB/s')}) for node in ('n1', 'n2')]
    rows = judge(after, [_before(single)])
    assert [(r['node'], r['figure'], r['verdict']) for r in rows] == [
        ('n1', 'copy', MISSING), ('n2', 'copy', MISSING),
        ('n1', 'triad', 'within noise'), ('n2', 'triad', 'within noise')]
    assert _row(rows, 'triad', 'n2')['baseline'] == 'before (all nodes)'


def test_a_node_that_ran_only_a_fixture_did_not_run():
    before = _before(*_fleet({f'n{i}': 38000.0 for i in range(1, 5)}))
    fixture = _fleet({'n4': 1.0}, 'BuildStream', 'seconds', 's')[0]
    fixture['fixture'] = True
    rows = judge(_fleet({f'n{i}': 38000.0 for i in range(1, 4)}) +
                 [fixture], [before])
    row = _row(rows, 'triad', 'n4')
    assert (row['verdict'], row['note']) == (MISSING,
                                             'the node did not run')


def test_a_fleet_series_missed_by_a_single_node_run_keeps_its_name():
    before = _before(*_fleet({'n1': 38000.0, 'n2': 38000.0}))
    rows = judge([daxpy({'flops_l1': (9000.0, 'MFLOP/s')})], [before])
    (row,) = [r for r in rows if r['verdict'] == MISSING]
    (name,) = before.names.values()
    assert (row['node'], row['check']) == (None, name)
    assert '%.nid=n1' in name


# -- reruns -------------------------------------------------------------------

def test_a_rerun_on_another_node_confirms_a_single_node_run():
    rows = judge([stream(19000.0)], [_before(stream(38000.0))],
                 [stream(38100.0, node='vm2')])
    assert _row(rows, 'triad')['verdict'] == RECOVERED


def test_a_time_rerun_faster_has_recovered():
    latency = [runs.case(LATENCY, {'latency_memory': (95.0, 'ns')})
               for _ in range(3)]
    slow = runs.case(LATENCY, {'latency_memory': (190.0, 'ns')})
    fast = runs.case(LATENCY, {'latency_memory': (40.0, 'ns')})
    rows = judge([slow], [_before(*latency)], [fast])
    assert _row(rows, 'latency_memory')['verdict'] == RECOVERED


def test_fixtures_are_neither_judged_nor_reruns():
    fixture = stream(19000.0)
    fixture['fixture'] = True
    good = stream(38100.0)
    good['fixture'] = True
    rows = judge([fixture, stream(19000.0)], [_before(stream(38000.0))],
                 [good])
    assert [(r['figure'], r['verdict']) for r in rows] == [
        ('triad', 'regressed')]


# -- what the nightly runs expect ---------------------------------------------

def test_a_figure_only_the_nightly_runs_hold_is_missing_where_it_ran():
    '''Nightly runs on two nodes: the row holds both.'''
    nightly = baseline.collect('nightly', [daxpy({
        'flops_l1': (flops, 'MFLOP/s'),
        'time_per_iteration_l1': (1e6 / flops, 'ns')}, node=node)
        for node, flops in (('a', 9000.0), ('b', 9400.0))])
    failed = daxpy({}, result='fail')
    rows = judge([stream(38000.0), failed],
                 [_before(stream(38000.0)), nightly])
    missing = [r for r in rows if r['verdict'] == MISSING]
    assert [(r['figure'], r['baseline'], r['unit'], r['note'],
             r['baseline_runs']) for r in missing] == [
        ('flops_l1', 'nightly', 'MFLOP/s',
         'fail in sanity: validation failed', 2),
        ('time_per_iteration_l1', 'nightly', 'ns',
         'fail in sanity: validation failed', 2)]
    assert missing[0]['baseline_median'] == 9200.0


def test_a_failed_check_of_other_work_misses_the_nightly_figure():
    nightly = baseline.collect('nightly', [runs.case(
        DAXPY, {'flops_l1': (9000.0, 'MFLOP/s')},
        identity='num_cpus_per_task=1')])
    other = runs.case(DAXPY, {}, result='fail',
                      identity='num_cpus_per_task=2')
    rows = judge([other], [_before(stream(38000.0)), nightly])
    assert [r['figure'] for r in rows if r['verdict'] == MISSING and
            r['baseline'] == 'nightly'] == ['flops_l1']


def test_a_check_that_no_longer_reports_a_figure_says_which():
    nightly = baseline.collect('nightly', [daxpy({
        'flops_l1': (9000.0, 'MFLOP/s'),
        'time_per_iteration_l1': (111.0, 'ns')})])
    rows = judge([daxpy({'time_per_iteration_l1': (111.0, 'ns')})],
                 [_before(stream(38000.0)), nightly])
    (row,) = [r for r in rows if r['verdict'] == MISSING and
              r['baseline'] == 'nightly']
    assert row['note'] == 'the check no longer reports flops_l1'


def test_other_work_names_the_inputs_that_differ():
    assert _other_work('num_tasks=4', 'num_tasks=8;repeats=20') == \
        'num_tasks 4 -> 8, repeats (none) -> 20'


# -- the checks rerun, the verdict line ---------------------------------------

def test_only_the_checks_of_a_regressed_figure_are_rerun():
    slow, fine = stream(19000.0), daxpy({'flops_l1': (9000.0, 'MFLOP/s')})
    slow['hashcode'], fine['hashcode'] = 'aaaa1111', 'bbbb2222'
    rows = judge([slow, fine], [_before(stream(38000.0), daxpy({
        'flops_l1': (9000.0, 'MFLOP/s')}))])
    assert suspects(rows, [slow, fine]) == ['aaaa1111']


def test_a_failed_check_fails_the_verdict_line_too():
    rows = judge([stream(38000.0)], [_before(stream(38000.0))])
    assert conclusion(rows, ['HpccCheck']) == \
        'post-upgrade FAILED: 1 check(s) failed'
    rows = judge([stream(19000.0)], [_before(stream(38000.0))])
    assert conclusion(rows, ['HpccCheck']) == \
        'post-upgrade FAILED: 1 figure(s) regressed, 1 check(s) failed'


# -- how steady the repetitions were ----------------------------------------

def test_a_median_repetition_is_shown_never_judged():
    # a quiet night before and a busy one after: the best repetition is
    # within noise, the median one twice as slow, which is no regression
    before = _before(stream(38000.0), daxpy({
        'flops_l1': (20000.0, 'MFLOP/s'),
        'flops_l1_median': (19000.0, 'MFLOP/s'),
        'best_to_median_l1': (0.95, 'ratio')}))
    rows = judge([stream(38100.0), daxpy({
        'flops_l1': (19800.0, 'MFLOP/s'),
        'flops_l1_median': (9000.0, 'MFLOP/s'),
        'best_to_median_l1': (0.45, 'ratio')})], [before])
    for figure in ('flops_l1_median', 'best_to_median_l1'):
        row = _row(rows, figure)
        assert row['verdict'] == NOT_JUDGED
        assert row['change'] < -0.5
    assert _row(rows, 'flops_l1')['verdict'] == 'within noise'
    assert exit_status(rows, []) == 0
    assert conclusion(rows, []) == \
        'post-upgrade passed: 2 figure(s) compared'


def test_a_baseline_from_before_the_kernels_printed_medians_is_whole():
    # the baseline has no median figures, the run after does: nothing is
    # missing, nothing lacks a baseline; and the other way round
    old = _before(daxpy({'flops_l1': (20000.0, 'MFLOP/s')}))
    new = daxpy({'flops_l1': (20100.0, 'MFLOP/s'),
                 'flops_l1_median': (19000.0, 'MFLOP/s')})
    rows = judge([new], [old])
    assert _row(rows, 'flops_l1_median')['verdict'] == NOT_JUDGED
    assert exit_status(rows, []) == 0

    rows = judge([daxpy({'flops_l1': (20100.0, 'MFLOP/s')})],
                 [_before(new)])
    assert [r['figure'] for r in rows] == ['flops_l1']
    assert exit_status(rows, []) == 0


def test_a_run_of_steadiness_figures_only_is_not_validated():
    rows = judge([daxpy({'best_to_median_l1': (0.9, 'ratio')})],
                 [_before(daxpy({'best_to_median_l1': (0.9, 'ratio')}))])
    assert exit_status(rows, []) == 2
    assert conclusion(rows, []).startswith('post-upgrade NOT VALIDATED')


def test_a_steadiness_figure_stored_first_leaves_the_next_one_expected():
    before = _before(daxpy({'best_to_median_l1': (0.95, 'ratio'),
                            'flops_l1': (20000.0, 'MFLOP/s')}))
    rows = judge([stream(38000.0)], [before, _before()])
    assert [(r['figure'], r['verdict']) for r in rows
            if r['verdict'] == MISSING] == [('flops_l1', MISSING)]


def test_a_steadiness_figure_of_the_nightly_runs_is_never_missing():
    nightly = baseline.collect('nightly', [daxpy({
        'flops_l1_median': (19000.0, 'MFLOP/s'),
        'flops_l1': (20000.0, 'MFLOP/s')})])
    rows = judge([stream(38000.0), daxpy({}, result='fail')],
                 [_before(stream(38000.0)), nightly])
    assert [r['figure'] for r in rows if r['verdict'] == MISSING] == [
        'flops_l1']


def test_the_rows_of_a_fleet_run_are_in_node_order():
    '''A night of one job per node: no test case's name holds its node.'''
    def night(values):
        cases = _fleet(values)
        for case in cases:
            case['display_name'] = case['display_name'].split(' %.nid=')[0]
        return cases

    before = _before(*night({'n1': 38000.0, 'n2': 38100.0, 'n3': 37900.0}))
    rows = judge(night({'n3': 38000.0, 'n2': 38000.0, 'n1': 38000.0}),
                 [before])
    assert [(r['node'], r['verdict']) for r in rows] == [
        ('n1', 'within noise'), ('n2', 'within noise'),
        ('n3', 'within noise')]
