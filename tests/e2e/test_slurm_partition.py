'''Checks on a partition behind a real scheduler: this machine as a
one-node Slurm cluster (Debian's slurm-wlm and munge, started here).

The embedded default runs everything locally; these runs take the paths a
production partition takes (config/systems/example_cluster.py): build and
benchmark jobs through sbatch, MPI ranks through srun with PMIx, the job's
own view of the node, Turbo asked of Slurm's --cpu-freq.
'''

import json
import re

import pytest

from conftest import DATA_DIR
from helpers import slurm_cluster
from hpc_acceptance.tools.results.runs import variant_of

OVERLAY = ['-C', str(DATA_DIR / 'slurm' / 'slurm_localhost.py'),
           '--system', 'slurm-localhost']


@pytest.fixture(scope='module')
def slurm(tmp_path_factory):
    '''Environment (``SLURM_CONF``) of a running one-node Slurm cluster.'''
    try:
        with slurm_cluster.one_node(tmp_path_factory.mktemp('slurm')) as env:
            yield env
    except slurm_cluster.ClusterUnavailable as err:
        # raised while starting only: a test's failure does not reach here
        pytest.skip(str(err))


def cases(tmp_path):
    report = json.loads((tmp_path / 'report.json').read_text())
    return {variant_of(c['display_name'])[0] + ' ' +
            ' '.join(f'{k}={v}' for k, v in
                     sorted(variant_of(c['display_name'])[1].items())): c
            for c in report['runs'][-1]['testcases'] if not c['fixture']}


def test_memory_check_and_its_builds_run_as_batch_jobs(run_reframe, slurm,
                                                       tmp_path):
    done = run_reframe(*OVERLAY, '-c', 'checks/memory',
                       '-n', 'MemoryDaxpyCheck%isa=native%turbo=.*'
                             '%smt=as-configured%threads=single',
                       '-S', 'MemoryDaxpyCheck.repeats=1',
                       '-S', 'MemoryDaxpyCheck.span_ms=1', '-r',
                       # the jobs read Turbo from an empty sysfs: no
                       # cpufreq driver, whatever this host has
                       env={**slurm,
                            'NODE_STATE_SYSFS': str(tmp_path / 'no-sys')})
    assert done.returncode == 0, done.stdout[-3000:]
    found = cases(tmp_path)
    default = found['MemoryDaxpyCheck isa=native smt=as-configured '
                    'threads=single turbo=as-configured']
    assert default['result'] == 'pass'
    assert default['scheduler'] == 'squeue'
    assert default['jobid']
    assert 'turbo unknown (no cpufreq driver' in default['node_state']

    # Turbo asked of Slurm, its clock measured in an srun step (Slurm sets
    # --cpu-freq on steps); no nominal clock to confirm it by: skipped
    stage = tmp_path / 'prefix' / 'stage' / 'slurm-localhost' / 'compute'
    scripts = [p.read_text() for p in stage.rglob('rfm_job.sh')
               if '--cpu-freq=' in p.read_text()]
    assert any('#SBATCH --cpu-freq=High' in s for s in scripts)
    assert any('#SBATCH --cpu-freq=HighM1' in s for s in scripts)
    assert all(re.search(r'^srun --ntasks=1 --nodes=1 --ntasks-per-node=1 '
                         r'\S+/core_clock > core_clock.before$', s, re.M)
               for s in scripts)
    for turbo in ('on', 'off'):
        case = found['MemoryDaxpyCheck isa=native smt=as-configured '
                     f'threads=single turbo={turbo}']
        assert case['result'] == 'skip'
        assert re.search(
            rf'turbo={turbo}: Slurm set the clock \(--cpu-freq\), which no '
            rf'Turbo switch shows, and the clock measured \([\d.]+ GHz\) '
            rf'has no nominal clock to be compared with: the node gives none '
            rf'\(no cpufreq driver\) and the partition declares none: set '
            rf'extras.nominal_clock_ghz to the nodes\' base clock',
            done.stdout), turbo

    # the kernels were built by a job on the partition too
    [build] = stage.rglob('MemoryKernelsBuild_*/rfm_build.sh')
    assert '#SBATCH --partition=compute' in build.read_text()


def test_mpi_checks_run_through_srun_with_their_placement(run_reframe,
                                                          slurm, tmp_path):
    done = run_reframe(*OVERLAY, '-c', 'checks/network', '-c', 'checks/hpcc',
                       '--exclude-tag=variant',
                       '-n', 'NetworkSinglePairCheck.*pingpong.*same_socket',
                       '-n', 'HpccCheck',
                       '-S', 'NetworkSinglePairCheck.repeats=1',
                       '-S', 'HpccCheck.memory_fraction=0.001', '-r',
                       env=slurm)
    assert done.returncode == 0, done.stdout[-3000:]
    found = cases(tmp_path)
    pair = found['NetworkSinglePairCheck isa=native pattern=pingpong '
                 'placement=same_socket smt=as-configured '
                 'turbo=as-configured']
    assert pair['result'] == 'pass'
    assert pair['launcher_options'] == ('--distribution=block:block '
                                        '--cpu-bind=cores')
    hpcc = found['HpccCheck isa=native smt=as-configured turbo=as-configured']
    assert hpcc['result'] == 'pass'
    assert {'pingpong_latency_min', 'hpl'} <= {
        name.split(':')[-1] for name in hpcc['perfvalues']}
