'''Judging an acceptance run from ReFrame's report
(hpc_acceptance.tools.outcome.verdict).'''

import json

import pytest

from helpers import fleet_cases
from helpers.fleet_cases import SESSION
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.common import command_settings
from hpc_acceptance.tools.outcome import acceptance_verdict as verdict
from hpc_acceptance.tools.references import unreferenced

#: A results database that does not exist: the runs judged here have no
#: earlier fleet run to be compared with.
NO_DATABASE = '/nonexistent/results.db'


def report(*results, fixture_results=()):
    where = {'system': 'local', 'partition': 'default', 'environ': 'gnu'}
    cases = [{'display_name': f'Check{i}', 'result': r, 'fixture': False,
              'fail_reason': 'sanity error' if r == 'fail' else None,
              **where} for i, r in enumerate(results)]
    cases += [{'display_name': f'Build{i}', 'result': r, 'fixture': True,
               'fail_reason': 'build error' if r == 'fail' else None,
               **where} for i, r in enumerate(fixture_results)]
    return {'runs': [{'testcases': cases}]}


def test_passed_checks_are_a_validation():
    status, message = verdict.judge(report('pass', 'pass', 'skip',
                                           fixture_results=['pass']),
                                    db_path=NO_DATABASE)
    assert status == 0
    assert message == 'acceptance passed (2 pass, 1 skip)'


def test_a_failure_fails_and_is_named():
    status, message = verdict.judge(report('pass', 'fail'),
                                    db_path=NO_DATABASE)
    assert status == 1
    assert 'Check1: sanity error' in message


def test_a_failed_fixture_fails_the_run():
    status, message = verdict.judge(report('fail_deps',
                                           fixture_results=['fail']),
                                    db_path=NO_DATABASE)
    assert status == 1
    assert 'Build0 (fixture): build error' in message


def test_all_skipped_is_not_a_validation():
    status, message = verdict.judge(report('skip', 'skip'),
                                    db_path=NO_DATABASE)
    assert status == 2
    assert 'every check was skipped' in message


def test_nothing_selected_is_not_a_validation():
    status, message = verdict.judge({'runs': [{'testcases': []}]},
                                    db_path=NO_DATABASE)
    assert status == 2
    assert 'no check was selected' in message


def test_only_the_last_retry_counts():
    first = report('fail')['runs'][0]
    last = report('pass')['runs'][0]
    assert verdict.judge({'runs': [first, last]}, db_path=NO_DATABASE)[0] == 0


def retried(first_results, retry_results):
    '''A report of a run and a retry of the checks that failed in it
    (ReFrame's --max-retries: the retry holds only those).'''
    [first] = report(*first_results)['runs']
    again = [dict(case, result=result) for case, result in
             zip([c for c in first['testcases'] if c['result'] == 'fail'],
                 retry_results)]
    return {'runs': [first, {'testcases': again}]}


def test_a_check_that_passes_its_retry_passes_and_is_named():
    status, message = verdict.judge(retried(['pass', 'fail', 'skip'],
                                            ['pass']), db_path=NO_DATABASE)
    assert status == 0
    assert message == ('acceptance passed (2 pass, 1 skip); passed only '
                       'when retried: Check1')


def test_a_check_that_fails_its_retry_fails():
    status, message = verdict.judge(retried(['pass', 'fail'], ['fail']),
                                    db_path=NO_DATABASE)
    assert status == 1
    assert message.splitlines()[-1].startswith(
        'acceptance FAILED (1 fail, 1 pass)')
    assert 'Check1: sanity error' in message


def test_a_suspect_node_fails_the_run_and_the_last_line_names_it():
    cases = fleet_cases.fleet(6, slow={'n5': (0.6, ('StreamCheck',))})
    status, message = verdict.judge({'runs': [{'testcases': cases}]},
                                    db_path=NO_DATABASE)
    assert status == 1
    assert message.splitlines()[-1] == (
        f'acceptance FAILED ({len(cases)} pass): 1 suspect node(s): n5 '
        f'(cluster:compute); see hpc-acceptance suspects')


def test_a_quiet_fleet_passes_saying_it_was_judged_across_nodes_only():
    cases = fleet_cases.fleet(6)
    assert verdict.judge({'runs': [{'testcases': cases}]},
                         db_path=NO_DATABASE) == (
        0, f'acceptance passed — {verdict.ACROSS_NODES_ONLY} '
           f'({len(cases)} pass)')


def _write(path, *results):
    '''A report of checks named after the file, so that two reports hold
    different checks, as a fleet run's two do.'''
    data = report(*results)
    for case in data['runs'][0]['testcases']:
        case['display_name'] = f'{path.stem}{case["display_name"]}'

    path.write_text(json.dumps(dict(data, session_info={'uuid': SESSION})))
    return str(path)


