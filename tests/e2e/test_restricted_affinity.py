'''The embedded default run as a Slurm job, a container or ``taskset``
gives it part of this node: under an affinity of one CPU, ``reframe
--dry-run`` writes the job scripts the checks would run, and they follow
it (HPL on 1 rank, STREAM's all-cores on 1 thread pinned to that CPU, NPB's
process counts no more than 1); the run's summary says what it was
planned on. Seconds: nothing is built or run.'''

import json
import os
import re
import subprocess

import pytest

from conftest import HPC_ACCEPTANCE

CASES = ('HpccCheck%isa=native%turbo=as-configured%smt=as-configured$|'
         'StreamCheck%isa=native%turbo=as-configured%smt=as-configured'
         '%threads=all_cores|NpbIsCheck%isa=native%turbo=as-configured'
         '%smt=as-configured')


def test_the_embedded_default_plans_on_the_cpu_its_affinity_allows(
        run_reframe, tmp_path):
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip('this host gives the tests one CPU: nothing to restrict')
    cpu = allowed[-1]

    done = run_reframe('-c', 'checks/hpcc/hpcc.py', '-c',
                       'checks/stream/stream.py', '-c', 'checks/npb',
                       '-n', CASES, '--dry-run',
                       prefix=('taskset', '-c', str(cpu)), timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]

    stage = tmp_path / 'prefix' / 'stage' / 'local' / 'default' / 'gnu'
    [stream] = stage.glob('StreamCheck_*/rfm_job.sh')
    assert "export OMP_NUM_THREADS=1\n" in stream.read_text()
    assert f"export OMP_PLACES='{{{cpu}}}'\n" in stream.read_text()
    [hpcc] = stage.glob('HpccCheck_*')
    assert re.search(r'^mpirun -np 1 ', (hpcc / 'rfm_job.sh').read_text(),
                     re.MULTILINE)
    grid = (hpcc / 'hpccinf.txt').read_text()
    assert re.search(r'^1\s+Ps$', grid, re.MULTILINE)
    assert re.search(r'^1\s+Qs$', grid, re.MULTILINE)

    report = json.loads((tmp_path / 'report.json').read_text())
    npb = [case['display_name'] for run in report['runs']
           for case in run['testcases']
           if case['display_name'].startswith('NpbIsCheck')]
    assert npb and all(name.endswith('%num_procs=1') for name in npb)

    summary = subprocess.run([str(HPC_ACCEPTANCE), 'summary',
                              str(tmp_path / 'report.json'), '--width',
                              '400'], capture_output=True, text=True)
    assert (f'local:default: 1 of {len(allowed)} CPUs' in summary.stdout
            or f'local:default: 1 of {os.cpu_count()} CPUs' in
            summary.stdout), summary.stdout
    assert 'planned on what this run may use' in summary.stdout
