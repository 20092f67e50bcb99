'''Every figure of a run in a real time-series store: Debian's
victoria-metrics on 127.0.0.1 (tests/victoria_metrics.py), read back
through its own APIs and compared with the run's JSON report. A nightly
with the export on, the dashboard's queries against what it sent, a
backfill of stored sessions, and the store in trouble during a run: down
(then replayed into the restarted store, refusing credentials first),
stalled, answering 429 and 500.

Each run is one memory check's one-thread variant with one timed run per
figure: the figures' values are not what these tests look at.
'''

import json
import os
import subprocess
import time

import pytest
import yaml

import exported
import store_stand_ins
import victoria_metrics
from conftest import CONFIG, HPC_ACCEPTANCE, ONE_TIMED_RUN, PROJECT_DIR, \
    REFRAME

SELECT = ['-n', 'MemoryDaxpyCheck.*single', *ONE_TIMED_RUN]
#: The seconds a request waits for the store in these runs.
TIMEOUT_S = 2


@pytest.fixture(scope='module')
def state(tmp_path_factory):
    '''One results database and site directory for the module's runs, as a
    site keeps them across nights.'''
    return tmp_path_factory.mktemp('export-state')


@pytest.fixture(scope='module')
def store(state):
    with victoria_metrics.running(state / 'store') as running:
        yield running


def export_on(site, url, **more):
    '''The site's export setting: the store at ``url``.'''
    site.mkdir(parents=True, exist_ok=True)
    (site / 'export.yaml').write_text(yaml.safe_dump(
        dict(url=url, timeout_s=TIMEOUT_S, **more)))
    return site


def environment(state, site):
    return dict(os.environ,
                RFM_PREFIX=str(state / 'prefix'),
                RFM_PERFLOG_DIR=str(state / 'perflogs'),
                RFM_REPORT_JUNIT=str(state / 'junit.xml'),
                RFM_SQLITE_DB_FILE=str(state / 'results.db'),
                RFM_COLORIZE='n',
                HPC_ACCEPTANCE_LOCK_FILE=str(state / 'run.lock'),
                HPC_ACCEPTANCE_SPACK='off',
                HPC_ACCEPTANCE_SITE_DIR=str(site))


