'''``hpc-acceptance post-upgrade`` on the before/after cases a site meets
in its first month (issue 31, "Before/after answers for every figure"):
each through the command (``--report`` judges a given run), on runs shaped
as ReFrame stores them (tests/helpers/upgrade_runs.py), the results database
served at the boundary where the baseline module asks ReFrame for it; the
last test reads a real database that ReFrame's storage code wrote.
'''

import json
import random

import pytest

from helpers import upgrade_runs as runs
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.launch import reframe_call
from hpc_acceptance.tools.results import database
from hpc_acceptance.tools.upgrade import baseline
from hpc_acceptance.tools.upgrade import runs_before_after

DEFAULTS = '%isa=native %turbo=as-configured %smt=as-configured'
STREAM = f'StreamCheck {DEFAULTS} %threads=all_cores'
STREAM_AVX512 = ('StreamCheck %isa=avx512 %turbo=as-configured '
                 '%smt=as-configured %threads=all_cores')
DAXPY = f'MemoryDaxpyCheck {DEFAULTS} %threads=single'
NETWORK = 'NetworkMultiPairCheck %placement=all_cores'
HPL = 'HpccCheck'
STREAM_WORK = 'array_elements=80000000;dependency=in-tree;ntimes=10'
NETWORK_WORK = 'num_tasks={};num_tasks_per_node={};repeats=20'
BEFORE = {'post_upgrade': 'before', 'suite_mode': 'post-upgrade'}
AFTER = {'post_upgrade': 'after', 'suite_mode': 'post-upgrade'}


def stream(triad, name=STREAM, **kwargs):
    return runs.case(name, {'triad': (triad, 'MB/s')}, identity=STREAM_WORK,
                     **kwargs)


def daxpy(flops, **kwargs):
    return runs.case(DAXPY, {'flops_l1': (flops, 'MFLOP/s'),
                             'time_per_iteration_l1': (1e6 / flops, 'ns')},
                     identity='num_cpus_per_task=1', **kwargs)


def network(latency, tasks=8):
    return runs.case(NETWORK, {'latency': (latency, 'us'),
                               'bandwidth': (9000.0, 'MB/s')},
                     identity=NETWORK_WORK.format(tasks, tasks))


#: The --before series of yesterday: two runs of every check and variant.
SERIES = [runs.session([stream(36000 + d), stream(37000 + d, STREAM_AVX512),
                        daxpy(22000 + d), network(2.0 + d / 1000)],
                       runs.ago(days=1, hours=hours), **BEFORE)
          for d, hours in ((0, 3), (300, 2))]


@pytest.fixture
def judge(tmp_path, monkeypatch, capsys):
    '''``judge(after cases, stored sessions, *options)``: ``(exit status,
    its output, rows of the verdict's JSON)`` of ``post-upgrade --report``
    on a run of ``after cases`` started now.'''
    # the report page's trends read this empty database
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))

    def run(cases, stored, *options, log=None):
        store = runs.Store(stored)
        monkeypatch.setattr(baseline, 'session_rows', store.sessions)
        monkeypatch.setattr(baseline, 'stored_testcases', store.testcases)
        monkeypatch.setattr(baseline, 'session_testcases', store.testcases)
        report = runs.write(runs.session(cases, runs.NOW, **AFTER),
                            tmp_path / 'after.json')
        if log:
            (tmp_path / 'after.log').write_text(log)

        capsys.readouterr()
        status = cli.main(['post-upgrade', '--report', report, *options])
        out = capsys.readouterr().out
        table = json.loads((tmp_path / 'after-verdict.json').read_text())
        assert table['exit_status'] == status
        return status, out, table['figures']

    # the console summary and the report page are an acceptance run's
    # (tested with it): only the verdict here
    monkeypatch.setattr(runs_before_after, 'show_run', lambda *_: None)
    return run


def one(rows, check, figure):
    '''The row of ``figure`` of ``check`` (its display name).'''
    [row] = [r for r in rows if (r['check'], r['figure']) == (check, figure)]
    return row


