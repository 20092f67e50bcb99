'''The memory checks, run through the reframe CLI for real on this machine.'''

import json
import re
import xml.etree.ElementTree as ET

from conftest import DATA_DIR, ONE_TIMED_RUN
from helpers import host
from helpers.report_cases import DEFAULT_VARIANTS as DEFAULT, case_of, results

LEVEL_FIGURES = 'flops_l1 flops_l2 flops_l3 flops_memory'.split() + [
    f'time_per_iteration_{lvl}' for lvl in ('l1', 'l2', 'l3', 'memory')
] + ['core_clock']


def test_memory_checks_pass_and_leave_reports(run_reframe, tmp_path):
    done = run_reframe('-c', 'checks/memory', *DEFAULT, *ONE_TIMED_RUN, '-r')
    assert done.returncode == 0, done.stdout[-3000:]

    cases = results(tmp_path / 'report.json')
    assert len(cases) == 16
    skipped = {name for name, case in cases.items()
               if case['result'] == 'skip'}
    passed = {name for name, case in cases.items()
              if case['result'] == 'pass'}
    # on one NUMA node the NUMA check says so instead of passing
    if host.numa_nodes() == 1:
        assert skipped and all(name.startswith('MemoryNumaCheck')
                               for name in skipped)
        assert re.search(r'SKIP .*MemoryNumaCheck.*: 1 NUMA node: local '
                         r'and remote memory are the same', done.stdout)
    else:
        assert not skipped

    assert len(passed) == len(cases) - len(skipped) >= 15

    # the latency ladder climbs from L1 to memory
    latency = case_of(cases, 'MemoryLatencyCheck')
    perf = {name.split(':')[-1]: values[0]
            for name, values in latency['perfvalues'].items()}
    assert (perf['latency_l1'] < perf['latency_l2'] <
            perf['latency_memory'])
    # beside each level's best run, its median one and their ratio
    assert perf['latency_l1_median'] >= perf['latency_l1']
    assert 0 < perf['best_to_median_l1'] <= 1

    junit = ET.parse(tmp_path / 'junit.xml').getroot()
    assert int(junit.find('testsuite').get('tests')) >= 16

    perflogs = tmp_path / 'perflogs' / 'local' / 'default'
    for check in ('Latency', 'ReadBandwidth', 'DotStreams', 'GatherDot',
                  'Daxpy'):
        lines = (perflogs / f'Memory{check}Check.log').read_text().splitlines()
        assert 'dependency=in-tree:' in lines[1]
        assert 'reference=none' in lines[1]


def write_references(directory, single, all_cores=None):
    directory.mkdir()
    entries = {'single': single}
    if all_cores is not None:
        entries['all_cores'] = all_cores

    lines = ['MemoryDaxpyCheck:', '  $index: [$partition, threads]',
             '  local:default:']
    for threads, figures in entries.items():
        lines.append(f'    {threads}:')
        for name, ref in figures.items():
            lines.append(f'      {name}: {json.dumps(ref)}')

    (directory / 'local.yaml').write_text('\n'.join(lines) + '\n')


def unit(name):
    return {'flops': 'MFLOP/s', 'core': 'GHz'}.get(name.split('_')[0], 'ns')


def test_reference_bounds_and_missing_entries_fail(run_reframe, tmp_path):
    anything = {name: [1.0, -1.0, None, unit(name)] for name in LEVEL_FIGURES}
    # L1 DAXPY must stay below 1.5 MFLOP/s: it cannot
    tight = dict(anything, flops_l1=[1.0, None, 0.5, 'MFLOP/s'])
    refs = tmp_path / 'refs'
    write_references(refs, single=tight)   # no all_cores entry at all
    done = run_reframe('-c', 'checks/memory', '-n', 'MemoryDaxpyCheck',
                       *DEFAULT, *ONE_TIMED_RUN, '-r',
                       env={'RFM_REFERENCE_PREFIX': str(refs)})
    assert done.returncode == 1
    cases = results(tmp_path / 'report.json')
    single = case_of(cases, 'MemoryDaxpyCheck', threads='single')
    all_cores = case_of(cases, 'MemoryDaxpyCheck', threads='all_cores')
    assert single['result'] == 'fail'
    assert 'flops_l1=' in single['fail_reason']
    assert 'time_per_iteration' not in single['fail_reason']
    assert all_cores['result'] == 'fail'
    assert all_cores['fail_phase'] == 'run'
    assert all_cores['fail_reason'].startswith(
        f'missing reference entry: {refs}/local.yaml: MemoryDaxpyCheck: no '
        f"entry for threads='all_cores' ({all_cores['display_name']}; "
        f'$index: $partition, threads)')


