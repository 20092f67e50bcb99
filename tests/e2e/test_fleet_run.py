'''The fleet run for real: ``ci/acceptance.sh --fleet`` on the four-node
Slurm cluster of network namespaces (tests/helpers/slurm_cluster.py), every
node running the nightly's memory and STREAM checks (a few of them) in one
Slurm job of its own (the default ``--fleet-mode node-jobs``; the nodes
share this machine's 2 cores, so the quiet runs run one node's job at a
time, where a real cluster's nodes run side by side), compared with each
other; the slowed node's and the export's nights through ReFrame's
``--distribute`` (:data:`DISTRIBUTE`).

A node is made slower for a run by putting its ``slurmd``, and so every
job it starts, in a cgroup with a CPU quota of 1000 us per 3333 us (30 %
of a core): the period is short so that no whole benchmark run goes
through unthrottled, which a best-of-runs figure would see.
'''

import contextlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import DATA_DIR, HPC_ACCEPTANCE, PROJECT_DIR, REFRAME
from helpers import exported, slurm_cluster, victoria_metrics
from hpc_acceptance.tools.fleet.model import node_of
from hpc_acceptance.tools.results.runs import final_testcases

NODES = slurm_cluster.node_names(4)
OVERLAY = ['-C', str(DATA_DIR / 'slurm' / 'slurm_localhost.py'),
           '--system', 'slurm-nodes']
#: Nightly memory and STREAM checks that take seconds a node here, each
#: figure the best of runs spanning 0.2 s. One thread each: what two
#: threads read from this VM's memory depends on where its host runs its
#: two vCPUs (51 or 83 GB/s, minutes apart: ci/bench/README.md, "The
#: memory level of a virtual machine"), which moves every test node at once
#: from one night to the next, and the fleet-wide rule rightly calls that a
#: loss. One thread's figures stay put; a slowed node's still fall by 70 %.
CHECKS = ['-n', 'StreamCheck.*single', '-n', 'MemoryDaxpyCheck.*single',
          '-n', 'MemoryReadBandwidthCheck.*single', '-S', 'span_ms=200']
ONE_CHECK = ['-n', 'MemoryDaxpyCheck.*single', '-S', 'span_ms=200']
#: A check whose ranks the partition's launcher starts (``srun``, a step of
#: the node's job), where the memory checks run as one process.
STEP_CHECK = ['-n', 'NetworkSinglePairCheck.*same_socket']
#: The verdict on figures of a fleet too small to compare (under four nodes)
#: on a cluster without a reference file.
NOT_JUDGED = 'acceptance NOT VALIDATED: no reference file for slurm-nodes'
CGROUP_V1 = Path('/sys/fs/cgroup/cpu')
CGROUP_V2 = Path('/sys/fs/cgroup')


@pytest.fixture(scope='module')
def cluster(tmp_path_factory):
    '''Environment (``SLURM_CONF``) of the running namespaced cluster.'''
    root = tmp_path_factory.mktemp('slurm-fleet')
    try:
        with slurm_cluster.namespaced_nodes(root, len(NODES)) as env:
            yield env
    except slurm_cluster.ClusterUnavailable as err:
        pytest.skip(str(err))


@pytest.fixture(scope='module')
def state(tmp_path_factory):
    '''One results database and reports folder for the module's runs, as
    a site's checkout keeps across nights.'''
    return tmp_path_factory.mktemp('fleet-state')


def _environment(state, cluster):
    return dict(os.environ, **cluster,
                RFM_PREFIX=str(state / 'prefix'),
                RFM_PERFLOG_DIR=str(state / 'perflogs'),
                RFM_REPORT_JUNIT=str(state / 'junit.xml'),
                RFM_SQLITE_DB_FILE=str(state / 'results.db'),
                HPC_ACCEPTANCE_LOCK_FILE=str(state / 'run.lock'),
                HPC_ACCEPTANCE_SPACK='off')


