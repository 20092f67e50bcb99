'''The inter-node checks through reframe on a real multi-node Slurm
cluster: four nodes on this one machine, each a network namespace with its
own host name and address on a bridge the test makes, each with its own
slurmd (tests/helpers/slurm_cluster.py). The checks' MPI ranks start through
srun with PMIx and talk over TCP on the bridge, as on a cluster's network.
'''

import re
import subprocess
import threading
import time
from pathlib import Path

from reframe.core.systems import ProcessorInfo
from reframe.utility.cpuinfo import cpuinfo

from conftest import CLUSTER_NODES as NODES, DATA_DIR
from helpers import slurm_cluster
from helpers.mpi_wireup import run_past_wireup_fault
from helpers.report_cases import DEFAULT_VARIANTS, case_of, results
from helpers.spack_ci import prefix_of

#: Cores of one node: every node is this machine (the partition's processor
#: is the embedded default's, detected the same way).
NODE_CORES = ProcessorInfo(cpuinfo()).num_cores
OVERLAY = ['-C', str(DATA_DIR / 'slurm' / 'slurm_localhost.py'),
           '--system', 'slurm-nodes']


def perflog_rank_hosts(perflogs, check):
    '''Host names of the ranks (its ``ranks=`` field), per perflog line
    of ``check`` after the header.'''
    [log] = perflogs.rglob(f'{check}.log')
    return [set(re.findall(r'r\d+=([^:\s|]+):',
                           re.search(r'\|ranks=([^|]*)\|', line)[1]))
            for line in log.read_text().splitlines()[1:]]


def test_inter_node_checks_run_on_two_nodes(run_reframe, cluster,
                                            tmp_path):
    done = run_past_wireup_fault(lambda: run_reframe(
        *OVERLAY, '-c', 'checks/network', '-c', 'checks/hpcc',
        *DEFAULT_VARIANTS,
        '-n', 'NetworkSinglePairCheck.*pingpong.*one_per_node',
        '-n', 'NetworkMultiPairCheck.*pingpong.*all_per_node',
        '-n', 'HpccMultiNodeCheck.*num_nodes=2',
        '-S', 'NetworkSinglePairCheck.repeats=1',
        '-S', 'NetworkMultiPairCheck.repeats=1',
        '-S', 'HpccMultiNodeCheck.memory_fraction=0.0005',
        '-r', env=cluster), tmp_path)
    assert done.returncode == 0, done.stdout[-4000:]
    found = results(tmp_path / 'report.json')
    single = case_of(found, 'NetworkSinglePairCheck',
                     placement='one_per_node', pattern='pingpong')
    multi = case_of(found, 'NetworkMultiPairCheck',
                    placement='all_per_node', pattern='pingpong')
    hpcc = case_of(found, 'HpccMultiNodeCheck', num_nodes=2)
    for case in (single, multi, hpcc):
        assert case['result'] == 'pass'
        assert len(case['job_nodelist']) == 2, case['job_nodelist']
        assert set(case['job_nodelist']) <= set(
            slurm_cluster.node_names(NODES))

    # each rank said where it ran: two hosts, the job's nodes
    perflogs = tmp_path / 'perflogs'
    for check, case in (('NetworkSinglePairCheck', single),
                        ('NetworkMultiPairCheck', multi)):
        [hosts] = perflog_rank_hosts(perflogs, check)
        assert hosts == set(case['job_nodelist'])

    assert multi['num_tasks'] == 2 * NODE_CORES
    # HPCC's own latency figures exist only with ranks to pair
    assert {'pingpong_latency_min', 'hpl'} <= {
        name.split(':')[-1] for name in hpcc['perfvalues']}


