'''The systems a checkout knows, read without ReFrame
(hpc_acceptance.core.system_names), as ci/nightly.sh asks before setup.'''

from conftest import PROJECT_DIR
from hpc_acceptance.core import system_files, system_names

SYSTEMS = PROJECT_DIR / 'config' / 'systems'


def test_the_names_are_those_reframe_loads():
    loaded = {system_files.load(path).system['name']
              for path in SYSTEMS.glob('*.py')}
    assert set(system_names.names([SYSTEMS])) == loaded


def test_a_computed_name_stands_for_any(tmp_path):
    (tmp_path / 'made.py').write_text(
        "import os\nsystem = {'name': os.environ['NAME']}\n")
    assert system_names.names([SYSTEMS, tmp_path]) == sorted(
        [system_names.UNKNOWN, 'example-cluster', 'local'])
