'''The test files' own rule: pytest imports them by their base name (the
test folders are no packages), so two files of one name anywhere under
tests/ stop the whole run at collection, on CI too.'''

from collections import Counter

from conftest import PROJECT_DIR


def test_no_two_test_files_share_a_name():
    names = Counter(path.name for path in
                    (PROJECT_DIR / 'tests').rglob('test_*.py'))
    assert [name for name, count in names.items() if count > 1] == []