def test_npb_runs_on_ranks_of_two_nodes(run_reframe, cluster, spack_ci,
                                        tmp_path):
    '''NPB IS of class S, as the real Spack built it for the tests
    (tests/helpers/spack_ci.py), on one rank per core of two nodes.'''
    bindir = prefix_of(spack_ci, 'npb') / 'bin'
    procs = 2 * NODE_CORES
    done = run_past_wireup_fault(lambda: run_reframe(
        *OVERLAY, '-c', 'checks/npb', '-n', 'NpbIsCheck',
        *DEFAULT_VARIANTS, '-E', f'num_procs=={procs}',
        '-S', 'npb_class=S', '-S', f'npb_dir={bindir}', '-r',
        env=dict(cluster, NPB_BIN_DIR='')), tmp_path)
    assert done.returncode == 0, done.stdout[-4000:]
    case = case_of(results(tmp_path / 'report.json'), 'NpbIsCheck',
                   num_procs=procs)
    assert case['result'] == 'pass'
    assert len(case['job_nodelist']) == 2, case['job_nodelist']
    assert case['num_tasks_per_node'] == NODE_CORES
    assert case['dependency_source'] == f'npb_dir:{bindir}/is.S.x'
    # NPB's own report: as many processes, and its verification passed
    output = (Path(case['outputdir']) / 'rfm_job.out').read_text()
    assert re.search(rf'Total processes =\s+{procs}\n', output), output
    assert re.search(r'Verification\s+=\s+SUCCESSFUL', output), output


def _squeue(env, *args):
    return subprocess.run(['squeue', '-h', *args], env=env,
                          capture_output=True, text=True).stdout.split()


def _take_down_a_node_of(check, env, taken, timeout=300):
    '''Mark the last node of the first running job of ``check`` down, as
    an administrator would; record its name in ``taken``.'''
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        jobs = [line.split('|') for line in
                _squeue(env, '-t', 'R', '-o', '%j|%N')]
        nodes = [nodes for name, nodes in jobs if check in name]
        if nodes:
            name = subprocess.run(
                ['scontrol', 'show', 'hostnames', nodes[0]], env=env,
                capture_output=True, text=True).stdout.split()[-1]
            subprocess.run(['scontrol', 'update', f'nodename={name}',
                            'state=down', 'reason=taken down by the test'],
                           env=env, check=True)
            taken.append(name)
            return

        time.sleep(0.5)


def test_a_node_down_and_a_time_limit_fail_their_checks_only(
        run_reframe, cluster, tmp_path):
    taken = []
    saboteur = threading.Thread(
        target=_take_down_a_node_of,
        args=('NetworkSinglePairCheck', cluster, taken))
    saboteur.start()
    try:
        # one job at a time (max_jobs=1): the first single pair runs
        # long enough to lose its node, the second to reach its limit
        done = run_reframe(
            *OVERLAY, '-c', 'checks/network', *DEFAULT_VARIANTS,
            '-n', 'NetworkSinglePairCheck.*pingpong.*one_per_node',
            '-n', 'NetworkSinglePairCheck.*pingping.*one_per_node',
            '-n', 'NetworkMultiPairCheck.*pingpong.*all_per_node',
            '-S', 'NetworkSinglePairCheck.repeats=100000',
            '-S', 'NetworkSinglePairCheck.time_limit=10s',
            '-S', 'NetworkMultiPairCheck.repeats=1', '-r', env=cluster)
    finally:
        saboteur.join()
        for name in taken:
            subprocess.run(['scontrol', 'update', f'nodename={name}',
                            'state=resume'], env=cluster, check=True)

    assert taken, 'no job ran: no node was taken down'
    found = results(tmp_path / 'report.json')
    assert done.returncode == 1, done.stdout[-4000:]
    pairs = [case_of(found, 'NetworkSinglePairCheck',
                     placement='one_per_node', pattern=pattern)
             for pattern in ('pingpong', 'pingping')]
    assert [case['result'] for case in pairs] == ['fail', 'fail']
    reasons = sorted((case['fail_reason'] for case in pairs),
                     key=lambda reason: 'DUE TO TIME LIMIT' in reason)
    lost, timed_out = reasons
    assert 'DUE TO NODE FAILURE' in lost, lost
    assert f'node {taken[0]} is down (taken down by the test)' in lost
    assert 'DUE TO TIME LIMIT' in timed_out, timed_out
    # the suite went on without the lost node
    survivor = case_of(found, 'NetworkMultiPairCheck',
                       placement='all_per_node', pattern='pingpong')
    assert survivor['result'] == 'pass', survivor['fail_reason']
    assert taken[0] not in survivor['job_nodelist']
