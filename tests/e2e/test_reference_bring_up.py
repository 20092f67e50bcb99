'''Bringing up a system's references: run N times, propose, run against them.

Real runs of a memory check on this machine fill a private results
database; the maintenance command proposes a reference file from it, and a
further run must pass against that file.
'''

import os
import subprocess

import yaml

from conftest import DATA_DIR, HPC_ACCEPTANCE, ONE_TIMED_RUN, PROJECT_DIR
from helpers import host
from helpers.report_cases import case_of, results

DESCRIBED_CPU = DATA_DIR / 'variants' / 'local_described_cpu.py'

SELECT = ['-c', 'checks/memory', '-n', 'MemoryDaxpyCheck',
          '--exclude-tag=variant', *ONE_TIMED_RUN]

# The widest tolerance: on this VM the "L3" working set (sized from the
# 480 MiB L3 the guest reports) lands where the host's real last-level cache
# ends, and its time per iteration jumps by half from one run to the next.
# The test is about the bring-up procedure, not about this machine's noise.
FLOOR = '1.0'


def propose(tmp_path, *args):
    env = dict(os.environ, RFM_SQLITE_DB_FILE=str(tmp_path / 'results.db'))
    return subprocess.run(
        [HPC_ACCEPTANCE, 'propose-references',
         '--system', 'local', '--reference-dir', str(tmp_path / 'refs'),
         *args],
        cwd=PROJECT_DIR, env=env, text=True, capture_output=True
    )


def test_three_runs_give_a_reference_file_that_the_next_run_passes(
        run_reframe, tmp_path):
    for _ in range(3):
        done = run_reframe(*SELECT, '-r')
        assert done.returncode == 0, done.stdout[-2000:]

    (tmp_path / 'refs').mkdir()
    dry = propose(tmp_path, '--floor', FLOOR)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith('--- /dev/null\n+++ ')
    assert '+MemoryDaxpyCheck:' in dry.stdout
    assert not (tmp_path / 'refs' / 'local.yaml').exists()

    wrote = propose(tmp_path, '--floor', FLOOR, '--write')
    assert wrote.returncode == 0, wrote.stderr
    data = yaml.safe_load((tmp_path / 'refs' / 'local.yaml').read_text())
    entry = data['MemoryDaxpyCheck']
    assert entry['$index'][-1] == 'identity'
    by_identity = (entry['local:default']['gnu']['native']['as-configured']
                   ['as-configured']['single'])
    # three runs of the same inputs: one identity, one entry
    (ident, single), = by_identity.items()
    assert 'repeats=1' in ident and 'isa_built=' in ident
    value, lower, upper, unit = single['flops_l1']
    # a rate: only the lower side is bounded, at least the floor
    assert (lower, upper, unit) == (-1.0, None, 'MFLOP/s')

    done = run_reframe(*SELECT, '-r',
                       env={'RFM_REFERENCE_PREFIX': str(tmp_path / 'refs')})
    assert done.returncode == 0, done.stdout[-2000:]
    assert 'PASSED' in done.stdout

    # nothing new to propose: the file is unchanged, so no diff
    again = propose(tmp_path, '--floor', FLOOR, '--sessions', 'now-1d:now')
    assert again.returncode == 0

    # other inputs than the references': refused, naming the input
    other = run_reframe(*SELECT[:-1], 'repeats=2', '-r',
                        env={'RFM_REFERENCE_PREFIX': str(tmp_path / 'refs')})
    assert other.returncode != 0
    assert 'identity mismatch' in other.stdout
    assert '--repeats=1' in other.stdout and '--repeats=2' in other.stdout

    # The nodes described with twice their hardware threads per core, as
    # after a BIOS change: the all-cores run's threads, sized from the
    # description, are not those of the references; the one-thread run's
    # inputs are, and its job sees a node unlike its description
    described = str(2 * host.threads_per_core())
    changed = run_reframe(
        '-C', str(DESCRIBED_CPU), *SELECT, '-r',
        env={'RFM_REFERENCE_PREFIX': str(tmp_path / 'refs'),
             'HPC_ACCEPTANCE_TEST_THREADS_PER_CORE': described})
    assert changed.returncode == 1
    found = results(tmp_path / 'report.json')
    all_cores = case_of(found, 'MemoryDaxpyCheck', threads='all_cores')
    assert ("the node's topology changed since the references were measured"
            in all_cores['fail_reason']), all_cores['fail_reason']
    assert 'num_cpus_per_task: reference ' in all_cores['fail_reason']
    single = case_of(found, 'MemoryDaxpyCheck', threads='single')
    assert ("the node's topology changed since it was detected"
            in single['fail_reason']), single['fail_reason']


def test_too_few_runs_are_reported_not_invented(run_reframe, tmp_path):
    done = run_reframe(*SELECT, '-r')
    assert done.returncode == 0, done.stdout[-2000:]
    (tmp_path / 'refs').mkdir()
    result = propose(tmp_path)
    assert result.returncode == 1
    assert 'flops_l1: 1 run(s), need 3: left out' in result.stderr
