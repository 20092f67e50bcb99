'''Shared helpers of the test suite.'''

import collections
import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from reframe.core import runtime

from helpers import cpu_witness, machine_lock
from helpers import spack_ci as spack_ci_kit
from helpers import spack_site

TESTS_DIR = Path(__file__).resolve().parent
PROJECT_DIR = TESTS_DIR.parent
DATA_DIR = TESTS_DIR / 'fixtures' / 'data'
CONFIG = PROJECT_DIR / 'config' / 'settings.py'
REFRAME = Path(sys.executable).parent / 'reframe'
#: The project's console entry point, installed next to reframe.
HPC_ACCEPTANCE = Path(sys.executable).parent / 'hpc-acceptance'
#: Nodes of the Slurm cluster of the fixture ``cluster``.
CLUSTER_NODES = 4
#: reframe options for one timed run per memory figure, for runs whose
#: figures' values are not what a test looks at.
ONE_TIMED_RUN = ('-S', 'repeats=1', '-S', 'span_ms=1')


def run_new_system(*args, env, tmp_path):
    '''``hpc-acceptance new-system ARGS``, finished, its output merged;
    its probes write below ``tmp_path``.'''
    return subprocess.run([str(HPC_ACCEPTANCE), 'new-system', *args],
                          cwd=PROJECT_DIR, text=True,
                          env=dict(env, RFM_PREFIX=str(tmp_path / 'prefix')),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=1800)


def load_topology(name):
    return json.loads((DATA_DIR / 'topology' / f'{name}.json').read_text())


@pytest.fixture(scope='session', autouse=True)
def no_prepared_spack(tmp_path_factory):
    '''The tests see no Spack that ci/setup.sh prepared in this checkout
    (``.spack/setup.json``), so that what they expect of the embedded
    default does not depend on whether this host has Spack; the Spack
    tests name their own Spack directory.'''
    empty = tmp_path_factory.mktemp('no-prepared-spack')
    os.environ['HPC_ACCEPTANCE_SPACK_DIR'] = str(empty)


#: The tests whose assertions read measured figures: a fleet's nodes judged
#: against each other, a night judged against the references or noise
#: floors its own earlier runs wrote, a slowed benchmark told from a quiet
#: one. Each waits for the CI subset's install and runs alone on the
#: machine (helpers/machine_lock.py); every other test may run beside
#: others (the second pytest worker of ci/test.sh, the install ahead). A
#: test file, or one of its tests.
READS_FIGURES = (
    'e2e/test_fleet_run.py::test_quiet_fleet_runs_name_no_node',
    'e2e/test_fleet_run.py::'
    'test_a_slowed_node_is_named_after_its_rerun_and_drained_as_signed',
    'e2e/test_new_system.py::'
    'test_the_docs_bring_the_system_up_and_it_passes_against_them',
    'e2e/test_post_upgrade.py::'
    'test_before_then_a_quiet_after_is_within_noise_and_says_what_changed',
    'e2e/test_post_upgrade.py::test_a_slowed_benchmark_regresses',
    'e2e/test_reference_bring_up.py::'
    'test_three_runs_give_a_reference_file_that_the_next_run_passes',
)


#: What a test needs, as the markers that select it (tests/README.md,
#: "Running a part"): a test is marked by its folder, its file or its own
#: name, or by a fixture it uses.
MARKED_BY = {
    'e2e': {'paths': ('e2e/',)},
    'slurm': {'paths': ('e2e/test_slurm_', 'e2e/test_fleet_run.py',
                        'e2e/test_new_system.py'),
              'fixtures': ('cluster',)},
    'spack': {'paths': ('e2e/test_spack_', 'spack_envs/',
                        'ci/test_setup_spack.py'),
              'fixtures': ('spack_ci', 'site_spack')},
    'browser': {'paths': ('e2e/test_report_in_browser.py',)},
    'slow': {'paths': ('e2e/', 'kernels/', 'spack_envs/'),
             'fixtures': ('cluster', 'spack_ci', 'site_spack', 'replays')},
    'quiet': {'paths': READS_FIGURES},
}


def _file(item):
    '''``folder/file.py`` of ``item``, below tests/.'''
    return item.path.relative_to(TESTS_DIR).as_posix()


def _where(item):
    '''``folder/file.py::test`` of ``item``, below tests/.'''
    return f'{_file(item)}::{item.originalname}'


def _markers(item):
    where = _where(item)
    return [name for name, by in MARKED_BY.items()
            if where.startswith(by['paths']) or
            set(by.get('fixtures', ())) & set(item.fixturenames)]


