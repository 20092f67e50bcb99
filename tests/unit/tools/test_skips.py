'''Skip reasons from ReFrame's real console output.'''

from conftest import DATA_DIR

from hpc_acceptance.tools import skips

CONSOLE = DATA_DIR / 'reframe_runs' / 'nightly-console.log'


def test_every_skip_line_is_read_with_its_reason():
    text = CONSOLE.read_text()
    found = skips.read(CONSOLE)
    assert len(found) == text.count('SKIP')
    case, reason = found[0]
    assert case.startswith('NpbCgCheck %isa=native')
    assert case.endswith('@local:default+gnu')
    assert reason.startswith('cg.W.x not found')
    assert not reason.endswith(']')


def test_reasons_are_grouped_with_their_checks_most_frequent_first():
    grouped = skips.by_reason([
        ('A %x=1 @s:p+e', 'no binary'), ('A %x=2 @s:p+e', 'no binary'),
        ('B @s:p+e', 'no binary'), ('C @s:p+e', 'one socket'),
    ])
    assert list(grouped) == ['no binary', 'one socket']
    assert grouped['no binary'] == {'A': 2, 'B': 1}


def test_a_missing_log_means_no_reasons_known(tmp_path):
    assert skips.read(tmp_path / 'absent.log') == []


def test_the_npb_benchmarks_missing_binaries_are_one_reason():
    grouped = skips.by_reason(skips.read(CONSOLE))
    missing = [r for r in grouped if r.startswith('<benchmark>.W.x')]
    assert len(missing) == 1
    assert grouped[missing[0]] == {'NpbCgCheck': 2, 'NpbEpCheck': 2}
    assert 'names=<benchmark> classes=W' in missing[0]
    assert 'make <benchmark> CLASS=W' in missing[0]
    # "is" the word is not IS the benchmark
    assert "'<benchmark>.W.x' is not on PATH" in missing[0]