def fleet_run(state, cluster, name, *args, **env):
    '''``ci/acceptance.sh --fleet`` on the cluster, with more
    environment variables ``env``: the finished process (output merged) and
    the run's report.'''
    report = state / 'reports' / f'{name}.json'
    done = subprocess.run(
        [str(PROJECT_DIR / 'ci' / 'acceptance.sh'), '--fleet', *args,
         *OVERLAY],
        env=dict(_environment(state, cluster), RFM_REPORT_FILE=str(report),
                 **env),
        text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        timeout=1800)
    return done, report


def _cases(report):
    '''Each test case's last attempt (the nightly retries a failure).'''
    return [c for c in final_testcases(json.loads(report.read_text()))
            if not c['fixture']]


def _hpc_acceptance(state, cluster, *args):
    return subprocess.run([str(HPC_ACCEPTANCE), *args],
                          env=_environment(state, cluster), text=True,
                          capture_output=True)


def _scontrol(cluster, *args):
    subprocess.run(['scontrol', *args], env=dict(os.environ, **cluster),
                   check=True)


def _node_line(cluster, node):
    return subprocess.run(['scontrol', '-o', 'show', 'node', node],
                          env=dict(os.environ, **cluster), text=True,
                          capture_output=True, check=True).stdout


def _answering(cluster, node):
    '''Wait until Slurm reaches ``node``'s slurmd again: a slowed slurmd
    may miss a ping, and Slurm says so until its next one (100 s apart
    with the default SlurmdTimeout).'''
    deadline = time.monotonic() + 300
    while 'NOT_RESPONDING' in _node_line(cluster, node):
        assert time.monotonic() < deadline, _node_line(cluster, node)
        time.sleep(2)


@contextlib.contextmanager
def slowed(cluster, node, until=None):
    '''``node``'s slurmd, and every job it starts, held to 30 % of a core
    in 3.3 ms periods; until the file ``until`` appears, if given.'''
    pid = (Path(cluster['SLURM_CONF']).parent /
           f'slurmd-{node}.pid').read_text().strip()
    if (CGROUP_V1 / 'cpu.cfs_quota_us').exists():
        group, parent = CGROUP_V1 / f'rfmacc-slow-{node}', CGROUP_V1
        limits = {'cpu.cfs_period_us': '3333', 'cpu.cfs_quota_us': '1000'}
    elif (CGROUP_V2 / 'cpu.max').exists() or \
            'cpu' in (CGROUP_V2 / 'cgroup.subtree_control').read_text():
        group, parent = CGROUP_V2 / f'rfmacc-slow-{node}', CGROUP_V2
        limits = {'cpu.max': '1000 3333'}
    else:
        pytest.skip('no cgroup cpu controller to slow a node with')

    def release():
        for left in (group / 'cgroup.procs').read_text().split():
            with contextlib.suppress(OSError):
                (parent / 'cgroup.procs').write_text(left)

    def release_when_there():
        while not until.exists() and not done.is_set():
            time.sleep(0.2)

        release()

    group.mkdir(exist_ok=True)
    done = threading.Event()
    watcher = threading.Thread(target=release_when_there)
    try:
        for name, value in limits.items():
            (group / name).write_text(value)

        (group / 'cgroup.procs').write_text(pid)
        if until:
            watcher.start()

        yield
    finally:
        done.set()
        if until:
            watcher.join()

        release()
        group.rmdir()


#: One node's job at a time: the test's nodes share this machine's cores,
#: and a node slowed by its cgroup steals them from any other node's job
#: that runs beside it (seen: two nodes' memory bandwidth halved, the fleet
#: "lost as a whole"), which a real node's neighbour never does; and a
#: suspect's rerun runs alone, so the figures it is compared with must have
#: too (seen: a node at a fifth of its siblings' speed back "within the
#: band" on its rerun, its siblings measured four at once on two cores;
#: and a slowed node's second night, its jobs four at once beside the
#: builds of the next, read n4 as slow as the slowed n3).
ONE_AT_A_TIME = ('--max-jobs', '1')
#: ReFrame's --distribute, the mode a site may keep: the nights whose
#: subject is the judgement after the run (a slowed node's drain and
#: resume, the export) run this way, a job per check and node, so that the
#: module stays within CI's time; the default's node jobs run the quiet
#: nights, a drained node, a node lost mid-run and a reservation. One node
#: job a time, each starting a ReFrame that builds the kernels for itself,
#: made the slowed node's nights 4 minutes each on 2 cores.
DISTRIBUTE = ('--fleet-mode', 'distribute')