def _waits_for_the_install(item):
    return (item.get_closest_marker('quiet') is not None or
            'spack_ci' in item.fixturenames)


#: The pytest-xdist group of the tests that share what one worker makes
#: once (``--dist loadgroup``): the Slurm clusters (the machine has one at
#: a time, held for a whole module), the replayed machines; every other
#: test stays with its file, whose module fixtures it shares.
SHARED_BY = {'slurm': 'slurm', 'replays': 'replays', 'site_spack': 'spack'}


def _group(item, by_file):
    names = [name for marker_or_fixture, name in SHARED_BY.items()
             if marker_or_fixture in by_file[item.path]]
    return names[0] if names else _file(item)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    '''Each test marked by what it needs (:data:`MARKED_BY`) and grouped
    for pytest-xdist (:data:`SHARED_BY`). The groups none of whose tests
    waits for the install run first, in their order: a cold install
    (about ten minutes of one core) costs the session the time they leave
    it. Then the others, the largest first, so that the last to start is
    short.'''
    needs = {}
    for item in items:
        markers = _markers(item)
        for name in markers:
            item.add_marker(name)
        needs.setdefault(item.path, set()).update(
            [*markers, *item.fixturenames])
    groups = {item: _group(item, needs) for item in items}
    size = collections.Counter(groups.values())
    waits = {groups[item] for item in items if _waits_for_the_install(item)}
    order = {item: (groups[item] in waits,
                    -size[groups[item]] if groups[item] in waits else 0,
                    index)
             for index, item in enumerate(items)}
    items.sort(key=order.get)
    if config.pluginmanager.hasplugin('xdist'):
        for item in items:
            item.add_marker(pytest.mark.xdist_group(groups[item]))


#: Where the session keeps its install ahead.
AHEAD = pytest.StashKey()
#: Where a quiet test keeps the cores it holds alone.
CORES = pytest.StashKey()
#: Where a quiet test keeps what /proc said when it took the cores.
TAKEN = pytest.StashKey()


def pytest_collection_finish(session):
    '''The CI subset's install started when a test of the session needs
    it (tests/helpers/spack_ci.py), before the first test runs.'''
    needed = any('spack_ci' in item.fixturenames for item in session.items)
    if (needed and not spack_ci_kit.MISSING_KIT and
            not session.config.option.collectonly):
        session.config.stash[AHEAD] = spack_ci_kit.Ahead()


def pytest_sessionfinish(session):
    '''The install ahead ended with the session, had it been cut short.'''
    ahead = session.config.stash.get(AHEAD, None)
    if ahead is not None:
        ahead.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    '''A test, with the fixtures it sets up and tears down, alone on the
    machine when it reads figures, beside others otherwise; one that needs
    the install starts once it has ended, whatever became of it.'''
    ahead = item.config.stash.get(AHEAD, None)
    if ahead is not None and _waits_for_the_install(item):
        # its failure is the failure of the tests that need it
        with contextlib.suppress(Exception):
            ahead.wait()

    if item.get_closest_marker('quiet') is None:
        with machine_lock.beside_others():
            yield
        return

    with machine_lock.alone() as cores:
        item.stash[CORES] = cores
        item.stash[TAKEN] = cpu_witness.snapshot()
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    '''A quiet test that failed says what else used the CPUs it held
    alone (helpers/cpu_witness.py): its figures may be theirs.'''
    made = yield
    report = made.get_result()
    taken = item.stash.get(TAKEN, None)
    if taken is not None and report.failed:
        report.sections.append(('what ran beside this quiet test', '\n'.join(
            cpu_witness.beside(taken, cpu_witness.snapshot(), os.getpid()))))


@pytest.fixture
def cores_alone(request):
    '''The cores this quiet test holds alone (machine_lock.Alone), which
    a step of it that reads no figure shares.'''
    return request.node.stash[CORES]


@pytest.fixture(scope='session')
def spack_ci_ahead(request):
    '''The install the session started ahead, or None.'''
    return request.config.stash.get(AHEAD, None)


@pytest.fixture(autouse=True)
def no_reframe_runtime():
    '''Each test starts outside a ReFrame run and leaves none behind: a
    command run in-process (``db``, ``export``) sets ReFrame's runtime,
    which would make a later test's "outside ReFrame" a run.'''
    with runtime.temp_runtime(None):
        yield


@pytest.fixture(autouse=True)
def umask_kept():
    '''Each test starts with the session's umask and leaves it so: the
    run lock and the command tighten it for the process they run in
    (tools/common/file_modes.py), which in a test is the whole session.'''
    mask = os.umask(0o022)
    os.umask(mask)
    yield
    os.umask(mask)