def test_a_check_that_skips_after_the_upgrade_is_missing_and_fails(judge):
    '''The binary is gone after the upgrade: its check skips, saying so.'''
    gone = ('mem_daxpy: not on PATH, no module or Spack package provides '
            'it and the in-tree build failed')
    status, out, rows = judge(
        [stream(36100), stream(36900, STREAM_AVX512), network(2.0),
         runs.case(DAXPY, result='skip', skip_reason=gone)], SERIES)
    assert status == 1, out
    for figure in ('flops_l1', 'time_per_iteration_l1'):
        row = one(rows, DAXPY, figure)
        assert row['verdict'] == 'missing after the upgrade'
        assert row['note'] == f'skipped: {gone}'
        assert row['value'] is None and row['baseline_runs'] == 2

    assert one(rows, STREAM, 'triad')['verdict'] == 'within noise'
    lines = out.splitlines()
    assert lines[-1] == ('post-upgrade FAILED: 2 figure(s) missing after '
                         'the upgrade')
    assert any(line.startswith('missing after the upgrade '
                               'MemoryDaxpyCheck %threads=single flops_l1')
               and f'(skipped: {gone})' in line for line in lines), out


def test_a_skip_of_reframes_own_has_its_reason_from_the_console(judge):
    console = (f'[      SKIP ] (1/4) {DAXPY} /0c3e5a1b @local:default+gnu '
               f'[not enough nodes in partition]\n')
    status, out, rows = judge(
        [stream(36100), stream(36900, STREAM_AVX512), network(2.0),
         runs.case(DAXPY, result='skip')], SERIES, log=console)
    assert status == 1
    assert one(rows, DAXPY, 'flops_l1')['note'] == \
        'skipped: not enough nodes in partition'


def test_a_variant_no_longer_generated_is_missing_and_fails(judge):
    '''The CPU no longer reports AVX-512 after a BIOS upgrade: ReFrame
    makes no test case of that variant at all.'''
    status, out, rows = judge(
        [stream(36100), daxpy(22100), network(2.0)], SERIES)
    assert status == 1, out
    row = one(rows, STREAM_AVX512, 'triad')
    assert row['verdict'] == 'missing after the upgrade'
    assert row['note'] == ('no test case: the variant was not generated or '
                           'not selected')
    assert row['baseline_median'] == pytest.approx(37150)
    assert out.splitlines()[-1] == ('post-upgrade FAILED: 1 figure(s) '
                                    'missing after the upgrade')


def test_a_changed_task_count_is_missing_and_its_new_figures_unjudged(
        judge):
    '''SMT off after the upgrade: the multi-pair check runs 4 ranks where
    it ran 8; its old figures are missing, its new ones have no
    baseline.'''
    status, out, rows = judge(
        [stream(36100), stream(36900, STREAM_AVX512), daxpy(22100),
         network(2.0, tasks=4)], SERIES)
    assert status == 1, out
    verdicts = sorted((r['verdict'], r['identity']) for r in rows
                      if r['check'] == NETWORK)
    assert verdicts == 2 * [('missing after the upgrade',
                             NETWORK_WORK.format(8, 8))] + \
        2 * [('no baseline', NETWORK_WORK.format(4, 4))]
    missing = [r for r in rows if r['verdict'] == 'missing after the upgrade']
    assert {r['note'] for r in missing} == {
        'ran other work: num_tasks 8 -> 4, num_tasks_per_node 8 -> 4'}


def test_a_figure_without_baseline_leaves_the_run_partly_validated(judge):
    status, out, rows = judge(
        [stream(36100), stream(36900, STREAM_AVX512), daxpy(22100),
         network(2.0), runs.case(HPL, {'hpl': (1.2, 'Tflop/s')})], SERIES)
    assert status == 2, out
    assert one(rows, HPL, 'hpl')['verdict'] == 'no baseline'
    assert out.splitlines()[-1] == (
        'post-upgrade PARTLY VALIDATED: 1 of 7 figure(s) had no baseline; '
        '6 compared, none regressed')


def test_every_figure_compared_and_within_noise_passes(judge):
    status, out, _ = judge(
        [stream(36100), stream(36900, STREAM_AVX512), daxpy(22100),
         network(2.0)], SERIES)
    assert status == 0, out
    assert out.splitlines()[-1] == 'post-upgrade passed: 6 figure(s) compared'


def test_nothing_compared_is_not_validated(judge):
    status, out, _ = judge([stream(36100)], [])
    assert status == 2
    assert out.splitlines()[-1].startswith('post-upgrade NOT VALIDATED: no '
                                           'figure had a baseline')