def test_quiet_fleet_runs_name_no_node(state, cluster):
    # n2 is slow on the night's first run only: the rerun of its checks on
    # it, before it is named, finds it back in line; the three others,
    # quiet throughout, are never suspects
    rerun_log = state / 'reports' / 'quiet-confirm.log'
    with slowed(cluster, 'n2', until=rerun_log):
        done, report = fleet_run(state, cluster, 'quiet', *ONE_AT_A_TIME,
                                 *CHECKS)

    assert done.returncode == 0, done.stdout[-5000:]
    assert "the suspects' checks once more, on their nodes" in done.stdout
    # the summary wraps its lines at the terminal's width: read the words
    words = ' '.join(done.stdout.split())
    assert re.search(r' n2: \w+Check [^:]* on the first run, [^:]* on its '
                     r'rerun: not a suspect', words), done.stdout
    assert done.stdout.splitlines()[-1].startswith('acceptance passed')

    # every figure knows its node: the report, the perflog, the database
    cases = _cases(report)
    assert {c['node'] for c in cases} == set(NODES)
    for node in NODES:
        assert len([c for c in cases if c['node'] == node]) == 3

    perflogs = state / 'perflogs' / 'slurm-nodes' / 'compute'
    for check in ('StreamCheck', 'MemoryDaxpyCheck',
                  'MemoryReadBandwidthCheck'):
        lines = (perflogs / f'{check}.log').read_text().splitlines()[1:]
        # the night on every node, and n2's reruns
        assert len(lines) > len(NODES)
        assert {re.search(r'\|node=([^|]*)\|', line)[1]
                for line in lines} == set(NODES)

    session = cases[0]['session_uuid']
    stored = subprocess.run(
        [str(REFRAME), '-C', str(PROJECT_DIR / 'config' / 'settings.py'),
         '--describe-stored-testcases', session],
        env=_environment(state, cluster), text=True, capture_output=True)
    assert {c['node'] for c in json.loads(stored.stdout)
            if not c['fixture']} == set(NODES)

    page = next(line for line in done.stdout.splitlines()
                if line.startswith('acceptance: report page '))
    assert (Path(page.split()[-1]).parent / 'fleet-01.png').is_file()


