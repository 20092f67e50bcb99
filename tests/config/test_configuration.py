'''The configuration entry point, loaded by the reframe CLI for real.'''

import re

from conftest import ONE_TIMED_RUN, PROJECT_DIR

EXAMPLE = ['--system', 'example-cluster']


def test_embedded_default_lists_every_check_without_warnings(run_reframe):
    done = run_reframe('-c', 'checks/', '-l', '--warn-as-error')
    assert done.returncode == 0, done.stdout
    assert "selected system:   'local'" in done.stdout
    assert 'WARNING' not in done.stdout
    for check in ('MemoryLatencyCheck', 'MemoryReadBandwidthCheck',
                  'MemoryDotStreamsCheck', 'MemoryGatherDotCheck',
                  'MemoryDaxpyCheck', 'MemoryNumaCheck'):
        assert check in done.stdout


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


def test_a_misspelt_check_entry_fails_the_check_naming_it(run_reframe,
                                                        tmp_path):
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
