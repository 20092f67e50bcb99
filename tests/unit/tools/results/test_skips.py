'''Skip reasons: recorded by the checks, else read from ReFrame's real
console output (a run made before checks recorded them).'''

import json

from conftest import DATA_DIR

from hpc_acceptance.tools.results import skips

RUN = DATA_DIR / 'reframe_runs'
CONSOLE = RUN / 'nightly-console.log'


def _cases():
    '''The run's test cases, stored before checks recorded skip reasons.'''
    report = json.loads((RUN / 'nightly-report.json').read_text())
    return report['runs'][-1]['testcases']


def test_every_skip_line_is_read_with_its_reason():
    text = CONSOLE.read_text()
    found = skips.parse(text)
    assert len(found) == text.count('SKIP')
    case, reason = found[0]
    assert case.startswith('NpbCgCheck %isa=native')
    assert case.endswith('@local:default+gnu')
    assert reason.startswith('cg.W.x not found')
    assert not reason.endswith(']')


def test_a_run_without_recorded_reasons_takes_them_from_its_console():
    cases = _cases()
    found = skips.reasons(cases, skips.read(CONSOLE))
    # each report case is found by the name its console line gives it
    assert sorted(found) == sorted(skips.parse(CONSOLE.read_text()))
    assert len(found) == sum(c['result'] == 'skip' for c in cases)


def test_a_recorded_reason_is_the_reason():
    cases = _cases()
    for case in cases:
        if case['result'] == 'skip':
            case['skip_reason'] = f'recorded for {case["display_name"]}'

    found = skips.reasons(cases, skips.read(CONSOLE))
    assert found and all(reason == f'recorded for {name.split(" @")[0]}'
                         for name, reason in found)


def test_a_reason_neither_recorded_nor_in_a_console_is_said_to_be_missing(
        tmp_path):
    console = skips.read(tmp_path / 'absent.log')
    assert console is None
    found = skips.reasons(_cases(), console)
    assert found and {reason for _, reason in found} == {skips.NOT_RECORDED}


def test_reasons_are_grouped_with_their_checks_most_frequent_first():
    grouped = skips.by_reason([
        ('A %x=1 @s:p+e', 'no binary'), ('A %x=2 @s:p+e', 'no binary'),
        ('B @s:p+e', 'no binary'), ('C @s:p+e', 'one socket'),
    ])
    assert list(grouped) == ['no binary', 'one socket']
    assert grouped['no binary'] == {'A': 2, 'B': 1}


def test_the_npb_benchmarks_missing_binaries_are_one_reason():
    grouped = skips.by_reason(skips.parse(CONSOLE.read_text()))
    missing = [r for r in grouped if r.startswith('<benchmark>.W.x')]
    assert len(missing) == 1
    assert grouped[missing[0]] == {'NpbCgCheck': 2, 'NpbEpCheck': 2}
    assert 'names=<benchmark> classes=W' in missing[0]
    assert 'make <benchmark> CLASS=W' in missing[0]
    # "is" the word is not IS the benchmark
    assert "'<benchmark>.W.x' is not on PATH" in missing[0]
