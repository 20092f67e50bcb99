'''Proposing references from stored sessions (propose_references).

stored-testcases.memory.json is ReFrame's --describe-stored-testcases
output of a real run of the memory checks on this machine (trimmed to the
fields the command reads).
'''

import json
import math

import pytest

from hpc_acceptance.tools import cli
from hpc_acceptance.tools.references import propose_references as pr
from hpc_acceptance.tools.results import atomic_file
from hpc_acceptance.tools.results import runs as results
from conftest import DATA_DIR

CASES = json.loads((DATA_DIR / 'results' /
                    'stored-testcases.memory.json').read_text())


def test_variant_comes_from_the_display_name():
    name = 'MemoryDotStreamsCheck %threads=single %streams=4'
    assert results.variant_of(name) == ('MemoryDotStreamsCheck',
                                        {'threads': 'single', 'streams': 4})


ID = 'dependency=in-tree;isa_built=avx2;num_cpus_per_task=1'

# The stored runs as checks record them now, with their identity.
WITH_ID = [dict(case, identity=ID) for case in CASES]


def test_collect_groups_passed_checks_by_variant_and_identity():
    collected, notes = pr.collect(WITH_ID, 'local')
    key = ('MemoryDotStreamsCheck', 'local:default', 'gnu',
           (('threads', 'all_cores'), ('streams', 8)), ID)
    values, unit = collected[key]['bandwidth']
    assert unit == 'MB/s' and len(values) == 1
    assert not notes
    assert not any(k[0] == 'MemoryKernelsBuild' for k in collected)
    # the NUMA check was skipped on this machine: nothing to propose
    assert not any(k[0] == 'MemoryNumaCheck' for k in collected)
    assert pr.collect(WITH_ID, 'other-system') == ({}, [])


def test_runs_stored_without_identity_are_left_out_and_said_so():
    collected, notes = pr.collect(CASES, 'local')
    assert collected == {}
    assert len(notes) == 1 and 'without an identity' in notes[0]


def npb_runs(npb_class, times):
    return [{'display_name': 'NpbCgCheck %num_procs=2', 'result': 'pass',
             'system': 'local', 'partition': 'default', 'environ': 'gnu',
             'identity': f'npb_class={npb_class};num_tasks=2',
             'perfvalues': {'local:default:time': [t, 0, None, None, 's',
                                                   'pass']}}
            for t in times]


def test_how_the_repetitions_went_is_proposed_no_reference():
    # a kernel's median repetition and best/median: the fleet's contention
    # rule reads them, no reference bounds them
    runs = npb_runs('W', [1.0, 1.1, 1.0])
    for run in runs:
        run['perfvalues'].update({
            'local:default:time_median': [1.2, 0, None, None, 's', 'pass'],
            'local:default:best_to_median_time': [0.9, 0, None, None,
                                                  'ratio', 'pass']})
    collected, _ = pr.collect(runs, 'local')
    assert [set(figures) for figures in collected.values()] == [{'time'}]


def test_two_classes_give_two_entries_never_one_median():
    runs = npb_runs('W', [1.0, 1.1, 1.0]) + npb_runs('C', [60, 61, 59])
    proposed, _ = pr.propose(pr.collect(runs, 'local')[0], floor=None,
                             min_runs=3)
    entry = proposed['NpbCgCheck']
    assert entry['$index'] == ['$partition', '$environ', 'num_procs',
                               'identity']
    by_identity = entry['local:default']['gnu'][2]
    assert by_identity['npb_class=W;num_tasks=2']['time'][0] == 1.0
    assert by_identity['npb_class=C;num_tasks=2']['time'][0] == 60


def test_propose_uses_the_median_and_needs_enough_runs():
    collected = {('C', 'sys:p', 'gnu', (('threads', 'single'),), 'n=1'): {
        'bw': ([90.0, 100.0, 104.0], 'MB/s'),
        'lat': ([1.0], 'ns'),
    }}
    proposed, notes = pr.propose(collected, floor=0.05, min_runs=3)
    # deviations as factors: median ln(1.04) -> 4 x 1.4826 x 0.0392 =
    # 0.233, a loss of 1 - e^-0.233 = 0.208; only the worse side bounded
    assert proposed == {'C': {
        '$index': ['$partition', '$environ', 'threads', 'identity'],
        'sys:p': {'gnu': {'single': {'n=1': {
            'bw': [100.0, -0.208, None, 'MB/s']}}}},
    }}
    assert [n for n in notes if not n.startswith('WARNING')] == [
        'C.sys:p.gnu.single.n=1.lat: 1 run(s), need 3: left out']


def test_times_are_bounded_above_and_the_family_floor_applies():
    collected = {('StreamCheck', 'sys:p', 'gnu', (), 'n=1'): {
        't': ([2.0, 2.0, 2.0], 's')}}
    proposed, _ = pr.propose(collected, floor=None, min_runs=3)
    # STREAM's floor, a quarter less rate, is a third more time
    assert proposed['StreamCheck']['sys:p']['gnu']['n=1']['t'] == [
        2.0, None, 0.333, 's']


def test_proposal_from_real_sessions_renders_as_a_valid_file(tmp_path):
    proposed, _ = pr.propose(pr.collect(WITH_ID, 'local')[0], floor=None,
                             min_runs=1)
    path = tmp_path / 'local.yaml'
    path.write_text(pr.render(proposed))
    from hpc_acceptance.core import references
    data = references.load(str(path))
    entry = data['MemoryLatencyCheck']['local:default']['gnu']['single'][ID]
    assert entry['latency_l1'][3] == 'ns'
    # latency: lower is better, only the upper side is bounded, by the
    # memory floor (0.15 of performance: 0.15 / 0.85 more time)
    assert entry['latency_l1'][1] is None
    assert entry['latency_l1'][2] == 0.176


