'''Reference files: location and shape checks
(hpc_acceptance.core.references).'''

import os
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
    assert references.reference_file('cluster', [str(tmp_path)]).endswith(
        'cluster.yaml')
    assert references.reference_file('other', [str(tmp_path)]) is None


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


PARTITIONS = ['cluster:compute', 'cluster:login']


def test_check_files_reads_every_file_of_every_directory(tmp_path):
    write(tmp_path, GOOD)
    (tmp_path / 'site').mkdir()
    write(tmp_path / 'site', GOOD.replace('-0.1,', '0.1,'), name='other.yaml')
    references.check_files([str(tmp_path), str(tmp_path / 'no-such-dir')])
    with pytest.raises(ReferenceFileError, match=r'other\.yaml: .*lower '
                                                 r'tolerance 0\.1'):
        references.check_files([str(tmp_path), str(tmp_path / 'site')])


def test_a_site_directory_comes_before_the_checkout(tmp_path, monkeypatch):
    from hpc_acceptance.core import site
    from hpc_acceptance.core.paths import REFERENCE_DIR
    # the directory given, whatever the environment names
    monkeypatch.setenv(site.VARIABLE, '/elsewhere')
    assert references.search_dirs(None, tmp_path) == [
        str(tmp_path / 'reference'), str(REFERENCE_DIR)]
    # the first is where new files go; a configured prefix is the only place
    assert references.search_dirs('/refs', tmp_path) == ['/refs']
    assert references.search_dirs(None, None) == [str(REFERENCE_DIR)]
    # the first that has the system's file
    (tmp_path / 'reference').mkdir()
    write(tmp_path / 'reference', GOOD)
    assert references.reference_file('cluster', references.search_dirs(
        None, tmp_path)) == str(tmp_path / 'reference' / 'cluster.yaml')


def test_partition_keys_must_match_a_partition(tmp_path):
    path = write(tmp_path, GOOD.replace("'cluster:compute'", "'cluster:gpu'"))
    with pytest.raises(ReferenceFileError,
                       match=r'MemoryReadBandwidthCheck\.cluster:gpu: '
                             r'matches no partition of the system'):
        references.load_for(path, PARTITIONS)


def test_partition_keys_may_be_regexes_as_in_reframe(tmp_path):
    path = write(tmp_path, GOOD.replace("'cluster:compute'", "'cluster:.*'"))
    assert references.load_for(path, PARTITIONS)


def test_load_for_sees_a_changed_file(tmp_path):
    path = write(tmp_path, GOOD)
    assert references.load_for(path, PARTITIONS)
    write(tmp_path, GOOD.replace("'cluster:compute'", "'cluster:gpu'"))
    os.utime(path, ns=(1, 1))
    with pytest.raises(ReferenceFileError, match='matches no partition'):
        references.load_for(path, PARTITIONS)


def test_a_missing_entry_names_a_near_one(tmp_path):
    data = references.load(write(tmp_path, GOOD.replace(
        'MemoryReadBandwidthCheck', 'MemoryReadBandwithCheck')))
    err = references.no_entry('f.yaml', 'MemoryReadBandwidthCheck', data)
    assert str(err) == ('f.yaml: no entry for MemoryReadBandwidthCheck (it '
                        'has MemoryReadBandwithCheck: a misspelling?)')
    assert str(references.no_entry('f.yaml', 'NpbCgCheck', data)) == \
        'f.yaml: no entry for NpbCgCheck'


def test_check_variables_wants_known_names_and_same_units():
    entry = {'bandwidth_l1': [1, -0.1, None, 'GB/s']}
    with pytest.raises(ReferenceFileError,
                       match="unit 'GB/s' differs from the check's 'MB/s'"):
        references.check_variables('f.yaml', 'X', entry,
                                   {'bandwidth_l1': 'MB/s'})

    with pytest.raises(ReferenceFileError,
                       match=r'X: bandwidth_l1: the check reports no such '
                             r'performance variable'):
        references.check_variables('f.yaml', 'X', dict(entry, bandwidth_l2=[
            1, -0.1, None, 'MB/s']), {'bandwidth_l2': 'MB/s'})


def test_an_entry_may_bound_what_the_program_prints_once_it_ran():
    # the repetitions' figures are the check's once its output is read:
    # an entry that bounds them is no error before
    entry = {'flops_l1': [1, -0.1, None, 'MFLOP/s'],
             'best_to_median_l1': [1, -0.8, None, 'ratio'],
             'flops_l1_median': [1, -0.5, None, 'MFLOP/s']}
    references.check_variables('f.yaml', 'X', entry, {'flops_l1': 'MFLOP/s'})


def test_check_variables_wants_every_figure_of_the_check():
    entry = {'bandwidth_l1': [1, -0.1, None, 'MB/s']}
    with pytest.raises(ReferenceFileError,
                       match=r'f\.yaml: X: no reference for core_clock'):
        references.check_variables('f.yaml', 'X', entry,
                                   {'bandwidth_l1': 'MB/s',
                                    'core_clock': 'GHz'})


REFERENCE_IDENTITY = 'dependency=npb_dir;isa_built=not stated;npb_class=W;'\
                     'num_tasks=2'


def test_an_identity_key_of_the_same_inputs_is_found():
    # before the run the built ISA is not known yet ('?'): not compared
    run = 'dependency=npb_dir;isa_built=?;npb_class=W;num_tasks=2'
    assert references.identity_key('f.yaml', 'X', ['npb_class=C;num_tasks=2',
                                                   REFERENCE_IDENTITY],
                                   run) == REFERENCE_IDENTITY


def test_a_smaller_class_against_class_c_references_is_refused():
    # a run of another class must not pass as "faster"; the message names
    # both classes
    run = REFERENCE_IDENTITY.replace('npb_class=W', 'npb_class=C')
    with pytest.raises(references.IdentityMismatch,
                       match=r'f\.yaml: X: the references were measured '
                             r'with other inputs .*npb_class: '
                             r'reference W, this run C'):
        references.identity_key('f.yaml', 'X', [REFERENCE_IDENTITY], run)


def test_a_build_for_another_isa_is_refused_once_known():
    # kernels built for sse4.2 presented as native: the built ISA is known
    # after the run, when the entry is looked up again
    reference = REFERENCE_IDENTITY.replace('not stated', 'avx2')
    run = reference.replace('isa_built=avx2', 'isa_built=sse4.2')
    with pytest.raises(ReferenceFileError,
                       match=r'isa_built: reference avx2, this run sse4\.2'):
        references.identity_key('f.yaml', 'X', [reference], run)


def test_the_repetitions_figures_need_no_reference():
    entry = {'bandwidth_l1': [1, -0.1, None, 'MB/s']}
    references.check_variables('f.yaml', 'X', entry, {
        'bandwidth_l1': 'MB/s', 'bandwidth_l1_median': 'MB/s',
        'best_to_median_l1': 'ratio'})
    assert references.unbounded('best_to_median') and \
        references.unbounded('bandwidth_median')
    assert not references.unbounded('bandwidth_l1')
    # an entry that bounds them is held to them
    with pytest.raises(ReferenceFileError, match='unit'):
        references.check_variables('f.yaml', 'X', dict(
            entry, best_to_median_l1=[1, -0.1, None, 'MB/s']),
            {'bandwidth_l1': 'MB/s', 'best_to_median_l1': 'ratio'})
