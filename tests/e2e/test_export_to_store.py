'''Every figure of a run in a real time-series store: Debian's
victoria-metrics on 127.0.0.1 (tests/helpers/victoria_metrics.py), read back
through its own APIs and compared with the run's JSON report. A nightly
with the export on, the dashboard's queries against what it sent, a
backfill of stored sessions (and of a new store), what the store lost read
back and sent again, one sender at a time, the dashboard's trend zoomed in
and out, and the store in trouble during a run: down (then replayed into
the restarted store, refusing credentials first), stalled, answering 429
and 500, a login page answering 200.

Each run is one memory check's one-thread variant with one timed run per
figure: the figures' values are not what these tests look at.
'''

import json
import os
import subprocess
import time
import urllib.request
import uuid

import pytest
import yaml

from conftest import CONFIG, HPC_ACCEPTANCE, ONE_TIMED_RUN, PROJECT_DIR, \
    REFRAME
from helpers import exported, store_stand_ins, victoria_metrics
from hpc_acceptance.core.export import series, settings
from hpc_acceptance.core.export import spool as export_spool
from hpc_acceptance.core.export import store as export_store
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.export import verify

SELECT = ['-n', 'MemoryDaxpyCheck.*single', *ONE_TIMED_RUN]
#: The series each target of the dashboard's trend panel draws.
TREND_SERIES = {'A': 'figure', 'E': 'figure', 'B': 'lower_bound',
                'C': 'upper_bound', 'D': 'reference'}
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
    expected = exported.expected_samples(report)
    # what this run sent, not what runs before it did
    assert (f"export: this run's {len(expected)} value(s): {len(expected)} "
            f'taken by the store {store.url}') in ' '.join(
                done.stdout.split())

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
    trend = exported.panel(exported.TREND)
    for (expr, _), target in zip(exported.queries(trend),
                                 trend['targets']):
        series = TREND_SERIES[target['refId']]
        found = {labels['figure']: values[0][1] for labels, values in
                 store.query_range(expr, when, when, '60s')}
        # the highest (lowest) value in the step: both attempts of the
        # retried check, if they ended within it
        within = {}
        for labels, value, at in expected:
            if labels['__name__'] == f'hpc_acceptance_{series}' and \
                    round(when * 1000) - 60000 < at <= round(when * 1000):
                within.setdefault(labels['figure'], []).append(value)
        pick = min if target['refId'] == 'E' else max
        want = {figure: pick(values) for figure, values in within.items()}
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


def test_the_store_s_own_answer_to_an_import_is_204(store):
    '''What the export counts as stored (hpc_acceptance.core.export.store)
    is what the real store answers when it stored a sample.'''
    sample = series.line('hpc_acceptance_probe', {'system': 'probe'}, 1.0,
                         int(time.time() * 1000))
    request = urllib.request.Request(
        f'{store.url}/api/v1/import', method='POST',
        data=json.dumps(sample).encode())
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert (answer.status, answer.read()) == (export_store.STORED, b'')


def test_a_new_store_gets_the_whole_history_backfilled(
        state, store, tmp_path):
    '''What was sent is recorded per store: pointing the setting at
    another store sends it everything, and the first store still has
    nothing sent twice.'''
    site = state / 'site'
    reports = [json.loads((state / 'reports' / f'{name}.json').read_text())
               for name in ('before', 'nightly')]
    values = sum(len(exported.expected_samples(r)) for r in reports)
    today = time.strftime('%Y-%m-%d')
    with victoria_metrics.running(tmp_path / 'store2') as second:
        export_on(site, second.url)
        done = hpc_acceptance(state, site, 'export', '--since', today)
        assert done.returncode == 0, done.stderr
        assert (f'export: {values} value(s) of 2 session(s) stored since '
                f'{today} 00:00: {values} sent to {second.url}, 0 sent '
                f'before') in done.stdout, done.stdout
        for report in reports:
            exported.assert_stored_as_reported(second, report)

    export_on(site, store.url)
    again = hpc_acceptance(state, site, 'export', '--since', today)
    assert f': 0 sent to {store.url}, {values} sent before' in again.stdout


