'''Reference files: location and shape checks (hpc_acceptance.references).'''

import re

import pytest

from hpc_acceptance import references
from hpc_acceptance.references import ReferenceFileError

GOOD = '''
MemoryReadBandwidthCheck:
  $index: [$partition, threads]
  'cluster:compute':
    single:
      bandwidth_l1: [250000, -0.1, null, MB/s]
      bandwidth_memory: [12000, -0.15, 0.5, MB/s]
'''


def write(tmp_path, text, name='cluster.yaml'):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_reference_file_is_looked_up_by_system_name(tmp_path):
    write(tmp_path, GOOD)
    assert references.reference_file('cluster', str(tmp_path)).endswith(
        'cluster.yaml')
    assert references.reference_file('other', str(tmp_path)) is None


def test_a_good_file_loads(tmp_path):
    data = references.load(write(tmp_path, GOOD))
    entry = data['MemoryReadBandwidthCheck']['cluster:compute']['single']
    assert entry['bandwidth_memory'] == [12000, -0.15, 0.5, 'MB/s']


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    path = write(tmp_path, 'MemoryLatencyCheck:\n  a: [1, 2\n  b: 3\n')
    with pytest.raises(ReferenceFileError,
                       match=r'cluster\.yaml: line \d+, column \d+'):
        references.load(path)


@pytest.mark.parametrize('entry, problem', [
    ('[250000, -0.1, null]', r'expected \[value, lower, upper, unit\]'),
    ('[fast, -0.1, 0.1, MB/s]', "value 'fast' is not a number"),
    ('[250000, 0.1, 0.1, MB/s]', 'lower tolerance 0.1 must be'),
    ('[250000, -0.1, -0.2, MB/s]', 'upper tolerance -0.2 must be'),
    ('[250000, -0.1, 0.1, 7]', 'unit 7 is not a string'),
])
def test_bad_entries_name_the_key_at_fault(tmp_path, entry, problem):
    text = GOOD.replace('[250000, -0.1, null, MB/s]', entry)
    with pytest.raises(ReferenceFileError) as err:
        references.load(write(tmp_path, text))

    message = str(err.value)
    assert ('MemoryReadBandwidthCheck.cluster:compute.single.bandwidth_l1'
            in message)
    assert 'cluster.yaml' in message
    assert re.search(problem, message)


def test_top_level_must_map_checks(tmp_path):
    with pytest.raises(ReferenceFileError, match='expected a mapping of '
                       'check names'):
        references.load(write(tmp_path, '- just\n- a list\n'))
