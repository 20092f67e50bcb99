'''The HPCC check, run through the reframe CLI for real on this machine
with Debian's hpcc and Open MPI.

A small memory fraction keeps each run to seconds; the sizing, grid and
figures are those of a full run.
'''

import json
import os
import re

import pytest

from hpc_acceptance import blas, hpcc_input, hpcc_output

SMALL = ['-S', 'memory_fraction=0.001']


def results(report_file):
    report = json.loads(report_file.read_text())
    return {case['display_name']: case
            for case in report['runs'][-1]['testcases']}


def node_memory():
    # what config/systems/local.py declares as extras.memory_bytes
    return os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')


@pytest.mark.parametrize('processes', [1, 2])
def test_hpcc_passes_with_the_figures_of_its_process_count(
        run_reframe, tmp_path, processes):
    done = run_reframe('-c', 'checks/hpcc', '-n', 'HpccCheck', '-r', *SMALL,
                       '-S', f'num_tasks_per_node={processes}')
    assert done.returncode == 0, done.stdout[-3000:]
    # no performance variable goes missing: ReFrame would warn
    assert 'WARNING' not in done.stdout

    case = results(tmp_path / 'report.json')['HpccCheck']
    assert case['result'] == 'pass'
    names = {name.split(':')[-1] for name in case['perfvalues']}
    assert names == set(hpcc_output.expected_figures(processes))
    assert ('pingpong_latency_min' in names) == (processes > 1)
    assert all(values[0] > 0 for values in case['perfvalues'].values())

    n = hpcc_input.problem_size(node_memory(), 0.001, 192)
    grid = hpcc_input.process_grid(processes)
    assert case['problem_size'] == n
    assert case['process_grid'] == '{}x{}'.format(*grid)
    output = tmp_path / 'prefix' / 'output' / 'local' / 'default' / 'gnu' / \
        'HpccCheck'
    assert (output / 'hpccinf.txt').read_text() == \
        hpcc_input.render(n, 192, *grid)
    assert f'CommWorldProcs={processes}' in \
        (output / 'hpccoutf.txt').read_text()

    # the BLAS libblas.so.3 points at here, recorded in the perflog
    resolved = os.path.realpath('/usr/lib/x86_64-linux-gnu/libblas.so.3')
    kind = blas.classify(resolved)
    assert case['blas_library'] == f'{kind}:{resolved}'
    perflog = (tmp_path / 'perflogs' / 'local' / 'default' /
               'HpccCheck.log').read_text().splitlines()
    assert (f'dependency=path:/usr/bin/hpcc,blas={kind}:{resolved}|'
            in perflog[1])
    assert '|-1|' not in perflog[1]


def test_hpcc_that_cannot_start_fails_with_the_reason(run_reframe):
    # more processes than this machine's cores: mpirun refuses
    cores = os.cpu_count()
    done = run_reframe('-c', 'checks/hpcc', '-n', 'HpccCheck', '-r', *SMALL,
                       '-S', f'num_tasks_per_node={cores + 1}')
    assert done.returncode == 1
    assert re.search(r'sanity error: exit status \d+ \(There are not enough '
                     r'slots available .*\); hpcc wrote no .*hpccoutf\.txt: '
                     r'it did not start', done.stdout)
    assert 'Traceback' not in done.stdout


def test_hpcc_cut_short_by_its_time_limit_fails(run_reframe):
    done = run_reframe('-c', 'checks/hpcc', '-n', 'HpccCheck', '-r',
                       '-S', 'memory_fraction=0.01', '-S', 'time_limit=2s')
    assert done.returncode == 1
    assert re.search(r'job error: .*job timed out', done.stdout)
    assert 'Traceback' not in done.stdout


def test_a_problem_smaller_than_one_block_is_refused(run_reframe):
    done = run_reframe('-c', 'checks/hpcc', '-n', 'HpccCheck', '-r',
                       '-S', 'memory_fraction=0.0000001')
    assert done.returncode == 1
    assert 'less than one block of 192: raise memory_fraction or lower ' \
        'block_size' in done.stdout


@pytest.mark.parametrize('value, why', [
    ('1.5', "'1.5' is not in (0, 1]"),
    ('lots', "'lots' is not a number"),
])
def test_bad_memory_fraction_names_the_variable(run_reframe, value, why):
    done = run_reframe('-c', 'checks/hpcc', '-l',
                       '-S', f'memory_fraction={value}')
    assert done.returncode == 1
    assert "failed to set variable 'memory_fraction'" in done.stdout
    assert why in done.stdout


def test_multi_node_variants_only_where_a_scheduler_allocates_nodes(
        run_reframe, tmp_path):
    local = run_reframe('-c', 'checks/hpcc', '-l')
    assert 'HpccCheck' in local.stdout
    assert 'HpccMultiNodeCheck' not in local.stdout

    done = run_reframe('-c', 'checks/hpcc', '--system', 'example-cluster',
                       '--dry-run', '--warn-as-error')
    assert done.returncode == 0, done.stdout
    assert 'SKIP' not in done.stdout
    for nodes in (2, 4):
        assert f'HpccMultiNodeCheck %num_nodes={nodes}' in done.stdout
    # the partition declares its peak flop/s: HPL is also a share of it
    assert 'P: hpl_peak: None %' in done.stdout

    stage = tmp_path / 'prefix' / 'stage' / 'example-cluster' / 'compute'
    two = next(stage.rglob('HpccMultiNodeCheck_*/rfm_job.sh')).parent
    script = (two / 'rfm_job.sh').read_text()
    nodes = 2 if '--ntasks=144' in script else 4
    assert f'#SBATCH --ntasks={72 * nodes}' in script
    assert '#SBATCH --ntasks-per-node=72' in script
    # HPL sized from the memory of all the nodes, on a square grid
    hpccinf = (two / 'hpccinf.txt').read_text().splitlines()
    n = hpcc_input.problem_size(nodes * 256 * 2**30, 0.005, 192)
    p, q = hpcc_input.process_grid(72 * nodes)
    assert hpccinf[5].split()[0] == str(n)
    assert (hpccinf[10].split()[0], hpccinf[11].split()[0]) == (str(p),
                                                                str(q))