def test_the_runs_of_a_fleet_run_are_judged_as_one(tmp_path, capsys):
    nodes = _write(tmp_path / 'nodes.json', 'pass', 'pass')
    multinode = _write(tmp_path / 'multinode.json', 'fail')
    assert cli.main(['verdict', nodes, '0', multinode, '1']) == 1
    assert capsys.readouterr().err.splitlines()[-1] == \
        'acceptance FAILED (1 fail, 2 pass): 1 failure(s)'


def test_a_run_that_selected_nothing_adds_nothing(tmp_path, capsys):
    nodes = _write(tmp_path / 'nodes.json', 'pass')
    assert cli.main(['verdict', nodes, '0', str(tmp_path / 'none.json'), '0']) == 0
    assert capsys.readouterr().out == 'acceptance passed (1 pass)\n'


def test_a_run_that_stopped_before_its_report_is_not_judged(tmp_path,
                                                            capsys):
    nodes = _write(tmp_path / 'nodes.json', 'pass')
    assert cli.main(['verdict', nodes, '0', str(tmp_path / 'none.json'), '1']) == 3
    assert 'ReFrame stopped with status 1 before writing' in \
        capsys.readouterr().err


def test_no_report_after_a_clean_exit_means_nothing_ran(tmp_path, capsys):
    assert cli.main(['verdict', str(tmp_path / 'none.json'), '0']) == 2
    assert 'no check was selected' in capsys.readouterr().err


def test_no_report_after_a_crash_is_reported(tmp_path, capsys):
    assert cli.main(['verdict', str(tmp_path / 'none.json'), '1']) == 3
    assert 'ReFrame stopped with status 1' in capsys.readouterr().err


def test_broken_report_is_reported(tmp_path, capsys):
    broken = tmp_path / 'broken.json'
    broken.write_text('{"runs": [')
    assert cli.main(['verdict', str(broken), '0']) == 3
    assert 'cannot read the run report' in capsys.readouterr().err


def test_main_reads_a_report_file(tmp_path):
    path = tmp_path / 'report.json'
    path.write_text(json.dumps(dict(report('pass'),
                                    session_info={'uuid': SESSION})))
    assert cli.main(['verdict', str(path), '0']) == 0


def on(system, reference_file, report_data):
    for case in report_data['runs'][0]['testcases']:
        case.update(system=system, reference_file=reference_file)

    return report_data


@pytest.fixture
def no_site_setting(monkeypatch):
    monkeypatch.delenv(unreferenced.VARIABLE, raising=False)


def test_a_run_judged_by_a_reference_file_passes_plainly(no_site_setting):
    status, message = verdict.judge(
        on('cluster', 'reference/cluster.yaml', report('pass')),
        db_path=NO_DATABASE)
    assert (status, message) == (0, 'acceptance passed (1 pass)')


def test_the_embedded_default_without_references_passes_saying_so(
        no_site_setting):
    status, message = verdict.judge(on('local', 'none', report('pass')),
                                    db_path=NO_DATABASE)
    assert status == 0
    assert message == ('acceptance passed — not judged against references '
                       '(1 pass)')


def test_a_site_system_without_references_is_not_validated(
        no_site_setting):
    status, message = verdict.judge(on('cluster', 'none', report('pass')),
                                    db_path=NO_DATABASE)
    assert status == 2
    assert message.startswith('acceptance NOT VALIDATED: no reference file '
                              'for cluster (1 pass; reference/cluster.yaml '
                              'missing)')
    assert f'{unreferenced.VARIABLE}=cluster' in message


@pytest.mark.parametrize('setting', ['cluster', 'other, cluster', 'all'])
def test_a_site_may_accept_runs_without_references(monkeypatch, setting):
    monkeypatch.setenv(unreferenced.VARIABLE, setting)
    # the list is read with the command's settings, and judged with
    status, message = verdict.judge(
        on('cluster', 'none', report('pass')),
        unreferenced_ok=command_settings.read().unreferenced_ok,
        db_path=NO_DATABASE)
    assert status == 0
    assert 'not judged against references' in message


def _fleet_report(nodes):
    cases = fleet_cases.fleet(nodes)
    for case in cases:
        case['reference_file'] = 'none'

    return {'runs': [{'testcases': cases}]}


def test_a_fleet_run_judges_its_nodes_by_each_other_without_references(
        no_site_setting):
    # the first night of a new partition: no reference file, no history,
    # and its nodes compared with each other
    status, message = verdict.judge(_fleet_report(6), db_path=NO_DATABASE)
    assert status == 0
    assert message.startswith(
        f'acceptance passed — {verdict.ACROSS_NODES_ONLY} (')
    assert unreferenced.NOT_JUDGED not in message


def test_a_fleet_too_small_to_compare_needs_references(no_site_setting):
    status, message = verdict.judge(_fleet_report(3), db_path=NO_DATABASE)
    assert status == 2
    assert message.startswith('acceptance NOT VALIDATED: no reference file '
                              'for cluster')