def test_verify_finds_and_sends_what_the_store_lost(state, store):
    site = state / 'site'
    reports = [json.loads((state / 'reports' / f'{name}.json').read_text())
               for name in ('before', 'nightly')]
    values = sum(len(exported.expected_samples(r)) for r in reports)
    whole = hpc_acceptance(state, site, 'export', '--verify')
    assert whole.returncode == 0, whole.stderr
    assert (f'export: --verify: {values} value(s) of 2 session(s) stored '
            f'since ') in whole.stdout
    assert (f': {values} held by the store {store.url}, 0 missing'
            in whole.stdout), whole.stdout

    # the store loses the series it had taken
    store.delete('{__name__=~"hpc_acceptance_.*",check="MemoryDaxpyCheck"}')
    assert exported.of_report(store.export(), reports[1]) == []
    lost = hpc_acceptance(state, site, 'export', '--verify')
    assert lost.returncode == 0, lost.stdout + lost.stderr
    assert (f': 0 held by the store {store.url}, {values} missing '
            f'({values} it had taken: lost or dropped since; 0 never '
            f'taken)') in lost.stdout, lost.stdout
    assert f'{values} sent to {store.url}' in lost.stdout
    assert f'export: read back: the store holds all {values}' in lost.stdout
    for report in reports:
        exported.assert_stored_as_reported(store, report)


def _moved(report, seconds):
    '''``report`` as if it had run ``seconds`` later (earlier when
    negative), under a session id of its own.'''
    def walk(node):
        if isinstance(node, dict):
            return {key: (value + seconds if key.endswith('_unix') and
                          isinstance(value, (int, float)) else walk(value))
                    for key, value in node.items()}
        if isinstance(node, list):
            return [walk(value) for value in node]
        return node

    moved = walk(report)
    moved['session_info']['uuid'] = str(uuid.uuid4())
    for name in ('time_start', 'time_end'):
        moved['session_info'][name] = time.strftime(
            '%Y%m%dT%H%M%S%z',  # ReFrame's own format
            time.localtime(moved['session_info'][f'{name}_unix']))
    return moved


def test_verify_names_what_the_store_answered_for_and_did_not_keep(
        state, store, tmp_path, monkeypatch, capsys):
    '''A session older than the store\'s retention (one month by default):
    the store answers 204 to its import and keeps none of it.'''
    site = state / 'site'
    old = tmp_path / 'old.json'
    old.write_text(json.dumps(_moved(json.loads(
        (state / 'reports' / 'before.json').read_text()), -60 * 86400)))
    database = tmp_path / 'results.db'
    imported = hpc_acceptance(state, site, 'db', 'import', '--db',
                              str(database), str(old))
    assert imported.returncode == 0, imported.stdout + imported.stderr
    since = time.strftime('%Y-%m-%d', time.localtime(time.time() -
                                                     61 * 86400))
    values = len(exported.expected_samples(json.loads(old.read_text())))
    sent = hpc_acceptance(state, site, 'export', '--since', since, '--db',
                          str(database))
    assert f': {values} sent to {store.url}' in sent.stdout, sent.stdout

    monkeypatch.setenv('HPC_ACCEPTANCE_SITE_DIR', str(site))
    monkeypatch.setattr(verify, 'VISIBLE_WITHIN_S', 3)
    assert cli.main(['export', '--verify', '--since', since, '--db',
                        str(database)]) == 1
    said = capsys.readouterr()
    assert (f': 0 held by the store {store.url}, {values} missing '
            f'({values} it had taken') in said.out, said.out
    assert (f'export: the store answered that it stored {values} of them '
            f'and does not hold them 3 s later (the oldest from ') \
        in said.err
    assert "older than its retention (VictoriaMetrics' -retentionPeriod)?" \
        in said.err


def test_two_senders_at_once_send_each_value_once(tmp_path, store):
    '''A cron "export --replay" while another sends from the same spool:
    one sends, the other waits for it and then finds everything sent.'''
    site = export_on(tmp_path / 'site', store.url)
    start = int(time.time() * 1000) - 3600 * 1000
    samples = [series.line(series.FIGURE, {'system': 'race', 'check': 'C',
                                           'node': f'n{n % 50}'},
                           float(n), start + n)
               for n in range(3 * export_store.BATCH)]
    waiting = export_spool.Spool(spool(tmp_path), store.url)
    waiting.hold(samples, 'a night\'s run was killed')
    command = [str(HPC_ACCEPTANCE), 'export', '--replay']
    env = environment(tmp_path, site)
    with waiting.sending():
        # both start while a third sender holds the spool
        senders = [subprocess.Popen(command, env=env, text=True,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE)
                   for _ in range(2)]
        for sender in senders:
            assert 'export: waiting for another sender (pid ' in \
                sender.stderr.readline()

    outputs = [sender.communicate(timeout=300)[0] for sender in senders]
    assert [sender.returncode for sender in senders] == [0, 0]
    told = sorted(' '.join(out.split()) for out in outputs)
    assert told == sorted([
        f'export: {len(samples)} value(s) waiting in the spool: '
        f'{len(samples)} sent to {store.url}, 0 sent before',
        f'export: {len(samples)} value(s) waiting in the spool: 0 sent to '
        f'{store.url}, {len(samples)} sent before']), told
    held = store.export('{system="race"}')
    assert len(held) == len(samples)
    assert len({(labels['node'], when) for labels, _, when in held}) == \
        len(samples)


