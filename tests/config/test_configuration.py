'''The configuration entry point, loaded by the reframe CLI for real.'''

import json
import re
import shutil
import socket

from conftest import ONE_TIMED_RUN, PROJECT_DIR
from hpc_acceptance.core import isa

EXAMPLE = ['--system', 'example-cluster']
#: ReFrame's log levels, finest first.
LEVELS = ['debug2', 'debug', 'verbose', 'info', 'warning', 'error',
          'critical']


def test_embedded_default_lists_every_check_without_warnings(run_reframe):
    done = run_reframe('-c', 'checks/', '-l', '--warn-as-error')
    assert done.returncode == 0, done.stdout
    assert "selected system:   'local'" in done.stdout
    assert 'WARNING' not in done.stdout
    for check in ('MemoryLatencyCheck', 'MemoryReadBandwidthCheck',
                  'MemoryDotStreamsCheck', 'MemoryGatherDotCheck',
                  'MemoryDaxpyCheck', 'MemoryNumaCheck'):
        assert check in done.stdout


def test_the_embedded_default_runs_every_npb_check_at_class_w(run_reframe):
    '''Its modes set ``-S <check>.npb_class=W`` check by check; ReFrame
    ignores an option naming no check, and that benchmark would run at
    class C, for hours on a small machine.'''
    done = run_reframe('-c', 'checks/npb', '--mode', 'nightly', '--describe')
    assert done.returncode == 0, done.stdout
    cases = json.loads(done.stdout)
    assert {case['@class'] for case in cases} == {
        'NpbBtCheck', 'NpbCgCheck', 'NpbEpCheck', 'NpbFtCheck', 'NpbIsCheck',
        'NpbLuCheck', 'NpbMgCheck', 'NpbSpCheck'}
    assert {case['npb_class'] for case in cases} == {'W'}


def test_example_cluster_loads_and_dry_runs_cleanly(run_reframe, tmp_path):
    done = run_reframe('-c', 'checks/', *EXAMPLE, '--dry-run',
                       '--warn-as-error')
    assert done.returncode == 0, done.stdout
    assert 'WARNING' not in done.stdout
    assert re.search(r'PASSED.*\(0 failure', done.stdout)

    # Benchmarks are submitted whole-node to the compute partition, sized
    # from the configured two-socket topology (72 cores).
    scripts = list((tmp_path / 'prefix' / 'stage' / 'example-cluster' /
                    'compute').rglob('MemoryReadBandwidthCheck_*/rfm_job.sh'))
    assert scripts
    text = '\n'.join(s.read_text() for s in scripts)
    assert '#SBATCH --partition=compute' in text
    assert '#SBATCH --exclusive' in text
    assert 'OMP_NUM_THREADS=72' in text

    # Two NUMA nodes there: the NUMA check is generated, not skipped.
    assert 'MemoryNumaCheck' in done.stdout
    assert 'SKIP' not in done.stdout


def test_login_partition_runs_no_benchmarks(run_reframe):
    done = run_reframe('-c', 'checks/', '--system', 'example-cluster:login',
                       '-l')
    assert 'Found 0 check(s)' in done.stdout


def test_unknown_system_is_named(run_reframe):
    done = run_reframe('-c', 'checks/', '--system', 'no-such-cluster', '-l')
    assert done.returncode == 1
    assert ("could not find a configuration entry for the requested "
            "system: 'no-such-cluster'") in done.stdout


def test_bad_variable_value_names_the_variable(run_reframe):
    done = run_reframe('-c', 'checks/', '-n', 'MemoryLatencyCheck',
                       '-S', 'repeats=many', '-l')
    assert done.returncode == 1
    assert ("failed to set variable 'repeats': could not convert to any of "
            "the supported types: ['PositiveInt']: 'many' is not a whole "
            "number") in done.stdout


def test_zero_repeats_is_refused(run_reframe):
    done = run_reframe('-c', 'checks/', '-n', 'MemoryLatencyCheck',
                       '-S', 'repeats=0', '-l')
    assert done.returncode == 1
    assert "'0' is not >= 1" in done.stdout


def test_malformed_reference_file_stops_before_anything_runs(run_reframe,
                                                             tmp_path):
    refs = tmp_path / 'refs'
    refs.mkdir()
    (refs / 'local.yaml').write_text(
        'MemoryLatencyCheck:\n'
        '  $index: [$partition]\n'
        '  local:default:\n'
        '    latency_l1: [1.2, 0.1, 0.1, ns]\n'
    )
    done = run_reframe('-c', 'checks/', '-r',
                       env={'RFM_REFERENCE_PREFIX': str(refs)})
    assert done.returncode == 1
    assert ('failed to load configuration: unusable reference file: '
            f'{refs}/local.yaml: MemoryLatencyCheck.local:default.latency_l1:'
            ' lower tolerance 0.1 must be a fraction in [-1, 0] or null'
            ) in done.stdout
    assert 'Running' not in done.stdout


def test_reference_yaml_syntax_error_names_the_line(run_reframe, tmp_path):
    refs = tmp_path / 'refs'
    refs.mkdir()
    (refs / 'local.yaml').write_text('MemoryLatencyCheck: [1, 2\n')
    done = run_reframe('-c', 'checks/', '-l',
                       env={'RFM_REFERENCE_PREFIX': str(refs)})
    assert done.returncode == 1
    assert re.search(r'unusable reference file: .*local\.yaml: line \d+, '
                     r'column \d+', done.stdout)


