'''The fleet run's verdicts on the cases a site meets in its first month,
through the commands a sysadmin runs (``hpc-acceptance verdict``,
``hpc-acceptance suspects``), on runs shaped as ReFrame stores them: JSON
reports made on the template of a real one (tests/helpers/fleet_cases.py),
stored by ReFrame's own storage (``hpc-acceptance db import``) where the
command reads the results database.'''

import json
import os
import subprocess
import time

import pytest

from conftest import HPC_ACCEPTANCE
from helpers import fleet_cases
from helpers.fleet_cases import SESSION
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.fleet.suspect_report import text_lines
from hpc_acceptance.tools.outcome import acceptance_verdict as verdict
from hpc_acceptance.tools.page import heat_map

DAY = 86400.0
#: The first night: ten days ago, so that the nights are within the
#: periods the commands read (the last 30 days).
NIGHT = float(int(time.time() - 10 * DAY))


@pytest.fixture
def database(tmp_path, monkeypatch):
    '''A results database of the test's own; ``store(report)`` writes a
    report beside it and imports it as ``ci/acceptance.sh`` would have
    stored it, returning the report's path.'''
    path = tmp_path / 'results.db'
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(path))

    def store(report, name):
        report_path = tmp_path / f'{name}.json'
        report_path.write_text(json.dumps(report))
        done = subprocess.run([str(HPC_ACCEPTANCE), 'db', 'import', '--db',
                               str(path), str(report_path)],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return str(report_path)

    return store


def _session(number):
    return f'00000000-0000-4000-8000-{number:012d}'


def _night(store, number, cases, *retries, extras=None):
    '''Fleet run ``number`` (a night after the first), stored.'''
    when = NIGHT + number * DAY
    for case in cases + [c for run in retries for c in run]:
        case['job_completion_time_unix'] = when + 1

    report = fleet_cases.as_report(cases, *retries, session=_session(number),
                                   start=when,
                                   extras=extras or {'fleet': 'yes'})
    return store(report, f'fleet-{number}')


def _command(*args):
    done = subprocess.run([str(HPC_ACCEPTANCE), *args], capture_output=True,
                          text=True, env=dict(os.environ))
    return done.returncode, done.stdout + done.stderr


def _with(cases, node, check, factor):
    '''The cases of ``node``'s ``check`` with every figure ``factor`` as
    good (a time divided by it).'''
    for case in cases:
        if case['node'] == node and case['display_name'].startswith(check):
            for perf in case['perfvalues'].values():
                perf[0] = perf[0] / factor if perf[4] == 'ns' \
                    else perf[0] * factor

    return cases


def test_a_node_that_passed_its_retry_is_no_suspect_read_either_way(
        database):
    cases = fleet_cases.fleet(6, seed=4)
    first = next(c for c in cases if c['node'] == 'n3' and
                 c['display_name'].startswith('StreamCheck'))
    retry = json.loads(json.dumps(first))
    first.update(result='fail', fail_reason='triad below its reference')
    report = _night(database, 1, cases, [retry])

    from_report = _command('suspects', '--run-report', report)
    from_database = _command('suspects')
    assert from_report[0] == from_database[0] == 0
    for _, text in (from_report, from_database):
        assert 'cluster:compute: 0 suspect node(s) of 6' in text
        assert 'passed only when retried: n3: StreamCheck' in text

    status, text = _command('verdict', report, '0')
    assert status == 0
    assert 'passed only when retried: StreamCheck' in text


def test_a_whole_fleet_that_lost_half_fails_against_its_earlier_runs(
        database):
    for night in range(1, 4):
        _night(database, night, fleet_cases.fleet(8, seed=night))

    slow = fleet_cases.fleet(8, seed=9, slow={
        f'n{i}': (0.5, ('StreamCheck',)) for i in range(1, 9)})
    report = _night(database, 4, slow)
    status, text = _command('verdict', report, '0')
    assert status == 1, text
    assert 'the fleet as a whole lost StreamCheck %threads=single copy' \
        in text
    assert 'earlier fleet runs' in text and '(median of 3)' in text
    assert text.splitlines()[-1].startswith('acceptance FAILED')
    # no node stands out: nothing to drain
    assert 'suspect node' not in text.splitlines()[-1]
    status, text = _command('suspects', '--format', 'slurm')
    assert status == 1 and 'scontrol update' not in text


def test_a_whole_fleet_below_its_references_fails_without_history():
    cases = fleet_cases.fleet(8, slow={f'n{i}': (0.5, ('StreamCheck',))
                                       for i in range(1, 9)})
    for case in cases:
        for name, perf in case['perfvalues'].items():
            level = dict((f, v) for f, _, v in fleet_cases.FIGURES[
                case['display_name'].split()[0]])[name.split(':')[-1]]
            perf[1:4] = [level, -0.2, None] if perf[4] != 'ns' \
                else [level, None, 0.25]

    (partition,) = comparison.compare(cases)
    lost = {s.figure.variable for s in partition.fleet_losses}
    assert lost == {'copy', 'scale', 'add', 'triad', 'core_clock'}
    assert all(s.against.source == 'reference'
               for s in partition.fleet_losses)


def test_a_fleet_with_nothing_to_compare_its_median_with_says_so(tmp_path):
    status, message = verdict.judge(
        {'runs': [{'testcases': fleet_cases.fleet(6)}]},
        db_path=str(tmp_path / 'results.db'))
    assert status == 0
    assert message.startswith(f'acceptance passed — '
                              f'{verdict.ACROSS_NODES_ONLY}')


def test_half_a_fleet_at_half_speed_is_not_uniform_not_five_suspects(
        tmp_path):
    cases = fleet_cases.fleet(10, slow={f'n{i}': (0.5, ('StreamCheck',))
                                        for i in range(6, 11)})
    status, message = verdict.judge({'runs': [{'testcases': cases}]},
                                    db_path=str(tmp_path / 'results.db'))
    assert status == 1
    assert ('not uniform: StreamCheck %threads=single copy splits into 5 '
            'node(s) at' in message)
    assert '(n6, n7, n8, n9, n10)' in message
    (partition,) = comparison.compare(cases)
    assert partition.suspects == []


def test_two_hardware_generations_are_two_fleets():
    cases = _with(fleet_cases.with_fingerprint(
        fleet_cases.fleet(10), {'n7', 'n8', 'n9', 'n10'},
        cpu='Intel(R) Xeon(R) Gold 6130'), None, '', 1.0)
    for node in ('n7', 'n8', 'n9', 'n10'):
        for check in fleet_cases.FIGURES:
            _with(cases, node, check, 0.7)

    (partition,) = comparison.compare(cases)
    assert partition.suspects == [] and partition.not_uniform == []
    assert [g.nodes for g in partition.judged_groups] == [
        ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'], ['n10', 'n7', 'n8', 'n9']]
    lines = text_lines([partition])
    assert 'cluster:compute: 2 groups of nodes of other hardware or ' \
        'software, each judged on its own:' in lines
    # the same figures without the fingerprint that explains them
    plain = fleet_cases.fleet(10)
    for node in ('n7', 'n8', 'n9', 'n10'):
        for check in fleet_cases.FIGURES:
            _with(plain, node, check, 0.7)

    (partition,) = comparison.compare(plain)
    assert partition.suspects == [] and partition.not_uniform


@pytest.mark.parametrize('odd, differs', [
    ({'memory_gib': 480}, 'memory 480 GiB (others: 512 GiB)'),
    ({'bios': 'Dell Inc. 2.0.1 01/10/2024'},
     'bios Dell Inc. 2.0.1 01/10/2024 (others: Dell Inc. 2.1.5 05/10/2024)'),
])
def test_a_node_of_another_fingerprint_is_named_with_what_differs(odd,
                                                                  differs):
    cases = fleet_cases.with_fingerprint(fleet_cases.fleet(8), {'n4'}, **odd)
    (partition,) = comparison.compare(cases)
    (suspect,) = partition.suspects
    assert (suspect.node, suspect.differs) == ('n4', [differs])
    assert suspect.describe() == (
        f"n4: differs from the partition's other nodes: {differs}")
    assert all('n4' not in s.values for s in partition.spreads)


def test_memory_a_few_megabytes_apart_is_the_same_memory():
    cases = fleet_cases.with_fingerprint(fleet_cases.fleet(6), set())
    for case in cases:
        if case['node'] == 'n2':
            case['node_hardware'] = case['node_hardware'].replace(
                f'memory_kb={512 * 2 ** 20}',
                f'memory_kb={512 * 2 ** 20 - 9000}')

    (partition,) = comparison.compare(cases)
    assert partition.suspects == [] and len(partition.groups) == 1


def test_a_figure_of_zero_is_the_worst_and_drawn_as_such():
    cases = fleet_cases.fleet(8, slow={'n2': (0.5, ('MemoryDaxpyCheck',))})
    zero = next(c for c in cases if c['node'] == 'n5' and
                c['display_name'].startswith('StreamCheck'))
    zero['perfvalues']['cluster:compute:triad'][0] = 0.0
    (partition,) = comparison.compare(cases)
    assert partition.suspects[0].node == 'n5'
    worst = partition.suspects[0].outliers[0]
    assert (worst.figure.variable, worst.value) == ('triad', 0.0)
    nodes, spreads, changes, marked = heat_map.matrix(partition)
    column = [heat_map.column_label(s.figure) for s in spreads].index(
        'Stream single triad')
    assert changes[nodes.index('n5'), column] == -1.0
    assert (nodes.index('n5'), column) in marked


def test_nothing_to_compare_exits_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))
    path = tmp_path / 'report.json'
    path.write_text(json.dumps({'session_info': {'fleet': 'yes', 'uuid': SESSION}, 'runs': [
        {'testcases': fleet_cases.fleet(3)}]}))
    assert cli.main(['suspects', '--run-report', str(path)]) == 2
    assert 'nothing could be compared' in capsys.readouterr().err
