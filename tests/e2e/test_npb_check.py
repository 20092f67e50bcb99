'''The NPB checks through the reframe CLI on this machine.

No NPB is installed here: the checks must skip and say which binary they
looked for and where. To test the pipeline after the binary is found, a
directory of stand-ins replays the output of real NPB runs
(tests/fixtures/data/npb) from rank 0, as NPB prints it; their verdicts
come from the checks' sanity functions. The real benchmarks run as well,
from the NPB that the real Spack installs from the offline kit
(tests/helpers/spack_ci.py).
'''

import os
import re
from pathlib import Path

import pytest

from conftest import DATA_DIR
from helpers.report_cases import (DEFAULT_VARIANTS, case_of, results,
                                  skip_reasons)
from helpers.spack_ci import prefix_of

NO_NPB = {'NPB_BIN_DIR': ''}


def skip_reason(report_file, check, **params):
    '''The reason ``check`` with ``params`` was skipped.'''
    return case_of(skip_reasons(report_file), check, **params)


def replaying(directory, binary, output):
    '''``directory/binary`` prints ``output`` (a file name in
    tests/fixtures/data/npb, ``{size}`` replaced by the number of ranks).'''
    directory.mkdir(exist_ok=True)
    path = DATA_DIR / 'npb' / output
    script = directory / binary
    script.write_text(
        '#!/bin/sh\n'
        '[ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ] || exit 0\n'
        f'exec cat "{path}"\n'.replace('{size}',
                                       '${OMPI_COMM_WORLD_SIZE:-1}')
    )
    script.chmod(0o755)
    return directory


def test_without_npb_the_checks_skip_naming_the_binary(run_reframe,
                                                       tmp_path):
    done = run_reframe('-c', 'checks/npb', '-n', 'NpbCgCheck',
                       *DEFAULT_VARIANTS, '-S', 'npb_class=S', '-r',
                       env=NO_NPB)
    assert done.returncode == 0, done.stdout[-3000:]
    cases = results(tmp_path / 'report.json')
    cores = os.cpu_count()
    # only the counts this node holds are generated
    counts = [n for n in (2 ** k for k in range(9)) if n <= cores]
    assert len(cases) == len(counts)
    assert {case['result'] for case in cases.values()} == {'skip'}
    reasons = skip_reasons(tmp_path / 'report.json')
    assert set(reasons) == set(cases)
    one = case_of(reasons, 'NpbCgCheck', num_procs=1)
    # the report holds the reason the console shows
    assert f' @local:default+gnu [{one}]\n' in done.stdout
    assert one.startswith(
        "cg.S.x not found: partition 'local:default' names no Spack "
        "environment (extras.spack_env); 'cg.S.x' is not on PATH and no "
        "module is mapped to it (extras.modules).")
    assert ('add "npb implementation=mpi names=cg classes=S" to the '
            'partition\'s Spack environment') in one
    assert 'set -S npb_dir=DIR or NPB_BIN_DIR=DIR' in one
    if counts[-1] < 256:
        note = one_case(cases)['variants_left_out']
        assert note.startswith(f'NPB: process counts above {cores} '
                               f'exceed the largest partition, '
                               f'local:default ({cores} hardware threads '
                               f'x 1 node)')


def one_case(cases):
    return next(iter(cases.values()))


def test_a_directory_without_the_binary_is_named(run_reframe, tmp_path):
    empty = tmp_path / 'npb-bin'
    empty.mkdir()
    done = run_reframe('-c', 'checks/npb', '-n', 'NpbBtCheck',
                       *DEFAULT_VARIANTS, '-E', 'num_procs==1',
                       '-S', 'npb_class=W', '-r',
                       env={'NPB_BIN_DIR': str(empty)})
    assert done.returncode == 0
    assert skip_reason(tmp_path / 'report.json', 'NpbBtCheck',
                       num_procs=1).startswith(
        f'bt.W.x not found: no executable {empty}/bt.W.x (directory from '
        f'environment variable NPB_BIN_DIR). To provide it: build NPB 3.4')


def test_verified_runs_pass_with_their_figures(run_reframe, tmp_path):
    bindir = replaying(tmp_path / 'bin', 'cg.S.x', 'cg.S.{size}.out')
    done = run_reframe('-c', 'checks/npb', '-n', 'NpbCgCheck',
                       *DEFAULT_VARIANTS, '-E', 'num_procs<=2',
                       '-S', 'npb_class=S',
                       '-S', f'npb_dir={bindir}', '-r', env=NO_NPB)
    assert done.returncode == 0, done.stdout[-3000:]
    cases = results(tmp_path / 'report.json')
    assert len(cases) == 2
    two = case_of(cases, 'NpbCgCheck', num_procs=2)
    assert two['result'] == 'pass'
    # perfvalues: [value, reference, lower, upper, unit, result]
    perf = {key.split(':')[-1]: (value[0], value[4])
            for key, value in two['perfvalues'].items()}
    # the figure NPB printed in cg.S.2.out
    summary = (DATA_DIR / 'npb' / 'cg.S.2.out').read_text()
    total = re.search(r'Mop/s total\s+=\s+(\S+)', summary)[1]
    assert perf['mops_total'] == (float(total), 'Mop/s')
    assert perf['mops_per_process'][1] == 'Mop/s'
    assert perf['time'][1] == 's'
    assert two['dependency_source'] == f'npb_dir:{bindir}/cg.S.x'
    assert two['launcher_options'] == '--map-by core --bind-to core'
    assert case_of(cases, 'NpbCgCheck', num_procs=1)['result'] == 'pass'