def test_the_trend_draws_measured_values_at_any_zoom_each_line_named_apart(
        store):
    '''A fleet night of four nodes and a nightly on one of them: zoomed
    in, each point is one node\'s value, never a mean of some; zoomed out
    to an hour, the nodes\' range; and no two lines share a name.'''
    night = time.time() - 1800
    labels = {'system': 'zoom', 'partition': 'cpu', 'environ': 'gnu',
              'check': 'MemoryDaxpyCheck', 'threads': 'single',
              'figure': 'flops_l1', 'unit': 'MFLOP/s', 'identity': 'x=1',
              'mode': 'nightly'}
    values = {'n1': 10.0, 'n2': 20.0, 'n3': 30.0, 'n4': 40.0}
    samples = []
    for number, (node, value) in enumerate(values.items()):
        when = round((night + 20 * number) * 1000)
        fleet = dict(labels, node=node, fleet='yes')
        samples += [series.line(series.FIGURE, fleet, value, when),
                    series.line(series.REFERENCE, fleet, 25.0, when),
                    series.line(series.LOWER_BOUND, fleet, 5.0, when)]
    nightly = dict(labels, node='n1')
    samples += [series.line(series.FIGURE, nightly, 25.0,
                            round((night + 120) * 1000))]
    export_store.post(settings.ExportSettings(store.url), samples)
    deadline = time.monotonic() + exported.VISIBLE_WITHIN_S
    while len(store.export('{system="zoom"}')) < len(samples) and \
            time.monotonic() < deadline:
        time.sleep(0.5)

    trend = exported.panel(exported.TREND)
    zoomed_in = {}
    for (expr, _), target in zip(exported.queries(trend, '1s',
                                                  system='zoom'),
                                 trend['targets']):
        for found, points in store.query_range(expr, night - 10,
                                               night + 130, '1s'):
            zoomed_in[exported.legend(target, found)] = (
                target['refId'], found.get('run') or None,
                [v for _, v in points])

    fleet = {ref: points for ref, run, points in zoomed_in.values()
             if run == 'fleet'}
    # each node's value once, at its own time, in the max and the min
    assert sorted(fleet['A']) == sorted(fleet['E']) == sorted(
        values.values())
    assert sorted(v for ref, run, points in zoomed_in.values()
                  if run is None and ref in 'AE' for v in points) == \
        [25.0, 25.0]
    # every line its own name: max and min, fleet and nightly, bounds
    assert len(zoomed_in) == 6, sorted(zoomed_in)

    zoomed_out = {}
    for (expr, _), target in zip(exported.queries(trend, '1h',
                                                  system='zoom'),
                                 trend['targets']):
        for found, points in store.query_range(expr, night + 130,
                                               night + 130, '1h'):
            zoomed_out[(target['refId'], found.get('run') or None)] = \
                [v for _, v in points]

    assert zoomed_out[('A', 'fleet')] == [40.0]
    assert zoomed_out[('E', 'fleet')] == [10.0]
    assert zoomed_out[('A', None)] == zoomed_out[('E', None)] == [25.0]
    assert zoomed_out[('D', 'fleet')] == [25.0]


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

    # a login page at the store's URL answers 200 to anything: nothing
    # counts as stored
    with store_stand_ins.answering(200, '<html>Sign in</html>') as login:
        export_on(site, login.url)
        refused = hpc_acceptance(tmp_path, site, 'export', '--replay')

    assert refused.returncode == 1
    assert ": 0 sent to " in refused.stdout
    assert ("HTTP 200 OK is not the store's answer to an import (204 No "
            "Content)") in refused.stderr
    assert 'The answer began: <html>Sign in</html>' in refused.stderr

    replayed = hpc_acceptance(tmp_path, export_on(site, store.url),
                              'export', '--replay')
    assert replayed.returncode == 0, replayed.stderr
    exported.assert_stored_as_reported(store, report)