def test_reference_entries_must_fit_the_check(run_reframe, tmp_path):
    wrong_unit = {name: [1.0, -1.0, None, unit(name)]
                  for name in LEVEL_FIGURES}
    wrong_unit['flops_l2'] = [1.0, -1.0, None, 'GFLOP/s']
    unknown = dict(wrong_unit, flops_l2=[1.0, -1.0, None, 'MFLOP/s'],
                   flops_l5=[1.0, -1.0, None, 'MFLOP/s'])
    refs = tmp_path / 'refs'
    write_references(refs, single=wrong_unit, all_cores=unknown)
    done = run_reframe('-c', 'checks/memory', '-n', 'MemoryDaxpyCheck',
                       *DEFAULT, *ONE_TIMED_RUN, '-r',
                       env={'RFM_REFERENCE_PREFIX': str(refs)})
    assert done.returncode == 1
    cases = results(tmp_path / 'report.json')
    single = case_of(cases, 'MemoryDaxpyCheck',
                     threads='single')['fail_reason']
    all_cores = case_of(cases, 'MemoryDaxpyCheck',
                        threads='all_cores')['fail_reason']
    assert single.endswith(
        "%threads=single: flops_l2: unit 'GFLOP/s' differs from the "
        "check's 'MFLOP/s'")
    assert ('%threads=all_cores: flops_l5: the check reports no such '
            'performance variable') in all_cores


def test_reference_file_that_covers_the_run_passes(run_reframe, tmp_path):
    anything = {name: [1.0, -1.0, None, unit(name)] for name in LEVEL_FIGURES}
    refs = tmp_path / 'refs'
    write_references(refs, single=anything, all_cores=anything)
    done = run_reframe('-c', 'checks/memory', '-n', 'MemoryDaxpyCheck',
                       *DEFAULT, *ONE_TIMED_RUN, '-r',
                       env={'RFM_REFERENCE_PREFIX': str(refs)})
    assert done.returncode == 0, done.stdout[-3000:]
    perflog = (tmp_path / 'perflogs' / 'local' / 'default' /
               'MemoryDaxpyCheck.log').read_text()
    assert f'reference={refs}/local.yaml' in perflog
    # the repetitions' median and steadiness, which the file does not bound
    daxpy = case_of(results(tmp_path / 'report.json'), 'MemoryDaxpyCheck',
                    threads='single')
    perf = {name.split(':')[-1]: values
            for name, values in daxpy['perfvalues'].items()}
    assert perf['flops_l1_median'][4] == 'MFLOP/s'
    assert 0 < perf['best_to_median_l1'][0] <= 1
    assert perf['best_to_median_l1'][1:4] == [0, None, None]


def test_a_run_the_references_do_not_cover_runs_unbounded_after_upgrades(
        run_reframe, tmp_path):
    '''The post-upgrade mode's variants and sizes may have no entry (the
    nightly taught none): there they run without bounds, for the
    before/after verdict to judge, where a nightly fails them.'''
    refs = tmp_path / 'refs'
    write_references(refs, single={name: [1.0, -1.0, None, unit(name)]
                                   for name in LEVEL_FIGURES})
    done = run_reframe('-c', 'checks/memory', '-n', 'MemoryDaxpyCheck',
                       *DEFAULT, *ONE_TIMED_RUN, '-r',
                       env={'RFM_REFERENCE_PREFIX': str(refs),
                            'HPC_ACCEPTANCE_REFERENCE_ENTRIES': 'optional'})
    assert done.returncode == 0, done.stdout[-3000:]
    cases = results(tmp_path / 'report.json')
    single = case_of(cases, 'MemoryDaxpyCheck', threads='single')
    all_cores = case_of(cases, 'MemoryDaxpyCheck', threads='all_cores')
    assert single['reference_file'] == f'{refs}/local.yaml'
    assert all_cores['reference_file'] == (
        f'{refs}/local.yaml (no entry for this run: not bounded)')
    assert all_cores['result'] == 'pass'


def test_a_processor_description_without_a_core_count_skips_saying_so(
        run_reframe, tmp_path):
    # the checks count cores from the cores' CPU masks (ReFrame's own
    # count from num_cpus and num_cpus_per_core), and place threads on them
    done = run_reframe('-C', str(DATA_DIR / 'variants' /
                                 'local_described_cpu.py'),
                       '-c', 'checks/memory', '-n',
                       'MemoryDaxpyCheck.*%threads=all_cores', *DEFAULT, '-r',
                       env={'HPC_ACCEPTANCE_TEST_THREADS_PER_CORE': ''})
    assert done.returncode == 0, done.stdout[-3000:]
    (case,) = results(tmp_path / 'report.json').values()
    assert case['result'] == 'skip'
    assert case['skip_reason'] == (
        'local:default: the processor description has no topology.cores CPU '
        'masks: regenerate it with "reframe --detect-host-topology=FILE" on '
        'a compute node')
