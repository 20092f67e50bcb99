'''The HPCC check, run through the reframe CLI for real on this machine
with Debian's hpcc and Open MPI.

A small memory fraction keeps each run to seconds; the sizing, grid and
figures are those of a full run.
'''

import os
import re
from pathlib import Path

import pytest

from conftest import PROJECT_DIR
from helpers.report_cases import (CLOCK_FIGURES, DEFAULT_VARIANTS, case_of,
                                  results)
from hpc_acceptance.core import system_files
from hpc_acceptance.hpcc import blas
from hpc_acceptance.hpcc import input_file as hpcc_input
from hpc_acceptance.hpcc import output as hpcc_output

# The default variants of the one-node check; -S names the class, so that
# the fixtures are not asked for a variable they do not have.
HPCC = ['-c', 'checks/hpcc', '-n', 'HpccCheck', *DEFAULT_VARIANTS]
SMALL = ['-S', 'HpccCheck.memory_fraction=0.001']


def node_memory():
    # what config/systems/local.py declares as extras.memory_bytes (the
    # memory of the NUMA nodes with CPUs this process may use: a figure of
    # the moment, read as the run reads it)
    local = system_files.load(PROJECT_DIR / 'config' / 'systems' /
                              'local.py')
    return local.system['partitions'][0]['extras']['memory_bytes']


@pytest.mark.parametrize('processes', [1, 2])
def test_hpcc_passes_with_the_figures_of_its_process_count(
        run_reframe, tmp_path, processes):
    done = run_reframe(*HPCC, '-r', *SMALL,
                       '-S', f'HpccCheck.num_tasks_per_node={processes}')
    assert done.returncode == 0, done.stdout[-3000:]
    # no performance variable goes missing: ReFrame would warn
    assert 'WARNING' not in done.stdout

    cases = results(tmp_path / 'report.json')
    assert len(cases) == 1
    case = case_of(cases, 'HpccCheck')
    assert case['result'] == 'pass'
    names = {name.split(':')[-1] for name in case['perfvalues']}
    assert names == set(hpcc_output.expected_figures(processes)) | \
        CLOCK_FIGURES
    assert ('pingpong_latency_min' in names) == (processes > 1)
    assert all(values[0] > 0 for values in case['perfvalues'].values())

    n = hpcc_input.problem_size(node_memory(), 0.001, 192)
    grid = hpcc_input.process_grid(processes)
    assert case['problem_size'] == n
    assert case['process_grid'] == '{}x{}'.format(*grid)
    output = Path(case['outputdir'])
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
    done = run_reframe(*HPCC, '-r', *SMALL,
                       '-S', f'HpccCheck.num_tasks_per_node={cores + 1}')
    assert done.returncode == 1
    assert re.search(r'sanity error: exit status \d+ \(There are not enough '
                     r'slots available .*\); hpcc wrote no .*hpccoutf\.txt: '
                     r'it did not start', done.stdout)
    assert 'Traceback' not in done.stdout


def test_hpcc_cut_short_by_its_time_limit_fails(run_reframe):
    done = run_reframe(*HPCC, '-r', '-S', 'HpccCheck.memory_fraction=0.01',
                       '-S', 'HpccCheck.time_limit=2s')
    assert done.returncode == 1
    assert re.search(r'job error: .*job timed out', done.stdout)
    assert 'Traceback' not in done.stdout


def test_a_problem_smaller_than_one_block_is_refused(run_reframe):
    done = run_reframe(*HPCC, '-r',
                       '-S', 'HpccCheck.memory_fraction=0.0000001')
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
                       *DEFAULT_VARIANTS, '--dry-run', '--warn-as-error')
    assert done.returncode == 0, done.stdout
    assert 'SKIP' not in done.stdout
    cases = results(tmp_path / 'report.json')
    assert len(cases) == 3
    # the partition declares its peak flop/s: HPL is also a share of it
    assert done.stdout.count('P: hpl_peak: None %') == 3

    for nodes in (2, 4):
        stage = Path(case_of(cases, 'HpccMultiNodeCheck',
                             num_nodes=nodes)['stagedir'])
        script = (stage / 'rfm_job.sh').read_text()
        assert f'#SBATCH --ntasks={72 * nodes}\n' in script
        assert '#SBATCH --ntasks-per-node=72\n' in script
        # HPL sized from the memory of all the nodes, on a square grid
        hpccinf = (stage / 'hpccinf.txt').read_text().splitlines()
        n = hpcc_input.problem_size(nodes * 256 * 2**30, 0.005, 192)
        p, q = hpcc_input.process_grid(72 * nodes)
        assert hpccinf[5].split()[0] == str(n)
        assert (hpccinf[10].split()[0], hpccinf[11].split()[0]) == (str(p),
                                                                    str(q))
