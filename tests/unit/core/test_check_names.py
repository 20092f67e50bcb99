'''Finding check classes without importing them (check_names).'''

from hpc_acceptance.core.check_names import simple_test_classes
from conftest import PROJECT_DIR


def test_finds_decorated_classes_only(tmp_path):
    (tmp_path / 'family').mkdir()
    (tmp_path / 'family' / 'checks.py').write_text(
        'import reframe as rfm\n'
        'from reframe.core.decorators import simple_test\n'
        'class Base(rfm.RunOnlyRegressionTest):\n    pass\n'
        '@rfm.simple_test\nclass FirstCheck(Base):\n    pass\n'
        '@simple_test\nclass SecondCheck(Base):\n    pass\n'
    )
    assert simple_test_classes([tmp_path]) == {'FirstCheck', 'SecondCheck'}


def test_the_suites_memory_checks_are_found():
    names = simple_test_classes([PROJECT_DIR / 'checks'])
    assert {'MemoryLatencyCheck', 'MemoryNumaCheck'} <= names
    assert 'MemoryKernelCheck' not in names
