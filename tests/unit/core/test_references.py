'''Reference files: location and shape checks
(hpc_acceptance.core.references).'''

import re

import pytest

from hpc_acceptance.core import references
from hpc_acceptance.core.references import ReferenceFileError

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


def test_reference_files_are_reframe_errors():
    # so a check failing on one shows the message, not a source listing
    from reframe.core.exceptions import ReframeError
    assert issubclass(ReferenceFileError, ReframeError)


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


PARTITIONS = {'cluster': ['cluster:compute', 'cluster:login'],
              'local': ['local:default']}
CHECKS = {'MemoryReadBandwidthCheck', 'MemoryLatencyCheck'}


def load_dir(directory):
    return references.load_all(str(directory), partitions=PARTITIONS,
                               check_names=CHECKS)


def test_load_all_reads_every_system_file(tmp_path):
    write(tmp_path, GOOD)
    assert set(load_dir(tmp_path)) == {'cluster'}


def test_file_for_an_unknown_system_is_an_error(tmp_path):
    write(tmp_path, GOOD, name='clutser.yaml')
    with pytest.raises(ReferenceFileError,
                       match=r"clutser\.yaml: no system 'clutser' in the "
                             r"configuration \(systems: cluster, local\)"):
        load_dir(tmp_path)


def test_entry_for_an_unknown_check_is_an_error(tmp_path):
    write(tmp_path, GOOD.replace('MemoryReadBandwidthCheck',
                                 'MemoryReadBandwithCheck'))
    with pytest.raises(ReferenceFileError,
                       match='MemoryReadBandwithCheck: no such check'):
        load_dir(tmp_path)


def test_partition_keys_must_match_a_partition(tmp_path):
    write(tmp_path, GOOD.replace("'cluster:compute'", "'cluster:gpu'"))
    with pytest.raises(ReferenceFileError,
                       match=r'MemoryReadBandwidthCheck\.cluster:gpu: '
                             r'matches no partition of the system'):
        load_dir(tmp_path)


def test_partition_keys_may_be_regexes_as_in_reframe(tmp_path):
    write(tmp_path, GOOD.replace("'cluster:compute'", "'cluster:.*'"))
    assert load_dir(tmp_path)


class FakeTest:
    '''Stands in for a check: entry_for reads attributes by name.'''

    threads = 'single'

    class current_partition:
        fullname = 'cluster:compute'


def test_entry_for_walks_the_index(tmp_path):
    data = references.load(write(tmp_path, GOOD))
    where, entry = references.entry_for(
        'f.yaml', data['MemoryReadBandwidthCheck'], FakeTest())
    assert where == 'FakeTest.cluster:compute.single'
    assert set(entry) == {'bandwidth_l1', 'bandwidth_memory'}


def test_entry_for_names_the_missing_variant(tmp_path):
    data = references.load(write(tmp_path, GOOD))
    test = FakeTest()
    test.threads = 'all_cores'
    with pytest.raises(ReferenceFileError,
                       match=r"no entry for threads='all_cores' \(entries: "
                             r"'single'\)"):
        references.entry_for('f.yaml', data['MemoryReadBandwidthCheck'],
                             test)


def test_entry_for_names_an_index_attribute_the_check_lacks(tmp_path):
    data = references.load(write(tmp_path, GOOD.replace('threads]',
                                                        'cores]')))
    with pytest.raises(ReferenceFileError,
                       match=r"\$index names 'cores', which the check does "
                             r"not have"):
        references.entry_for('f.yaml', data['MemoryReadBandwidthCheck'],
                             FakeTest())


def test_check_variables_wants_known_names_and_same_units():
    entry = {'bandwidth_l1': [1, -0.1, None, 'GB/s']}
    with pytest.raises(ReferenceFileError,
                       match="unit 'GB/s' differs from the check's 'MB/s'"):
        references.check_variables('f.yaml', 'X', entry,
                                   {'bandwidth_l1': 'MB/s'})

    with pytest.raises(ReferenceFileError,
                       match=r'X\.bandwidth_l1: the check reports no such '
                             r'performance variable'):
        references.check_variables('f.yaml', 'X', dict(entry, bandwidth_l2=[
            1, -0.1, None, 'MB/s']), {'bandwidth_l2': 'MB/s'})


def test_check_variables_wants_every_figure_of_the_check():
    entry = {'bandwidth_l1': [1, -0.1, None, 'MB/s']}
    with pytest.raises(ReferenceFileError,
                       match=r'f\.yaml: X: no reference for core_clock'):
        references.check_variables('f.yaml', 'X', entry,
                                   {'bandwidth_l1': 'MB/s',
                                    'core_clock': 'GHz'})


def test_entry_for_tells_numbers_from_strings_as_reframe_does(tmp_path):
    # YAML '2' is a string; ReFrame looks up an int parameter 2 exactly
    path = write(tmp_path, "DotCheck:\n  $index: [streams]\n"
                           "  '2':\n    bandwidth: [1, -0.1, 0.1, MB/s]\n")
    test = FakeTest()
    test.streams = 2
    with pytest.raises(ReferenceFileError,
                       match=r"no entry for streams=2 \(entries: '2'\)"):
        references.entry_for(path, references.load(path)['DotCheck'], test)


BY_IDENTITY = '''
NpbCgCheck:
  $index: [$partition, identity]
  'cluster:compute':
    'dependency=npb_dir;isa_built=not stated;npb_class=W;num_tasks=2':
      time: [1.5, null, 0.1, s]
'''


class FakeNpb:
    identity = 'dependency=npb_dir;isa_built=?;npb_class=W;num_tasks=2'

    class current_partition:
        fullname = 'cluster:compute'


def test_an_identity_index_finds_the_entry_of_the_same_inputs(tmp_path):
    data = references.load(write(tmp_path, BY_IDENTITY))
    # before the run the built ISA is not known yet ('?'): not compared
    where, entry = references.entry_for('f.yaml', data['NpbCgCheck'],
                                        FakeNpb())
    assert where == 'FakeNpb.cluster:compute.identity'
    assert entry['time'][0] == 1.5


def test_a_smaller_class_against_class_c_references_is_refused(tmp_path):
    # fault (d) of issue 15: a run of another class must not pass as
    # "faster"; the message names both classes
    data = references.load(write(tmp_path, BY_IDENTITY))
    test = FakeNpb()
    test.identity = test.identity.replace('npb_class=W', 'npb_class=C')
    with pytest.raises(ReferenceFileError,
                       match=r'identity mismatch: .*npb_class: reference '
                             r'W, this run C'):
        references.entry_for('f.yaml', data['NpbCgCheck'], test)


def test_a_build_for_another_isa_is_refused_once_known(tmp_path):
    # fault (c): kernels built for sse4.2 presented as native; the built
    # ISA is known after the run, when the entry is looked up again
    text = BY_IDENTITY.replace('not stated', 'avx2')
    data = references.load(write(tmp_path, text))
    test = FakeNpb()
    test.identity = test.identity.replace('isa_built=?', 'isa_built=sse4.2')
    with pytest.raises(ReferenceFileError,
                       match=r'isa_built: reference avx2, this run sse4\.2'):
        references.entry_for('f.yaml', data['NpbCgCheck'], test)
