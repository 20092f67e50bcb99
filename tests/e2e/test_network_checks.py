'''The MPI communication checks, run through the reframe CLI on this machine
(local scheduler, mpirun; its sockets and cores read by
tests/helpers/host.py).'''

import re
from pathlib import Path

from helpers import host
from helpers.report_cases import DEFAULT_VARIANTS, case_of, results
from hpc_acceptance.tools.results.runs import variant_of


def pair_of(name):
    '''``(check, pattern, placement)`` of a display name.'''
    check, params = variant_of(name)
    return check, params['pattern'], params['placement']


def test_two_rank_checks_pass_and_the_others_say_why_not(run_reframe,
                                                         tmp_path):
    done = run_reframe('-c', 'checks/network', *DEFAULT_VARIANTS, '-r',
                       '-S', 'repeats=1')
    assert done.returncode == 0, done.stdout[-3000:]

    cases = results(tmp_path / 'report.json')
    # the local scheduler holds no inter-node placement; crossing sockets
    # needs two
    placements = [('NetworkSinglePairCheck', 'same_socket'),
                  ('NetworkMultiPairCheck', 'all_cores')]
    if host.sockets() > 1:
        placements.append(('NetworkSinglePairCheck', 'cross_socket'))

    assert len(cases) == 2 * len(placements)
    passed = {name for name, case in cases.items()
              if case['result'] == 'pass'}
    assert {pair_of(name) for name in passed} == {
        (check, pattern, placement)
        for pattern in ('pingpong', 'pingping')
        for check, placement in placements
    }
    single = case_of(cases, 'NetworkSinglePairCheck', pattern='pingpong',
                     placement='same_socket')
    if host.sockets() == 1:
        assert single['variants_left_out'] == (
            'NetworkSinglePairCheck: placement(s) cross_socket, one_per_node '
            'need two sockets or a scheduler partition; local:default has '
            'neither')
    else:
        assert single['variants_left_out'].startswith(
            'NetworkSinglePairCheck: placement(s) one_per_node ')

    # placement asked for and placement found are both recorded
    for name in passed:
        case = cases[name]
        ranks = re.findall(r'r(\d+)=\S+:\d+', case['rank_cpus'])
        if pair_of(name)[2] == 'cross_socket':
            assert case['launcher_options'] == ('--map-by socket '
                                                '--bind-to core')
        else:
            assert case['launcher_options'] == ('--map-by core '
                                                '--bind-to core')

        if pair_of(name)[2] == 'all_cores':
            assert len(ranks) == host.physical_cores()
        else:
            assert ranks == ['0', '1']

        assert case['dependency_source'].startswith('in-tree:')
        perf = {key.split(':')[-1]: value[0]
                for key, value in case['perfvalues'].items()}
        # loose plausibility of shared-memory transfers, not a goal
        assert 0 < perf['latency'] < 100
        assert perf['bandwidth'] > 100 and perf['bandwidth_effective'] > 0
        # beside the best run, the median one, which is no faster
        assert perf['latency_median'] >= perf['latency'] * (1 - 1e-5)
        assert 0 < perf['best_to_median_bandwidth'] <= 1

    multi = case_of(cases, 'NetworkMultiPairCheck', pattern='pingping',
                    placement='all_cores')
    assert 'bandwidth_aggregate' in ' '.join(multi['perfvalues'])

    perflog = (tmp_path / 'perflogs' / 'local' / 'default' /
               'NetworkSinglePairCheck.log').read_text()
    assert 'dependency=in-tree:' in perflog
    assert '|us|' in perflog and '|MB/s|' in perflog


def job_scripts(report_file):
    '''``{display name: job script}`` of the checks of a dry run.'''
    return {name: (Path(case['stagedir']) / 'rfm_job.sh').read_text()
            for name, case in results(report_file).items()}


def test_example_cluster_places_ranks_with_srun(run_reframe, tmp_path):
    done = run_reframe('-c', 'checks/network', '--system',
                       'example-cluster', *DEFAULT_VARIANTS, '--dry-run')
    assert done.returncode == 0, done.stdout[-3000:]
    scripts = job_scripts(tmp_path / 'report.json')
    assert len(scripts) == 10
    expected = {
        # placement: tasks, tasks per node, srun options
        'same_socket': (2, 2, '--distribution=block:block --cpu-bind=cores'),
        'cross_socket': (2, 2,
                         '--distribution=block:cyclic --cpu-bind=cores'),
        'one_per_node': (2, 1, '--distribution=block:block --cpu-bind=cores'),
        'all_cores': (72, 72, '--distribution=block:block --cpu-bind=cores'),
        'all_per_node': (144, 72,
                         '--distribution=block:block --cpu-bind=cores'),
    }
    for name, script in scripts.items():
        tasks, per_node, options = expected[pair_of(name)[2]]
        assert f'#SBATCH --ntasks={tasks}\n' in script
        assert f'#SBATCH --ntasks-per-node={per_node}\n' in script
        assert re.search(rf'^srun {options} \S+/net_pairs --pattern=\w+ '
                         rf'--pairs=(single|multi) --repeats=5$', script,
                         re.MULTILINE), script


def test_num_nodes_scales_the_inter_node_multi_pair(run_reframe, tmp_path):
    done = run_reframe('-c', 'checks/network', '--system', 'example-cluster',
                       '-n', '%placement=all_per_node', '-S', 'num_nodes=4',
                       *DEFAULT_VARIANTS, '--dry-run')
    assert done.returncode == 0, done.stdout[-3000:]
    scripts = job_scripts(tmp_path / 'report.json')
    assert len(scripts) == 2
    for script in scripts.values():
        assert '#SBATCH --ntasks=288\n' in script

    done = run_reframe('-c', 'checks/network', '--system', 'example-cluster',
                       '-n', '%placement=all_per_node', '-S', 'num_nodes=3',
                       *DEFAULT_VARIANTS, '--dry-run')
    assert done.returncode == 1
    assert ('num_nodes=3: all_per_node pairs node i with node n-1-i, so it '
            'needs an even number of nodes') in done.stdout
