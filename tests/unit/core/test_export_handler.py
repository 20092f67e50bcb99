'''The perflog handler that sends each record to the store
(hpc_acceptance.core.export.handler): the run's session extras from ReFrame's
command line and the modes of config/settings.py, and what it does when the
store is in trouble (stand-ins: a real store cannot be made to answer 500 or
not at all on demand; tests/e2e/test_export_to_store.py runs it against a real
one).'''

import logging
import time
import types

import pytest
from reframe.core import config

from conftest import CONFIG
from helpers import store_stand_ins
from hpc_acceptance.core.export import handler, series, settings, spool

#: The store the spools of these tests record deliveries for.
STORE = 'http://127.0.0.1:8428'


@pytest.fixture(scope='module')
def modes():
    '''The options of each mode of config/settings.py on the embedded
    default, as ReFrame reads them.'''
    site = config.load_config(str(CONFIG))
    site.select_subconfig('local')
    return lambda name: site.get(f'modes/@{name}/options')


@pytest.mark.parametrize('argv, extras', [
    (['-c', 'checks/', '-r'], {}),
    (['--mode', 'nightly', '-r'], {'suite_mode': 'nightly'}),
    (['-r', '--mode=fleet', '--distribute=idle'],
     {'suite_mode': 'nightly', 'fleet': 'yes'}),
    (['--mode', 'post-upgrade', '--session-extras=post_upgrade=before',
      '-r'], {'suite_mode': 'post-upgrade', 'post_upgrade': 'before'}),
    (['--session-extras', 'a=1,b=2', '--session-extras', 'a=3'],
     {'a': '3', 'b': '2'}),
])
def test_the_run_s_extras_are_those_reframe_stores(modes, argv, extras):
    assert handler.session_extras(argv, modes) == extras


def record(node, when, result='pass'):
    '''A performance log record as ReFrame makes it: the check's loggable
    attributes as ``check_*``.'''
    return types.SimpleNamespace(
        check_display_name='MemoryDaxpyCheck %isa=native '
                           '%turbo=as-configured %smt=as-configured '
                           '%threads=single',
        check_system='local', check_partition='default',
        check_environ='gnu', check_node=node,
        check_identity='dependency=in-tree;num_cpus_per_task=1',
        check_job_nodelist=[node], check_result=result,
        check_job_completion_time_unix=when,
        check_perfvalues={
            'local:default:flops_l1': (20746.5, 0, None, None, 'MFLOP/s',
                                       'pass')},
        __rfm_check__=None)


def test_a_refusing_store_is_asked_once_and_the_rest_waits(tmp_path):
    waiting = spool.Spool(tmp_path / 'results-export.db', STORE)
    with store_stand_ins.answering(500, 'disk full') as broken:
        export = handler.ExportHandler(
            settings.ExportSettings(broken.url, timeout_s=2), waiting,
            {'suite_mode': 'nightly'})
        export.emit(record('n1', 1795624054.5))
        export.emit(record('n2', 1795624060.5))
        export.close()

    assert broken.requests == 1
    assert export.refused == 'HTTP 500 Internal Server Error: disk full'
    left = waiting.waiting()
    # each record: its figure, the figure's outcome, the check's outcome
    assert (left.figures, left.samples) == (2, 6)
    assert left.reason == export.refused


def test_a_stalled_store_does_not_make_reframe_wait(tmp_path):
    waiting = spool.Spool(tmp_path / 'results-export.db', STORE)
    with store_stand_ins.stalled() as stalled:
        export = handler.ExportHandler(
            settings.ExportSettings(stalled.url, timeout_s=3), waiting, {})
        started = time.monotonic()
        for number in range(20):
            export.emit(record(f'n{number}', 1795624054.5 + number))

        logged = time.monotonic() - started
        export.close()
        closed = time.monotonic() - started

    # the records only went to the spool; closing waited for the one
    # request that waited its timeout
    assert logged < 3
    assert closed < 2 * 3 + 1
    assert len(stalled.connections) == 1
    assert waiting.waiting().samples == 60


def test_earlier_runs_samples_and_this_run_s_reach_the_store(tmp_path):
    waiting = spool.Spool(tmp_path / 'results-export.db', STORE)
    early = handler.case_of(record('n1', 1795624054.5))
    waiting.hold(series.case_lines(early, {}), 'earlier night')
    with store_stand_ins.answering(204) as store:
        export = handler.ExportHandler(
            settings.ExportSettings(store.url, timeout_s=2), waiting, {})
        export.emit(record('n2', 1795624060.5))
        export.emit(record('n3', 1795624070.5))
        export.close()

    assert sorted({sample['metric']['node'] for sample in store.samples}) \
        == ['n1', 'n2', 'n3']
    assert len(store.samples) == 9
    assert waiting.waiting().samples == 0
    assert export.refused is None


def test_a_handler_that_cannot_keep_anything_warns_once_and_never_raises(
        tmp_path, monkeypatch):
    warnings = []
    monkeypatch.setattr(handler, 'getlogger', lambda: types.SimpleNamespace(
        warning=warnings.append))
    unwritable = spool.Spool(tmp_path / 'no-such-dir' / 'results-export.db',
                             STORE)
    export = handler.ExportHandler(
        settings.ExportSettings('http://127.0.0.1:9', timeout_s=1),
        unwritable, {})
    export.emit(record('n1', 1795624054.5))
    export.emit(record('n2', 1795624060.5))
    export.close()
    warning, = warnings
    assert warning.startswith('export: the figures of MemoryDaxpyCheck ')
    assert '(OperationalError: unable to open database file)' in warning
    assert '"hpc-acceptance export --since" sends them' in warning


def test_without_the_site_s_setting_it_is_a_handler_that_does_nothing(
        monkeypatch, tmp_path):
    monkeypatch.setenv('HPC_ACCEPTANCE_SITE_DIR', str(tmp_path))
    site = config.load_config(str(CONFIG))
    site.select_subconfig('local')
    made = handler._create_handler(site, 'logging/0/handlers_perflog/2')
    assert type(made) is logging.NullHandler
