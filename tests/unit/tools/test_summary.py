'''The console summary: one screen, whatever the run.'''

import copy
import json

from conftest import DATA_DIR

from hpc_acceptance.tools import skips, summary

RUN = DATA_DIR / 'reframe_runs'


def _cases():
    report = json.loads((RUN / 'nightly-report.json').read_text())
    return report['runs'][-1]['testcases']


def test_families_are_counted_from_the_real_report():
    cases = _cases()
    families = summary.tally(cases)
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

    lines = summary.render(cases + failed, skips.reasons(
        cases, skips.read(RUN / 'nightly-console.log')))
    assert len(lines) <= summary.MAX_LINES
    assert all(len(line) <= 100 for line in lines)
    assert any('more: see the report page' in line for line in lines)
    assert any('Broken0' in line and 'sanity' in line for line in lines)


def test_left_out_variants_are_stated_once():
    cases = _cases()
    for case in cases:
        case['variants_left_out'] = 'NPB: process counts above 2'

    lines = summary.render(cases, [])
    assert sum('NPB: process counts' in line for line in lines) == 1


def test_cli_prints_the_summary(capsys):
    assert summary.main([str(RUN / 'nightly-report.json'), '--log',
                         str(RUN / 'nightly-console.log')]) == 0
    out = capsys.readouterr().out
    assert out.startswith('== acceptance summary')
    assert 'skipped, by reason (22):' in out


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
    assert summary.main([str(tmp_path / 'report.json')]) == 0
    without_log = capsys.readouterr().out
    assert summary.main([str(RUN / 'nightly-report.json'), '--log',
                         str(RUN / 'nightly-console.log')]) == 0
    assert without_log == capsys.readouterr().out
    assert 'skipped, by reason (22):' in without_log
    assert skips.NOT_RECORDED not in without_log