def test_a_slowed_node_is_named_after_its_rerun_and_drained_as_signed(
        state, cluster):
    with slowed(cluster, 'n3'):
        done, report = fleet_run(state, cluster, 'slow-n3', *DISTRIBUTE,
                                 *ONE_AT_A_TIME, *ONE_CHECK)

    assert done.returncode == 1, done.stdout[-5000:]
    assert "the suspects' checks once more, on their nodes" in done.stdout
    assert done.stdout.splitlines()[-1].endswith(
        '1 suspect node(s): n3 (slurm-nodes:compute); see hpc-acceptance '
        'suspects')
    summary = done.stdout[done.stdout.index('suspect nodes (1 of 4'):]
    assert re.search(r'\n  n3: (StreamCheck|MemoryDaxpyCheck|'
                     r'MemoryReadBandwidthCheck) ', summary)

    # the latest stored fleet run, as a sysadmin asks the morning after
    slurm = _hpc_acceptance(state, cluster, 'suspects', '--format', 'slurm')
    assert slurm.returncode == 1, slurm.stderr
    (line,) = slurm.stdout.splitlines()
    assert line.startswith('scontrol update NodeName=n3 State=DRAIN '
                           "'Reason=hpc-acceptance: ")
    assert len(shlex.split(line)) == 5

    # an administrator took n3 out meanwhile: their reason stays
    _scontrol(cluster, 'update', 'NodeName=n3', 'State=DRAIN',
              'Reason=RMA 4711')
    drained = _hpc_acceptance(state, cluster, 'suspects', '--run-report',
                              str(report), '--drain')
    assert ("not drained n3: already drain+idle with the reason 'RMA 4711'"
            in drained.stderr), drained.stderr
    assert 'Reason=RMA 4711 ' in _node_line(cluster, 'n3')
    _scontrol(cluster, 'update', 'NodeName=n3', 'State=RESUME')
    try:
        drained = _hpc_acceptance(state, cluster, 'suspects',
                                  '--run-report', str(report), '--drain')
        assert 'drained n3: hpc-acceptance: ' in drained.stderr
        assert 'State=IDLE+DRAIN' in _node_line(cluster, 'n3')

        # back from repair: its checks on it alone, then back in service
        _answering(cluster, 'n3')
        resumed = subprocess.run(
            [str(HPC_ACCEPTANCE), 'suspects', '--resume', '--', *OVERLAY,
             *ONE_CHECK],
            env=dict(_environment(state, cluster),
                     RFM_REPORT_FILE=str(state / 'reports' / 'any.json')),
            text=True, capture_output=True)
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert 'resumed n3: ' in resumed.stdout
        assert 'State=IDLE ' in _node_line(cluster, 'n3')
    finally:
        # back in service however the test went (refused if it is)
        subprocess.run(['scontrol', 'update', 'NodeName=n3', 'State=RESUME'],
                       env=dict(os.environ, **cluster), capture_output=True)

    # NHC's reason holds what it found, here this tool's own words: the
    # node is NHC's, and --resume leaves it alone
    _scontrol(cluster, 'update', 'NodeName=n2', 'State=DRAIN',
              'Reason=NHC: rogue process Reason=hpc-acceptance: 2026 x')
    try:
        untouched = subprocess.run(
            [str(HPC_ACCEPTANCE), 'suspects', '--resume'],
            env=_environment(state, cluster), text=True, capture_output=True)
        assert untouched.returncode == 2, untouched.stderr
        assert 'nothing to resume' in untouched.stderr
        assert 'State=IDLE+DRAIN' in _node_line(cluster, 'n2')
    finally:
        _scontrol(cluster, 'update', 'NodeName=n2', 'State=RESUME')

    # the next night it is slow again: a suspect two runs in a row
    with slowed(cluster, 'n3'):
        done, _ = fleet_run(state, cluster, 'slow-n3-again', *DISTRIBUTE,
                            *ONE_AT_A_TIME, *ONE_CHECK)

    assert done.returncode == 1, done.stdout[-5000:]
    assert '  n3 [a suspect in the previous fleet run too]: ' in done.stdout


def test_a_drained_node_is_left_out_and_listed(state, cluster):
    _scontrol(cluster, 'update', 'NodeName=n2', 'State=DRAIN',
              'Reason=DIMM errors seen by the test')
    try:
        done, report = fleet_run(state, cluster, 'drained-n2', *ONE_CHECK)
    finally:
        _scontrol(cluster, 'update', 'NodeName=n2', 'State=RESUME')

    # three nodes are too few to judge each other, and the cluster has no
    # reference file: nothing judged the figures
    assert done.returncode == 2, done.stdout[-5000:]
    assert done.stdout.splitlines()[-1].startswith(
        NOT_JUDGED), done.stdout[-5000:]
    assert '  slurm-nodes:compute: 3 of 4 node(s) in state idle, left out:' \
        in done.stdout
    assert '  slurm-nodes:compute n2 (drain+idle: DIMM errors seen by the ' \
        'test)' in done.stdout
    assert 'not compared across nodes: 3 node(s)' in done.stdout
    assert {c['node'] for c in _cases(report)} == {'n1', 'n3', 'n4'}


def _take_down_when_a_job_runs(cluster, node, taken):
    '''Mark ``node`` down, as an administrator would, once the first job
    of the run is running (the node's own job still pending behind it).'''
    env = dict(os.environ, **cluster)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        running = subprocess.run(['squeue', '-h', '-t', 'R'], env=env,
                                 capture_output=True, text=True).stdout
        if running.strip():
            _scontrol(cluster, 'update', f'NodeName={node}', 'State=DOWN',
                      'Reason=lost power (test)')
            taken.append(node)
            return

        time.sleep(0.2)


