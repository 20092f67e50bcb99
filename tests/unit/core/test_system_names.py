'''The systems a checkout knows, read without ReFrame
(hpc_acceptance.core.system_names), as ci/nightly.sh asks before setup.'''

from hpc_acceptance.core import system_files, system_names


def test_the_names_are_those_reframe_loads():
    loaded = {system_files.load(path).system['name']
              for path in system_files.SYSTEMS_DIR.glob('*.py')}
    assert set(system_names.names()) == loaded


def test_a_computed_name_stands_for_any(tmp_path):
    (tmp_path / 'systems').mkdir()
    (tmp_path / 'systems' / 'made.py').write_text(
        "import os\nsystem = {'name': os.environ['NAME']}\n")
    (tmp_path / 'systems' / 'plain.py').write_text(
        "system = dict(name='x')\n")
    assert system_names.names(tmp_path).count(system_names.UNKNOWN) == 1
    assert 'local' in system_names.names(tmp_path)