def test_committed_reference_files_load(run_reframe):
    # the repository's own reference/ passes the same check
    assert (PROJECT_DIR / 'reference').is_dir()
    done = run_reframe('-c', 'checks/', '-l')
    assert done.returncode == 0, done.stdout


def test_a_misspelt_check_entry_fails_the_check_naming_it(
        run_reframe, tmp_path):
    refs = tmp_path / 'refs'
    refs.mkdir()
    (refs / 'local.yaml').write_text(
        'MemoryLatencyChekc:\n'
        '  local:default:\n'
        '    latency_l1: [1.2, -0.1, 0.1, ns]\n')
    done = run_reframe('-c', 'checks/memory', '-n', 'MemoryLatencyCheck',
                       '--exclude-tag=variant', *ONE_TIMED_RUN, '-r',
                       env={'RFM_REFERENCE_PREFIX': str(refs)})
    assert done.returncode == 1
    assert (f'{refs}/local.yaml: no entry for MemoryLatencyCheck (it has '
            f'MemoryLatencyChekc: a misspelling?)') in done.stdout
    # before its benchmark ran: no job was started
    assert 'Job type: local (id=None)' in done.stdout


def _listed(stdout):
    '''The test cases ``reframe -l`` listed, as their display names.'''
    return re.findall(r'^- (.+?) /[0-9a-f]+$', stdout, re.MULTILINE)


def test_fleet_mode_makes_a_test_per_node_of_the_single_node_checks(
        run_reframe):
    done = run_reframe('-c', 'checks/', '--mode', 'fleet', '-l')
    assert done.returncode == 0, done.stdout
    listed = _listed(done.stdout)
    host = socket.gethostname().split('.')[0]
    assert listed and all(name.endswith(f'%.nid={host}')
                          for name in listed)
    assert any(name.startswith('StreamCheck') for name in listed)
    assert not any('%isa=avx' in name for name in listed)


def test_checks_that_need_several_nodes_carry_the_tag_multinode(
        run_reframe):
    '''A fleet run leaves them out: ReFrame's --distribute pins each test
    to one node. The example cluster's nodes have 72 cores.'''
    multi = _listed(run_reframe('-c', 'checks/', *EXAMPLE, '-l',
                                '--tag=multinode').stdout)
    single = _listed(run_reframe('-c', 'checks/', *EXAMPLE, '-l',
                                 '--exclude-tag=multinode').stdout)
    assert any('%placement=one_per_node' in name for name in multi)
    assert any('%placement=all_per_node' in name for name in multi)
    assert any(re.search(r'NpbCgCheck .*%num_procs=128\b', n) for n in multi)
    assert any(re.search(r'NpbSpCheck .*%num_procs=81\b', n) for n in multi)
    assert any(re.search(r'NpbCgCheck .*%num_procs=64\b', n) for n in single)
    assert any(re.search(r'NpbSpCheck .*%num_procs=64\b', n) for n in single)
    assert not set(multi) & set(single)
    assert not any('placement=one_per_node' in n or
                   re.search(r'%num_procs=(128|256)\b', n) for n in single)


def test_max_jobs_of_the_scheduler_partitions_can_be_bounded(run_reframe):
    done = run_reframe(*EXAMPLE, '--show-config=systems/0/partitions',
                       env={'HPC_ACCEPTANCE_MAX_JOBS': '3'})
    assert done.returncode == 0, done.stdout
    # the login partition (local scheduler: one node) keeps its own
    assert re.findall(r'"max_jobs": (\d+)', done.stdout) == ['3']
    done = run_reframe('-l', env={'HPC_ACCEPTANCE_MAX_JOBS': 'lots'})
    assert done.returncode == 1
    assert ("HPC_ACCEPTANCE_MAX_JOBS='lots': must be a whole number of jobs"
            in done.stdout)


def test_a_run_without_isa_variants_builds_for_the_native_isa_only(
        run_reframe, tmp_path):
    '''The nightly and the fleet run build nothing they do not run; the
    post-upgrade set, which runs every ISA variant, builds them all.'''
    stage = tmp_path / 'prefix' / 'stage'
    for mode, isas in (('nightly', ['native']),
                       ('post-upgrade', list(isa.VARIANTS))):
        done = run_reframe('-c', 'checks/memory', '-n', 'MemoryDaxpyCheck',
                           '--mode', mode, '--dry-run')
        assert done.returncode == 0, done.stdout
        script, = stage.rglob('MemoryKernelsBuild_*/rfm_build.sh')
        assert re.findall(r'^mkdir -p (\S+)$', script.read_text(),
                          re.MULTILINE) == isas
        shutil.rmtree(stage)


def test_reframe_builds_only_the_log_records_its_handlers_write(
        run_reframe):
    '''ReFrame's logger level: none (ReFrame's default) builds every
    record, at a cost per running test and poll; above a handler's level it
    would lose that handler's records.'''
    done = run_reframe('--show-config=logging/0')
    assert done.returncode == 0, done.stdout
    logging = json.loads(done.stdout[done.stdout.index('{'):
                                     done.stdout.rindex('}') + 1])
    levels = [handler['level'] for group in ('handlers', 'handlers_perflog')
              for handler in logging[group]]
    assert logging['level'] == min(levels, key=LEVELS.index) == 'verbose'