def test_a_node_lost_mid_run_fails_only_its_own_checks(state, cluster):
    taken = []
    saboteur = threading.Thread(target=_take_down_when_a_job_runs,
                                args=(cluster, 'n4', taken))
    saboteur.start()
    try:
        # three node jobs at once: n4's is submitted once n4 is down
        done, report = fleet_run(state, cluster, 'lost-n4', '--max-jobs',
                                 '3', *ONE_CHECK)
    finally:
        saboteur.join()
        _scontrol(cluster, 'update', 'NodeName=n4', 'State=RESUME')

    assert taken == ['n4']
    assert done.returncode == 1, done.stdout[-5000:]
    results = {node_of(c): c for c in _cases(report)}
    assert [results[n]['result'] for n in NODES] == ['pass'] * 3 + ['fail']
    # its job, queued once one of the others' ended, cannot start: cancelled,
    # and the node named for it (drained by the usual rules)
    assert results['n4']['fail_reason'] == (
        'did not start: its job pended for ReqNodeNotAvail, '
        'UnavailableNodes:n4')
    words = ' '.join(done.stdout.split())
    assert 'n4: did not start: its job pended for ReqNodeNotAvail' in words
    assert done.stdout.splitlines()[-1].endswith(
        '1 suspect node(s): n4 (slurm-nodes:compute); see hpc-acceptance '
        'suspects')
    slurm = _hpc_acceptance(state, cluster, 'suspects', '--run-report',
                            str(report), '--format', 'slurm')
    assert 'NodeName=n4 State=DRAIN' in slurm.stdout, slurm.stdout


def _steps_launched(cluster, node, job):
    '''``{step: address of the srun that asked}`` of ``job``'s steps that
    ``node``'s slurmd launched, from its log.'''
    log = Path(cluster['SLURM_CONF']).parent / f'slurmd-{node}.log'
    return dict(re.findall(rf'launch task StepId={job}\.(\d+) request from '
                           rf'.* HOST:([\d.]+) ', log.read_text()))


def test_jobs_of_several_nodes_keep_each_node_s_steps_on_it(state, cluster):
    # two nodes a job, one job at a time; n4 is down: its job with n3
    # cannot start, n4 did not start, n3 runs in a job of its own
    _scontrol(cluster, 'update', 'NodeName=n4', 'State=DOWN',
              'Reason=lost power (test)')
    try:
        done, report = fleet_run(state, cluster, 'pairs', '--fleet=all',
                                 '--nodes-per-job', '2', *ONE_AT_A_TIME,
                                 *STEP_CHECK)
    finally:
        _scontrol(cluster, 'update', 'NodeName=n4', 'State=RESUME')

    assert done.returncode == 1, done.stdout[-5000:]
    assert '4 node(s) in 2 Slurm job(s), of at most 2 nodes each' in \
        done.stdout
    results = {node_of(c): c for c in _cases(report)}
    assert [results[n]['result'] for n in NODES] == ['pass'] * 3 + ['fail']
    assert results['n4']['fail_reason'] == (
        'did not start: its job pended for ReqNodeNotAvail, '
        'UnavailableNodes:n4')
    assert 'n4: its job' in done.stdout and \
        'its 1 other node(s) submitted again' in done.stdout
    words = ' '.join(done.stdout.split())
    assert re.search(r'\d+ suspect node\(s\): [^;]*\bn4 ', words), words

    jobs = json.loads((state / 'reports' / 'pairs-node-runs' /
                       'jobs.json').read_text())
    pair = jobs['n1']['job']
    assert (jobs['n2']['job'], jobs['n1']['nodes'], jobs['n2']['nodes']) == \
        (pair, 2, 2)
    assert jobs['n3']['job'] not in (pair, jobs['n4']['job']) and \
        'nodes' not in jobs['n3']
    # the pair's job: step 0 a task a node, then each node's checks' steps
    # launched on that node by the srun on that node
    for index, node in enumerate(('n1', 'n2'), start=1):
        steps = _steps_launched(cluster, node, pair)
        assert '0' in steps, (node, steps)
        assert [address for step, address in steps.items()
                if step != '0'] and {address for step, address in
                                     steps.items() if step != '0'} == {
            str(slurm_cluster.node_address(index))}, (node, steps)


