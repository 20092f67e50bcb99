'''The test files' own rules: pytest imports them by their base name (the
test folders are no packages), so two files of one name anywhere under
tests/ stop the whole run at collection, on CI too; and the tests of the
tools mirror the tools' rooms, so that the tests of a room are found in
``tests/unit/tools/<room>/``.'''

import ast
import re
from collections import Counter

from conftest import PROJECT_DIR

TOOLS = PROJECT_DIR / 'checks' / 'hpc_acceptance' / 'tools'
TOOLS_TESTS = PROJECT_DIR / 'tests' / 'unit' / 'tools'


def test_no_two_test_files_share_a_name():
    names = Counter(path.name for path in
                    (PROJECT_DIR / 'tests').rglob('test_*.py'))
    assert [name for name, count in names.items() if count > 1] == []


def rooms():
    return {path.parent.name for path in TOOLS.glob('*/__init__.py')}


def named_for(path, modules):
    '''Whether a test file's name names one of ``modules`` as a word.'''
    words = path.stem.removeprefix('test_')
    return any(re.search(rf'(^|_){module}(_|$)', words)
               for module in modules)


def imported_rooms(path):
    '''The rooms of tools/ a test file imports from.'''
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module] + [f'{node.module}.{alias.name}'
                                       for alias in node.names]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        imported.update(name.split('.')[2] for name in modules
                        if name.startswith('hpc_acceptance.tools.')
                        and name.count('.') >= 2)
    return imported


def test_the_tools_tests_have_a_folder_per_room_only():
    folders = {path.name for path in TOOLS_TESTS.iterdir()
               if path.is_dir() and any(path.glob('test_*.py'))}
    assert folders - rooms() == set()


def test_a_tools_test_is_about_the_room_of_its_folder():
    strays = []
    for path in TOOLS_TESTS.glob('*/test_*.py'):
        room = path.parent.name
        modules = {room} | {p.stem for p in (TOOLS / room).glob('*.py')}
        if room not in imported_rooms(path) and not named_for(path, modules):
            strays.append(path.relative_to(TOOLS_TESTS).as_posix())
    assert strays == []


def test_only_the_tests_of_tools_own_modules_lie_beside_the_rooms():
    # cli.py's tests: the modules of tools/ that are in no room
    own = {path.stem for path in TOOLS.glob('*.py')} - {'__init__'}
    strays = [path.name for path in TOOLS_TESTS.glob('test_*.py')
              if not named_for(path, own)]
    assert strays == []