def test_a_figure_that_recovered_on_its_rerun_shows_both_values(
        tmp_path, monkeypatch, capsys):
    '''A figure that halved on the first run and not on the confirmation
    rerun passes, and the table shows the halving.'''
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))
    store = runs.Store(SERIES)
    monkeypatch.setattr(baseline, 'session_rows', store.sessions)
    monkeypatch.setattr(baseline, 'stored_testcases', store.testcases)
    monkeypatch.setattr(baseline, 'session_testcases', store.testcases)
    first = [stream(18000), stream(36900, STREAM_AVX512), daxpy(22100),
             network(2.0)]
    written = iter([runs.session(first, runs.NOW, **AFTER),
                    runs.session([stream(35800)], runs.NOW,
                                 post_upgrade='confirm')])
    commands = []

    def reframe(args, report, prefix, env=None, echo=False):
        '''ReFrame's run: the after run, then the rerun of the suspect.'''
        commands.append(args)
        runs.write(next(written), tmp_path / report)
        return 0

    monkeypatch.setattr(reframe_call, 'run', reframe)
    monkeypatch.setattr(runs_before_after, 'show_run', lambda *_: None)
    status = cli.main(['post-upgrade', '--output-dir', str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert commands[1][-2:] == ['-n', f'/{first[0]["hashcode"]}']
    [verdict] = tmp_path.glob('post-upgrade-*-verdict.json')
    [row] = [r for r in json.loads(verdict.read_text())['figures']
             if r['check'] == STREAM]
    assert row['verdict'] == 'within noise on rerun'
    assert (row['value'], row['rerun_value']) == (18000, 35800)
    assert row['change'] == pytest.approx(-0.5, abs=0.01)
    assert row['rerun_change'] == pytest.approx(35800 / 36150 - 1)
    [line] = [line for line in out.splitlines()
              if line.startswith('within noise on rerun')]
    assert ' 1.8e+04 ' in line and ' 3.58e+04 ' in line, line
    assert '-50.2%' in line and 'rerun -1.0%)' in line, line
    assert out.splitlines()[-1] == (
        'post-upgrade passed: 6 figure(s) compared; 1 within noise on rerun '
        '(out of its band on the first run)')


NPB = 'NpbCgCheck %num_procs=4'


def npb(mops, node=None):
    name = f'{NPB} %.nid={node}' if node else NPB
    return runs.case(name, {'mops': (mops, 'Mop/s')},
                     identity='npb_class=C;num_tasks=4',
                     node=node or 'vm')


def nightlies():
    '''Five quiet nights and one fleet night of 200 nodes whose spread is
    that of one processor model's nodes (a few % each way).'''
    rng = random.Random(3)
    quiet = [runs.session([npb(5000 * rng.lognormvariate(0, 0.01))],
                          runs.ago(days=night), suite_mode='nightly')
             for night in range(2, 7)]
    fleet = runs.session([npb(5000 * rng.lognormvariate(0, 0.06),
                              node=f'n{n}') for n in range(1, 201)],
                         runs.ago(days=1), suite_mode='nightly', fleet='yes')
    return quiet + [fleet]


def test_a_fleet_night_does_not_widen_the_nightly_baseline(judge):
    '''No --before run: a figure 15 % down against the quiet nights is a
    regression; the fleet night's 200 nodes are not pooled into the band
    (with them it was about ±20 % and the loss "within noise").'''
    status, out, rows = judge([npb(4250)], nightlies())
    row = one(rows, NPB, 'mops')
    assert (row['verdict'], row['baseline_runs']) == ('regressed', 5), out
    assert row['band'] == 0.1
    assert status == 1
    assert 'post-upgrade: 1 fleet run(s) left out of the nightly baseline' \
        in out


def test_an_abandoned_before_series_is_not_pooled(judge):
    '''A --before run of months ago (an upgrade called off) and the one of
    yesterday: only yesterday's is the baseline.'''
    old = runs.session([stream(24000)], runs.ago(days=120), **BEFORE)
    new = runs.session([stream(36000)], runs.ago(days=1), **BEFORE)
    status, out, rows = judge([stream(26000)], [old, new])
    row = one(rows, STREAM, 'triad')
    assert (row['verdict'], row['baseline_median']) == ('regressed', 36000)
    assert status == 1
    assert ('1 older --before run(s), the last of '
            f'{runs.ago(days=120):%Y-%m-%d %H:%M} UTC, left out: more than '
            '7 days before the next, another series') in out


def test_a_series_another_upgrade_was_judged_against_is_no_baseline(judge):
    '''The --before runs of the last upgrade, two months ago, and its
    verdict run: this upgrade had no --before run.'''
    before = runs.session([stream(36000)], runs.ago(days=61), **BEFORE)
    verdict = runs.session([stream(36000)], runs.ago(days=60), **AFTER)
    status, out, rows = judge([stream(30000)], [before, verdict])
    assert one(rows, STREAM, 'triad')['verdict'] == 'no baseline'
    assert status == 2
    assert ('post-upgrade: no --before run since the verdict run of '
            f'{runs.ago(days=60):%Y-%m-%d %H:%M} UTC, more than 7 days '
            'before this one' in out)


def test_a_recheck_in_the_same_window_keeps_the_series(judge):
    '''A regression fixed and the verdict run again an hour later: the
    same --before runs are its baseline.'''
    verdict = runs.session([stream(18000)], runs.ago(hours=1), **AFTER)
    status, out, rows = judge([stream(35800)], SERIES + [verdict])
    assert one(rows, STREAM, 'triad')['baseline'] == 'before'
    assert one(rows, STREAM, 'triad')['baseline_runs'] == 2


def test_a_figure_of_0_is_the_worst_in_any_unit_and_band(judge):
    '''A latency of 0 is a broken timer, not an improvement; a bandwidth
    of 0 regressed even with a system floor wider than 63 %.'''
    status, out, rows = judge(
        [stream(0.0), stream(36900, STREAM_AVX512), daxpy(22100),
         runs.case(NETWORK, {'latency': (0.0, 'us'),
                             'bandwidth': (9000.0, 'MB/s')},
                   identity=NETWORK_WORK.format(8, 8))],
        SERIES, '--floor', 'Stream=0.7')
    for row in one(rows, STREAM, 'triad'), one(rows, NETWORK, 'latency'):
        assert row['verdict'] == 'regressed'
        assert row['note'] == ('few baseline runs; a figure of 0 is no '
                               'measurement')

    assert status == 1


def test_a_site_checks_time_that_grew_regressed_in_any_spelling(judge):
    site = 'SiteOsuLatencyCheck'
    for unit in ('usec', '\N{MICRO SIGN}s', 'nsec', 's/iter', 'sec',
                 'cycles/op'):
        stored = [runs.session([runs.case(site, {'latency': (2.0, unit)})],
                               runs.ago(days=1, hours=h), **BEFORE)
                  for h in (1, 2, 3)]
        status, _, rows = judge(
            [runs.case(site, {'latency': (3.0, unit)})], stored)
        assert one(rows, site, 'latency')['verdict'] == 'regressed', unit
        assert status == 1


def test_a_real_database_gives_the_same_baselines(tmp_path, monkeypatch,
                                                  capsys):
    '''The sessions stored by ReFrame's own storage code and read back by
    ReFrame: the fleet night and the abandoned --before run are left out
    there too.'''
    stored = nightlies() + [
        runs.session([stream(24000)], runs.ago(days=120), **BEFORE),
        runs.session([stream(36000)], runs.ago(days=1), **BEFORE)]
    paths = [runs.write(report, tmp_path / f'stored-{i}.json')
             for i, report in enumerate(stored)]
    db = tmp_path / 'results.db'
    done, _, errors = database.import_reports(str(db), paths)
    assert (len(done), errors) == (len(stored), [])
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(db))
    after = runs.write(runs.session([stream(26000), npb(4250)], runs.NOW,
                                    **AFTER), tmp_path / 'after.json')
    capsys.readouterr()
    assert cli.main(['post-upgrade', '--report', after]) == 1
    out = capsys.readouterr().out
    rows = {r['check'].split()[0]: r for r in json.loads(
        (tmp_path / 'after-verdict.json').read_text())['figures']}
    assert (rows['StreamCheck']['verdict'],
            rows['StreamCheck']['baseline']) == ('regressed', 'before')
    assert (rows['NpbCgCheck']['verdict'],
            rows['NpbCgCheck']['baseline_runs']) == ('regressed', 5)
    assert '1 fleet run(s) left out of the nightly baseline' in out