@pytest.fixture(scope='session')
def spack_ci(spack_ci_ahead):
    '''The CI subset of spack-envs/local installed by the real Spack from
    the offline kit, once per session (tests/helpers/spack_ci.py), started
    ahead; skips where there is no kit.'''
    if spack_ci_kit.MISSING_KIT:
        pytest.skip(spack_ci_kit.MISSING_KIT)
    return spack_ci_ahead.wait() if spack_ci_ahead else spack_ci_kit.install()


@pytest.fixture(scope='session')
def site_spack(tmp_path_factory):
    '''ci/setup-spack.sh run twice with a site's Spack on PATH (the real
    one of the offline kit) on a small environment, once per session
    (tests/helpers/spack_site.py); skips where there is no kit.'''
    if spack_ci_kit.MISSING_KIT:
        pytest.skip(spack_ci_kit.MISSING_KIT)
    return spack_site.set_up(tmp_path_factory.mktemp('site-spack'))


@pytest.fixture(scope='module')
def cluster(tmp_path_factory):
    '''Environment (``SLURM_CONF``) of a running Slurm cluster of
    :data:`CLUSTER_NODES` nodes ``n1``..., each a network namespace of this
    machine (tests/helpers/slurm_cluster.py), for the tests of one module;
    skips where it cannot start.'''
    from helpers import slurm_cluster
    root = tmp_path_factory.mktemp('slurm-nodes')
    try:
        with slurm_cluster.namespaced_nodes(root, CLUSTER_NODES) as env:
            yield env
    except slurm_cluster.ClusterUnavailable as err:
        # raised while starting only: a test's failure does not reach here
        pytest.skip(str(err))


@pytest.fixture
def run_reframe(tmp_path):
    '''Run the reframe CLI with this project's configuration.

    Every run gets its own prefix, perflog directory, reports and results
    database under ``tmp_path``, so tests neither see nor leave state in
    ``var/``. Returns a function taking the CLI arguments and returning the
    finished process (stdout and stderr merged, as text); ``prefix``: a
    command to run reframe under (``taskset -c 0``).
    '''
    def run(*args, env=None, timeout=1800, prefix=()):
        run_env = dict(os.environ)
        run_env.update({
            'RFM_PREFIX': str(tmp_path / 'prefix'),
            'RFM_PERFLOG_DIR': str(tmp_path / 'perflogs'),
            'RFM_REPORT_FILE': str(tmp_path / 'report.json'),
            'RFM_REPORT_JUNIT': str(tmp_path / 'junit.xml'),
            'RFM_SQLITE_DB_FILE': str(tmp_path / 'results.db'),
            'RFM_COLORIZE': 'n',
        })
        run_env.update(env or {})
        return subprocess.run(
            [*prefix, str(REFRAME), '-C', str(CONFIG), *args],
            cwd=PROJECT_DIR, env=run_env, text=True, timeout=timeout,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )

    return run


@pytest.fixture(scope='session')
def replays(tmp_path_factory):
    '''``{snapshot or shape: report}`` of ``hpc-acceptance topology`` on
    every real machine's snapshot (tests/fixtures/data/sysfs) and every odd
    shape made from them (tests/helpers/odd_shapes.py), replayed once for every
    test that reads them, side by side: each replay loads ReFrame and the
    checks. Skipped where no private mount namespace can be made.'''
    from helpers import odd_shapes
    from helpers import sysfs_tree
    from helpers.replay import namespace_refused, replay_all

    refused = namespace_refused()
    if refused is not None:
        pytest.skip(refused)

    snapshots = {name: sysfs_tree.SYSFS_DIR / f'{name}.tar.bz2'
                 for name in sysfs_tree.fixtures()}
    snapshots.update(odd_shapes.made(tmp_path_factory))
    return replay_all(snapshots)


@pytest.fixture(scope='session')
def empty_results_database(tmp_path_factory):
    '''RFM_SQLITE_DB_FILE names a results database of the session's own,
    empty, for tests that judge runs in this process (the property tests):
    an earlier fleet run in the checkout's var/ would change their
    verdicts.'''
    path = tmp_path_factory.mktemp('results') / 'results.db'
    before = os.environ.get('RFM_SQLITE_DB_FILE')
    os.environ['RFM_SQLITE_DB_FILE'] = str(path)
    yield path
    if before is None:
        del os.environ['RFM_SQLITE_DB_FILE']
    else:
        os.environ['RFM_SQLITE_DB_FILE'] = before