def test_lower_tolerance_stays_above_minus_one():
    # a band is a loss of performance as a factor, never all of it
    collected = {('C', 'sys:p', 'gnu', (), 'n=1'): {
        'bw': ([10.0, 20.0, 30.0, 40.0, 90.0], 'MB/s')}}
    proposed, _ = pr.propose(collected, floor=0.05, min_runs=3)
    lower = proposed['C']['sys:p']['gnu']['n=1']['bw'][1]
    assert lower == pytest.approx(
        -(1 - math.exp(-4 * 1.4826 * math.log(1.5))), abs=1e-3)
    assert -1 < lower


def test_a_written_file_is_replaced_whole_or_not_at_all(tmp_path,
                                                        monkeypatch):
    path = tmp_path / 'local.yaml'
    path.write_text('old: {}\n')

    def killed(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic_file.os, 'replace', killed)
    with pytest.raises(KeyboardInterrupt):
        atomic_file.write_atomically(str(path), 'new: {}\n')

    assert path.read_text() == 'old: {}\n'
    assert [p.name for p in tmp_path.iterdir()] == ['local.yaml']


def test_merge_keeps_checks_the_sessions_do_not_cover():
    merged = pr.merge({'A': {'x': 1}, 'B': {'y': 2}}, {'B': {'y': 3}})
    assert merged == {'A': {'x': 1}, 'B': {'y': 3}}


def test_a_systems_family_floor_applies_to_that_family_only():
    collected = {
        ('MemoryDaxpyCheck', 'sys:p', 'gnu', (), 'n=1'): {
            't': ([2.0, 2.0, 2.0], 's')},
        ('StreamCheck', 'sys:p', 'gnu', (), 'n=1'): {
            't': ([2.0, 2.0, 2.0], 's')},
    }
    proposed, _ = pr.propose(collected, floor=None, min_runs=3,
                             floors={'Memory': 0.5})
    # half the rate, twice the time
    assert proposed['MemoryDaxpyCheck']['sys:p']['gnu']['n=1']['t'][2] == 1.0
    assert proposed['StreamCheck']['sys:p']['gnu']['n=1']['t'][2] == 0.333


@pytest.mark.parametrize('floor, named', [
    ('Memroy=0.5', "--floor Memroy=0.5: 'Memroy=0.5': unknown family"),
    ('1.5', '--floor 1.5: must be a fraction in [0, 1]'),
])
def test_a_bad_floor_option_is_named(capsys, floor, named):
    with pytest.raises(SystemExit) as stop:
        cli.main(['propose-references', '--system', 'local', '--floor',
                  floor])
    assert stop.value.code == 2
    assert named in capsys.readouterr().err


def _stream_entry(isa, value):
    return {'$index': ['$partition', '$environ', 'isa', 'identity'],
            'local:default': {'gnu': {isa: {'n=1': {
                'triad': [value, -0.25, None, 'MB/s']}}}}}


def test_re_proposing_keeps_the_variants_other_runs_taught():
    '''A nightly has the native variant only: re-proposing from nightly
    runs must not wipe the ISA variants a post-upgrade run gave.'''
    current = {'StreamCheck': _stream_entry('avx2', 30000.0)}
    proposed = {'StreamCheck': _stream_entry('native', 36000.0)}
    merged = pr.merge(current, proposed)
    levels = merged['StreamCheck']['local:default']['gnu']
    assert levels['avx2']['n=1']['triad'][0] == 30000.0
    assert levels['native']['n=1']['triad'][0] == 36000.0
    # the proposal replaces what it covers
    again = pr.merge(merged, {'StreamCheck': _stream_entry('avx2', 31000.0)})
    assert again['StreamCheck']['local:default']['gnu']['avx2']['n=1'][
        'triad'][0] == 31000.0


def test_a_check_whose_index_changed_is_replaced_whole():
    current = {'StreamCheck': _stream_entry('avx2', 30000.0)}
    proposed = {'StreamCheck': {'$index': ['$partition'],
                                'local:default': {'x': [1, None, None, 's']}}}
    assert pr.merge(current, proposed) == proposed


def _scattered(values, unit='MB/s', check='StreamCheck'):
    return {(check, 'sys:p', 'gnu', (), 'n=1'): {'bw': (values, unit)}}


def test_a_band_beyond_twice_the_minimum_is_warned_about():
    proposed, notes = pr.propose(_scattered([100.0, 100.0, 40.0]),
                                 floor=None, min_runs=3)
    assert proposed
    (note,) = notes
    assert note.startswith('WARNING StreamCheck.sys:p.gnu.n=1.bw: band ')
    assert 'more than 2x the minimum 25%' in note


def test_a_band_that_bounds_nothing_is_refused(tmp_path, monkeypatch,
                                               capsys):
    monkeypatch.setattr(pr, 'stored_testcases', lambda query, db_path: [
        {'display_name': 'StreamCheck', 'result': 'pass', 'system': 'sys',
         'partition': 'p', 'environ': 'gnu', 'identity': 'n=1',
         'perfvalues': {'sys:p:bw': [value, 0, None, None, 'MB/s', 'pass']}}
        for value in (100.0, 100.0, 5.0)])
    status = cli.main(['propose-references', '--system', 'sys',
                       '--reference-dir', str(tmp_path), '--write'])
    assert status == 1
    err = capsys.readouterr().err
    assert 'REFUSED StreamCheck.sys:p.gnu.n=1.bw: band ' in err
    assert 'not written' in err
    assert list(tmp_path.iterdir()) == []
