'''The console summary: one screen, whatever the run.'''

import copy
import json

from conftest import DATA_DIR
from helpers import fleet_cases

from hpc_acceptance.tools import cli
from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.outcome import summary_text
from hpc_acceptance.tools.results import skips

RUN = DATA_DIR / 'reframe_runs'


def _cases():
    report = json.loads((RUN / 'nightly-report.json').read_text())
    return report['runs'][-1]['testcases']


def test_families_are_counted_from_the_real_report():
    cases = _cases()
    families = summary_text.tally(cases)
    checks = [c for c in cases if not c['fixture']]
    assert sum(sum(c.values()) for c in families.values()) == len(checks)
    assert set(families) == {c['filename'].split('/')[-2] for c in checks}


def test_a_hundred_failures_still_fit_in_40_lines():
    cases = _cases()
    failed = []
    for number in range(100):
        case = copy.deepcopy(cases[-1])
        case.update(result='fail', fail_phase='sanity',
                    fail_reason=f'broken number {number} ' + 'x' * 300,
                    display_name=f'Broken{number}')
        failed.append(case)

    lines = summary_text.render(cases + failed, skips.reasons(
        cases, skips.read(RUN / 'nightly-console.log')))
    assert len(lines) <= summary_text.MAX_LINES
    assert all(len(line) <= 100 for line in lines)
    assert any('more: see the report page' in line for line in lines)
    assert any('Broken0' in line and 'sanity' in line for line in lines)


def test_left_out_variants_are_stated_once():
    cases = _cases()
    for case in cases:
        case['variants_left_out'] = 'NPB: process counts above 2'

    lines = summary_text.render(cases, [])
    assert sum('NPB: process counts' in line for line in lines) == 1


def test_what_the_node_s_shape_decided_is_stated_once_a_partition():
    cases = _cases()
    kinds = ('a hybrid CPU, 2 kinds of core by their highest clocks: '
             'performance: 6 cores; efficiency: 8 cores')
    why = ("l3: a thread's share of L3 is 1.71 MiB with 14 threads on these "
           "cores, less than 2 x the 1.25 MiB of L2 a thread fills first")
    for case in cases:
        case.update(core_kinds=kinds, levels_not_measured=why)

    lines = summary_text.render(cases, [], width=400)
    assert "decided from the node's shape:" in lines
    [hybrid] = [line for line in lines if 'hybrid CPU' in line]
    assert hybrid.endswith('all-cores and multi-rank cases ran on every '
                           'kind (threads=performance_cores on the '
                           'performance cores alone)')
    assert sum("l3 not measured: a thread's share of L3" in line
               for line in lines) == 1


def test_a_run_planned_on_part_of_its_node_says_so_once():
    cases = _cases()
    view = ('6 of 32 CPUs, NUMA nodes 0-5 of 8, 96 of 126.2 GiB of memory: '
            'planned on what this run may use (CPUs: cgroup v2 '
            'cpuset.cpus.effective of /uid_2008/job_15389/step_0)')
    for case in cases:
        case['allowed_view'] = view
    cases[0]['memory_kinds'] = ('NUMA nodes 2, 4: HBM (memory tier 0): '
                                'another kind of memory than DRAM, not '
                                'measured')

    lines = summary_text.render(cases, [], width=400)
    assert sum('6 of 32 CPUs, NUMA nodes 0-5 of 8, 96 of 126.2 GiB' in line
               for line in lines) == 1
    assert sum('NUMA nodes 2, 4: HBM' in line for line in lines) == 1


def test_cli_prints_the_summary(capsys):
    assert cli.main(['summary', str(RUN / 'nightly-report.json'), '--log',
                         str(RUN / 'nightly-console.log')]) == 0
    out = capsys.readouterr().out
    assert out.startswith('== acceptance summary')
    assert 'skipped, by reason (22):' in out


def test_a_long_reason_wraps_and_keeps_its_end():
    '''The end of a reason is usually what to do: it is never cut.'''
    cases = _cases()
    skipped = [('MemoryNumaCheck %threads=single @local:default+gnu',
                'local:default has 1 NUMA node: ' + 'words ' * 40 +
                'set extras.numa_nodes to run it')]
    lines = summary_text.render(cases, skipped, width=80)
    assert all(len(line) <= 80 for line in lines)
    text = ' '.join(line.strip() for line in lines)
    assert 'set extras.numa_nodes to run it (MemoryNumaCheck)' in text
    assert not any(line.endswith('...') for line in lines)


def test_a_fleet_run_lists_its_suspect_nodes():
    cases = fleet_cases.fleet(6, slow={'n5': (0.6, ('StreamCheck',))})
    lines = summary_text.render(cases, [], fleets=comparison.compare(cases))
    at = lines.index('suspect nodes (1 of 6; against the median of their '
                     'partition\'s nodes in this run):')
    node_line = ' '.join(line.strip() for line in lines[at + 1:at + 4])
    assert node_line.startswith('n5: StreamCheck %threads=single ')
    assert '(fleet median ' in node_line and '-6' in node_line
    assert len(lines) <= summary_text.MAX_LINES
    assert all(len(line) <= 100 for line in lines)


def test_a_quiet_fleet_run_says_no_node_is_a_suspect():
    cases = fleet_cases.fleet(6)
    lines = summary_text.render(cases, [], fleets=comparison.compare(cases))
    assert 'suspect nodes: none of 6 node(s)' in lines


def test_a_fleet_of_one_node_says_once_that_it_is_not_compared():
    cases = fleet_cases.fleet(1)
    lines = summary_text.render(cases, [], fleets=comparison.compare(cases))
    notes = [line for line in lines if 'not compared' in line]
    assert notes == ['  cluster:compute: not compared across nodes: 1 '
                     'node(s): the fleet comparison needs at least 4']


def test_many_suspects_and_the_nodes_left_out_fit_in_40_lines():
    slow = {f'n{i}': (0.6, ('StreamCheck',)) for i in range(1, 40)}
    cases = fleet_cases.fleet(200, slow=slow)
    nodes = {'cluster:compute': {'state': 'idle', 'covered': [],
                                 'left_out': [{'node': f'x{i}',
                                               'state': 'DOWN',
                                               'reason': 'not responding'}
                                              for i in range(10)]}}
    lines = summary_text.render(cases, skips.parse(
        (RUN / 'nightly-console.log').read_text()),
                           fleets=comparison.compare(cases), nodes=nodes)
    assert len(lines) <= summary_text.MAX_LINES
    assert any('more: hpc-acceptance suspects' in line for line in lines)
    assert any(line.startswith('nodes left out') for line in lines)
    assert '  cluster:compute x0 (down: not responding)' in lines


def test_cli_takes_the_reasons_the_checks_recorded_without_a_log(
        tmp_path, capsys):
    # the run as checks record it now: each skip's console reason in its
    # test case
    report = json.loads((RUN / 'nightly-report.json').read_text())
    console = dict(skips.parse((RUN / 'nightly-console.log').read_text()))
    for case in report['runs'][-1]['testcases']:
        if case['result'] == 'skip':
            case['skip_reason'] = console[skips.case_name(case)]

    (tmp_path / 'report.json').write_text(json.dumps(report))
    assert cli.main(['summary', str(tmp_path / 'report.json')]) == 0
    without_log = capsys.readouterr().out
    assert cli.main(['summary', str(RUN / 'nightly-report.json'), '--log',
                         str(RUN / 'nightly-console.log')]) == 0
    assert without_log == capsys.readouterr().out
    assert 'skipped, by reason (22):' in without_log
    assert skips.NOT_RECORDED not in without_log