def nightly(state, site, name, script=None):
    '''A nightly of the selected check, by ReFrame itself (``script``:
    through ci/acceptance.sh): the finished process, output merged, and
    its report.'''
    report = state / 'reports' / f'{name}.json'
    report.parent.mkdir(exist_ok=True)
    command = ([str(script), *SELECT] if script else
               [str(REFRAME), '-C', str(CONFIG), '--mode', 'nightly',
                *SELECT, '-r'])
    done = subprocess.run(
        command, cwd=PROJECT_DIR, text=True, timeout=900,
        env=dict(environment(state, site), RFM_REPORT_FILE=str(report)),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return done, json.loads(report.read_text())


def hpc_acceptance(state, site, *args):
    return subprocess.run([str(HPC_ACCEPTANCE), *args], cwd=PROJECT_DIR,
                          env=environment(state, site), text=True,
                          capture_output=True, timeout=600)


def spool(state):
    return state / 'results-export.db'


def _reference_raised(path, figure, factor):
    '''Multiply ``figure``'s reference value in the reference file.'''
    data = yaml.safe_load(path.read_text())

    def walk(node):
        for name, value in node.items():
            if name == figure:
                value[0] *= factor
            elif isinstance(value, dict):
                walk(value)

    walk(data)
    path.write_text(yaml.safe_dump(data))


def test_a_run_before_the_export_is_on_sends_nothing(state, store):
    site = state / 'site'
    site.mkdir()
    done, _ = nightly(state, site, 'before')
    assert done.returncode == 0, done.stdout[-3000:]
    assert store.export() == []
    assert not spool(state).exists()


def test_a_nightly_sends_every_figure_as_its_report_has_it(state, store):
    site = state / 'site'
    # references from the run before, one figure's out of reach: figures
    # with bounds, one outside them, a failed check
    proposed = hpc_acceptance(state, site, 'propose-references', '--system',
                              'local', '--min-runs', '1', '--floor', '0.8',
                              '--write')
    assert proposed.returncode == 0, proposed.stderr
    _reference_raised(site / 'reference' / 'local.yaml', 'flops_l1', 1000)
    export_on(site, store.url)

    done, report = nightly(state, site, 'nightly',
                           script=PROJECT_DIR / 'ci' / 'acceptance.sh')
    assert done.returncode == 1, done.stdout[-3000:]
    assert f'export: every figure sent to {store.url}' in done.stdout

    expected = exported.expected_samples(report)
    assert {labels['__name__'] for labels, _, _ in expected} == {
        f'hpc_acceptance_{name}' for name in (
            'figure', 'reference', 'lower_bound', 'upper_bound',
            'figure_passed', 'check_passed')}
    # the nightly retried the failed check: both attempts are there
    assert len(report['runs']) == 2
    exported.assert_stored_as_reported(store, report)

    case = next(c for c in report['runs'][-1]['testcases']
                if not c['fixture'])
    when = case['job_completion_time_unix']
    # each figure's trend, between its bounds, on the dashboard
    trend = exported.queries(exported.panel(exported.TREND))
    for (expr, _), series in zip(trend, ('figure', 'lower_bound',
                                         'upper_bound', 'reference')):
        found = {labels['figure']: values[0][1] for labels, values in
                 store.query_range(expr, when, when, '60s')}
        want = {labels['figure']: value
                for labels, value, at in expected
                if labels['__name__'] == f'hpc_acceptance_{series}' and
                at == round(when * 1000)}
        assert found.keys() == want.keys(), expr
        for figure, value in want.items():
            assert found[figure] == pytest.approx(value, rel=1e-12), expr

    # the night's failures: the check, and the figure out of its bounds
    (checks, _), (figures, _) = exported.queries(
        exported.panel(exported.FAILURES))
    failed = store.query(checks, time.time())
    assert [(labels['check'], labels['threads'], value)
            for labels, value in failed] == [
        ('MemoryDaxpyCheck', 'single', 0)]
    out_of_bounds = store.query(figures, time.time())
    assert [labels['figure'] for labels, _ in out_of_bounds] == ['flops_l1']


def test_a_backfill_sends_the_stored_sessions_once(state, store):
    site = state / 'site'
    before = json.loads((state / 'reports' / 'before.json').read_text())
    nightly_report = json.loads(
        (state / 'reports' / 'nightly.json').read_text())
    assert exported.of_report(store.export(), before) == []

    today = time.strftime('%Y-%m-%d')
    done = hpc_acceptance(state, site, 'export', '--since', today)
    assert done.returncode == 0, done.stderr
    sent = len(exported.expected_samples(before))
    assert (f'export: {sent + len(exported.expected_samples(nightly_report))}'
            f' value(s) of 2 session(s) stored since {today} 00:00: {sent} '
            f'sent to {store.url},') in done.stdout, done.stdout
    exported.assert_stored_as_reported(store, before)
    exported.assert_stored_as_reported(store, nightly_report)

    again = hpc_acceptance(state, site, 'export', '--since', today)
    assert again.returncode == 0, again.stderr
    assert ': 0 sent to ' in again.stdout
    samples = store.export()
    assert len({(json.dumps(labels, sort_keys=True), when)
                for labels, _, when in samples}) == len(samples)


def test_a_store_down_during_a_run_gets_its_figures_from_the_spool(
        tmp_path, store):
    site = export_on(tmp_path / 'site', store.url)
    store.stop()
    try:
        done, report = nightly(tmp_path, site, 'down')
        assert done.returncode == 0, done.stdout[-3000:]
        assert (f'WARNING: export: the store {store.url} did not take this '
                f'run\'s figures (cannot reach') in done.stdout
        figures = sum(len(c['perfvalues']) for run in report['runs']
                      for c in run['testcases'])
        samples = len(exported.expected_samples(report))
        summary = ' '.join(hpc_acceptance(
            tmp_path, site, 'summary',
            str(tmp_path / 'reports' / 'down.json')).stdout.split())
        assert (f'export: {figures} figure(s) ({samples} values) wait for '
                f'the store since ') in summary
        assert '"hpc-acceptance export --replay" sends them' in summary

        # back, asking for credentials the setting does not give yet
        store.start(user='acceptance', password='s3cret')
        refused = hpc_acceptance(tmp_path, site, 'export', '--replay')
        assert refused.returncode == 1
        assert 'HTTP 401 Unauthorized' in refused.stderr
        assert 'credentials_file or credentials_variable' in refused.stderr

        (tmp_path / 'credentials').write_text('acceptance:s3cret\n')
        export_on(site, store.url,
                  credentials_file=str(tmp_path / 'credentials'))
        replayed = hpc_acceptance(tmp_path, site, 'export', '--replay')
        assert replayed.returncode == 0, replayed.stderr
        assert f'export: {samples} value(s) waiting in the spool: ' \
            f'{samples} sent' in replayed.stdout
        exported.assert_stored_as_reported(store, report)

        # nothing waits, nothing is sent twice
        again = hpc_acceptance(tmp_path, site, 'export', '--since',
                               time.strftime('%Y-%m-%d'))
        assert f'{samples} sent before' in again.stdout, again.stdout
        exported.assert_stored_as_reported(store, report)
    finally:
        store.stop()
        store.start()


def test_a_stalled_store_is_asked_once_and_the_run_ends(tmp_path, store):
    with store_stand_ins.stalled() as stalled:
        site = export_on(tmp_path / 'site', stalled.url)
        started = time.monotonic()
        done, report = nightly(tmp_path, site, 'stalled')
        took = time.monotonic() - started

    assert done.returncode == 0, done.stdout[-3000:]
    assert f'(no answer within {TIMEOUT_S} s)' in done.stdout
    # one request waited its timeout; the rest of the run did not ask,
    # and the run ended
    assert len(stalled.connections) == 1
    assert took < 300
    waiting = hpc_acceptance(tmp_path, export_on(site, store.url),
                             'export', '--replay')
    assert waiting.returncode == 0, waiting.stderr
    exported.assert_stored_as_reported(store, report)


def test_a_store_answering_429_and_500_keeps_the_figures_waiting(
        tmp_path, store):
    with store_stand_ins.answering(429, 'too many requests') as busy:
        site = export_on(tmp_path / 'site', busy.url)
        done, report = nightly(tmp_path, site, 'busy')

    assert done.returncode == 0, done.stdout[-3000:]
    assert ('(HTTP 429 Too Many Requests: too many requests (the store asks '
            'to send less often))') in done.stdout
    assert busy.requests == 1
    samples = len(exported.expected_samples(report))

    with store_stand_ins.answering(500, 'storage unavailable') as broken:
        export_on(site, broken.url)
        failed = hpc_acceptance(tmp_path, site, 'export', '--replay')

    assert failed.returncode == 1
    assert 'HTTP 500 Internal Server Error: storage unavailable' in \
        failed.stderr
    assert f'{samples} waiting in ' in failed.stdout

    replayed = hpc_acceptance(tmp_path, export_on(site, store.url),
                              'export', '--replay')
    assert replayed.returncode == 0, replayed.stderr
    exported.assert_stored_as_reported(store, report)