def test_a_fleet_run_in_a_reservation_covers_its_nodes(state, cluster):
    _scontrol(cluster, 'create', 'reservation', 'ReservationName=upgrade',
              'Nodes=n1,n2', 'StartTime=now', 'Duration=60', 'Users=root',
              'Flags=maint,ignore_jobs')
    started = time.time()
    try:
        done, report = fleet_run(state, cluster, 'reserved', '--reservation',
                                 'upgrade', *ONE_CHECK)
    finally:
        _scontrol(cluster, 'delete', 'ReservationName=upgrade')

    assert done.returncode == 2, done.stdout[-5000:]
    assert done.stdout.splitlines()[-1].startswith(
        NOT_JUDGED), done.stdout[-5000:]
    assert {c['node'] for c in _cases(report)} == {'n1', 'n2'}
    # each node's job ran in the reservation, as Slurm told the job
    night = state / 'reports' / 'reserved-node-runs'
    for node in ('n1', 'n2'):
        status = json.loads((night / node / 'status.json').read_text())
        assert status['reservation'] == 'upgrade'
        assert status['started'] >= started


def half_speed_on(node, bindir, build):
    '''``bindir/mem_daxpy``: the real program built in ``build``, whose
    rates ``node`` reports at a fifth, so that it is a suspect whatever
    else loads this machine (a quota in a cgroup is not slower than the
    other nodes when they all share two busy cores).'''
    shutil.copytree(PROJECT_DIR / 'src' / 'memory', build)
    subprocess.run(['make', 'clean', 'all', 'CFLAGS=-O2 -march=native'],
                   cwd=build, check=True, capture_output=True)
    bindir.mkdir()
    wrapper = bindir / 'mem_daxpy'
    wrapper.write_text(
        '#!/bin/sh\n'
        f'if [ "$SLURMD_NODENAME" != {node} ]; then\n'
        f'    exec "{build}/mem_daxpy" "$@"\n'
        'fi\n'
        f'"{build}/mem_daxpy" "$@" |\n'
        "    awk '$1 ~ /^flops[.]/ { $2 = $2 / 5 } { print }'\n")
    wrapper.chmod(0o755)
    return bindir


def test_a_fleet_run_s_figures_reach_the_store_one_series_per_node(
        state, cluster, tmp_path):
    bindir = half_speed_on('n3', tmp_path / 'bin', tmp_path / 'build')
    with victoria_metrics.running(tmp_path / 'store') as store:
        site = tmp_path / 'site'
        site.mkdir()
        (site / 'export.yaml').write_text(f'url: {store.url}\n')
        done, report = fleet_run(state, cluster, 'exported', *DISTRIBUTE,
                                 *ONE_CHECK,
                                 HPC_ACCEPTANCE_SITE_DIR=str(site),
                                 PATH=f'{bindir}:{os.environ["PATH"]}')
        assert done.returncode == 1, done.stdout[-5000:]
        # every value of the run's reports taken by the store
        assert re.search(rf"export: this run's (\d+) value\(s\): \1 taken "
                         rf'by the store {re.escape(store.url)}',
                         ' '.join(done.stdout.split())), done.stdout[-3000:]
        ran = json.loads(report.read_text())
        exported.assert_stored_as_reported(store, ran)
        flops = [(labels['node'], value) for labels, value, _ in
                 exported.expected_samples(ran)
                 if labels['__name__'] == 'hpc_acceptance_figure' and
                 labels['figure'] == 'flops_l1' and labels['fleet'] == 'yes']
        assert sorted(node for node, _ in flops) == NODES

        # the fleet's spread: each node's figure against the median
        (spread, _), = exported.queries(exported.panel(exported.SPREAD))
        median = statistics.median(value for _, value in flops)
        found = {labels['node']: value for labels, value in
                 store.query(spread, time.time())
                 if labels['figure'] == 'flops_l1'}
        assert found == pytest.approx({node: value / median
                                       for node, value in flops})

        # every node compared, one suspect
        suspects = [(labels['node'], value) for labels, value, _ in
                    store.export('hpc_acceptance_suspect')]
        assert sorted(suspects) == [('n1', 0), ('n2', 0), ('n3', 1),
                                    ('n4', 0)]
        (named, _), = exported.queries(exported.panel(exported.SUSPECTS))
        assert [labels['node'] for labels, _ in
                store.query(named, time.time())] == ['n3']