@pytest.mark.parametrize('output, npb_class, reasons', [
    ('bt.S.1.unsuccessful-class-U.out', 'S',
     ['Verification = UNSUCCESSFUL (the benchmark failed its own '
      'verification)', 'Class = U, expected S']),
    ('bt.S.2.active-processes-warning.out', 'S',
     ['NPB says: WARNING: Number of active processes: 1',
      'Total processes = 2, expected 1']),
    ('cg.W.2.truncated.out', 'W',
     ['no "Benchmark Completed" summary (truncated output or crashed '
      'run?)']),
])
def test_bad_runs_fail_although_mpirun_exits_0(run_reframe, tmp_path,
                                               output, npb_class, reasons):
    bindir = replaying(tmp_path / 'bin', f'bt.{npb_class}.x', output)
    done = run_reframe('-c', 'checks/npb', '-n', 'NpbBtCheck',
                       *DEFAULT_VARIANTS, '-E', 'num_procs==1',
                       '-S', f'npb_class={npb_class}',
                       '-S', f'npb_dir={bindir}', '-r', env=NO_NPB)
    assert done.returncode == 1
    case = case_of(results(tmp_path / 'report.json'), 'NpbBtCheck',
                   num_procs=1)
    assert case['result'] == 'fail'
    assert case['fail_phase'] == 'sanity'
    for reason in reasons:
        assert reason in case['fail_reason']

    assert 'exit status' not in case['fail_reason']


def test_a_class_larger_than_the_node_skips_with_figures(run_reframe,
                                                         tmp_path):
    memory = os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
    if memory > 80 * 2**30:
        pytest.skip('this machine holds NPB FT class D')

    done = run_reframe('-c', 'checks/npb', '-n', 'NpbFtCheck',
                       *DEFAULT_VARIANTS, '-E', 'num_procs==1',
                       '-S', 'npb_class=D', '-r',
                       env=NO_NPB)
    assert done.returncode == 0
    assert re.fullmatch(
        r'local:default: NPB FT class D on 1 rank\(s\) needs about 80\.0 '
        r'GiB per node \(80\.0 GiB of data over 1 node\(s\) \+ 1 '
        r'rank\(s\) x 32 MiB\), more than the [\d.]+ GiB usable of a '
        r'node\'s [\d.]+ GiB \(extras\.memory_bytes, 90% usable\)',
        skip_reason(tmp_path / 'report.json', 'NpbFtCheck', num_procs=1))


def test_real_npb_class_s_passes(run_reframe, spack_ci, tmp_path):
    '''All eight benchmarks, as the real Spack built them for the tests
    (tests/helpers/spack_ci.py), on 1 and 2 ranks.'''
    bindir = prefix_of(spack_ci, 'npb') / 'bin'
    done = run_reframe('-c', 'checks/npb', *DEFAULT_VARIANTS,
                       '-E', 'num_procs<=2', '-S', 'npb_class=S',
                       '-S', f'npb_dir={bindir}', '-r')
    assert done.returncode == 0, done.stdout[-3000:]
    cases = results(tmp_path / 'report.json')
    assert len(cases) == 14
    assert {case['result'] for case in cases.values()} == {'pass'}
    assert {case['dependency_source'].rsplit('/', 1)[0]
            for case in cases.values()} == {f'npb_dir:{bindir}'}


def test_example_cluster_spreads_ranks_over_nodes(run_reframe, tmp_path):
    # no spack here: the dry run shows what the cluster's Spack would load
    done = run_reframe('-c', 'checks/npb', '--system', 'example-cluster',
                       '-n', 'NpbBtCheck', *DEFAULT_VARIANTS, '--dry-run',
                       env=NO_NPB)
    assert done.returncode == 0, done.stdout[-3000:]
    cases = results(tmp_path / 'report.json')
    assert len(cases) == 16
    stage = Path(case_of(cases, 'NpbBtCheck', num_procs=144)['stagedir'])
    script = (stage / 'rfm_job.sh').read_text()
    # 72 cores per node: two full nodes, ranks bound one per core
    assert '#SBATCH --ntasks=144\n#SBATCH --ntasks-per-node=72\n' in script
    assert ('eval "$(spack -e ' in script and
            'load --sh npb implementation=mpi names=bt classes=C)"' in script)
    assert ('\nsrun --distribution=block:block --cpu-bind=cores bt.C.x\n'
            in script)
