'''A system's own noise floors (hpc_acceptance.tools.references.
calibration): measured from its quiet repeats, kept with its references
with their provenance, and used by the post-upgrade verdict.'''

import random

import pytest
import yaml

from hpc_acceptance.tools.references import calibration, noise
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.references import propose_references
from hpc_acceptance.tools.upgrade import baseline as bl
from hpc_acceptance.tools.upgrade.judgement import judge


def case(session, value, name='MemoryReadBandwidthCheck %threads=single',
         variable='bandwidth_memory', system='local'):
    return {'display_name': name, 'result': 'pass', 'system': system,
            'partition': 'default', 'environ': 'gnu',
            'identity': 'num_cpus_per_task=1', 'fixture': False,
            'session_uuid': f'session-{session}',
            'perfvalues': {f'{system}:default:{variable}': [
                value, 0, None, None, 'MB/s', 'pass']}}


def quiet_repeats(noise_level, sessions=8, seed=0):
    rng = random.Random(seed)
    return [case(s, level * (1 + noise_level * rng.gauss(0, 1)),
                 variable=variable)
            for s in range(sessions)
            for variable, level in (('bandwidth_memory', 12000),
                                    ('bandwidth_l1', 90000))]


def test_a_quiet_node_measures_a_narrow_floor_a_noisy_one_a_wide_one():
    quiet, details, notes = calibration.measure(quiet_repeats(0.005),
                                                'local')
    assert set(quiet) == {'Memory'} and notes == []
    assert quiet['Memory'] == calibration.LEAST_FLOOR
    assert details['figures'] == {'Memory': 2}
    assert len(details['sessions']) == 8 and details['runs'] == [8, 8]
    noisy, _, _ = calibration.measure(quiet_repeats(0.05), 'local')
    assert noisy['Memory'] > 0.1


def test_figures_of_too_few_runs_are_left_out_and_said():
    floors, _, notes = calibration.measure(quiet_repeats(0.01, sessions=3),
                                           'local')
    assert floors == {}
    assert notes and 'need 5: left out' in notes[0]


def test_the_floors_are_written_with_provenance_and_read_back(tmp_path):
    floors, details, _ = calibration.measure(quiet_repeats(0.01), 'local')
    content = calibration.document(floors, details, 'hpc-acceptance x')
    path = calibration.path_of('local', [str(tmp_path)])
    assert path == str(tmp_path / 'local' / 'noise.yaml')
    calibration.write(path, content)
    written = yaml.safe_load(open(path))
    assert written['provenance']['sessions']['count'] == 8
    assert written['provenance']['method'] == calibration.METHOD
    assert written['provenance']['command'] == 'hpc-acceptance x'
    assert calibration.load('local', [str(tmp_path)])[0] == floors
    found, line = calibration.floors_of('local', [str(tmp_path)])
    assert found == floors
    own = f"system local's own (Memory {100 * floors['Memory']:.1f} %)"
    assert own in line
    assert 'built-in for Hpcc, Network, Npb, Stream' in line


def test_a_system_without_its_own_says_the_built_in_floors_apply(tmp_path):
    floors, line = calibration.floors_of('other', [str(tmp_path)])
    assert floors == {}
    assert line.startswith('noise floors: built-in family floors (Stream '
                           '25 %, Memory 15 %')
    assert 'propose-references --calibrate-noise --system other' in line


def test_a_broken_noise_file_is_named_and_the_built_in_floors_used(
        tmp_path):
    path = tmp_path / 'local' / 'noise.yaml'
    path.parent.mkdir()
    path.write_text('floors: {Memroy: 0.1}\n')
    floors, line = calibration.floors_of('local', [str(tmp_path)])
    assert floors == {}
    assert str(path) in line and "unknown family 'Memroy'" in line


def test_an_8_percent_loss_regresses_on_a_system_whose_noise_allows_it(
        tmp_path):
    # three --before runs agreeing within 0.3 %, then 8 % less memory
    # bandwidth: within the built-in 15 % floor, beyond a measured one
    before = bl.collect('before', [case(f'b{n}', v)
                                   for n, v in enumerate((12000, 12020,
                                                          12035))])
    after = [case('after', 12000 * 0.92)]
    baselines = [before, bl.collect('nightly', [])]
    row, = judge(after, baselines)
    assert (row['verdict'], row['band']) == ('within noise', 0.15)

    floors, details, _ = calibration.measure(quiet_repeats(0.005), 'local')
    calibration.write(calibration.path_of('local', [str(tmp_path)]),
                      calibration.document(floors, details, 'x'))
    own, _ = calibration.floors_of(calibration.system_of(after),
                                   [str(tmp_path)])
    row, = judge(after, baselines, floors=own)
    assert row['verdict'] == 'regressed'
    assert row['band'] == pytest.approx(noise.family_floor(
        'MemoryReadBandwidthCheck', own))


def test_calibrate_noise_writes_only_with_write(tmp_path, monkeypatch,
                                                capsys):
    monkeypatch.setattr(propose_references, 'stored_testcases',
                        lambda query, db_path: quiet_repeats(0.01))
    args = ['propose-references', '--system', 'local', '--calibrate-noise',
            '--reference-dir', str(tmp_path)]
    assert cli.main(args) == 0
    assert 'floors:' in capsys.readouterr().out
    assert not (tmp_path / 'local' / 'noise.yaml').exists()
    assert cli.main(args + ['--write']) == 0
    assert calibration.load('local', [str(tmp_path)])[0]['Memory'] >= 0.02
    # no runs of the system: said, exit 1
    assert cli.main(['propose-references', '--system', 'none',
                     '--calibrate-noise', '--reference-dir',
                     str(tmp_path)]) == 1
    assert 'has enough passed runs' in capsys.readouterr().err


def test_floors_of_runs_that_were_not_quiet_are_refused(
        tmp_path, monkeypatch, capsys):
    rng = random.Random(3)
    # a busy guest: memory bandwidth halves on some nights
    busy = [case(s, 12000 * rng.choice((1, 0.1)) * (1 + 0.01 * rng.random()))
            for s in range(12)]
    monkeypatch.setattr(propose_references, 'stored_testcases',
                        lambda query, db_path: busy)
    assert cli.main(['propose-references', '--system', 'local',
                     '--calibrate-noise', '--write', '--reference-dir',
                     str(tmp_path)]) == 1
    assert 'REFUSED: the floor of Memory bounds nothing' in \
        capsys.readouterr().err
    assert not (tmp_path / 'local' / 'noise.yaml').exists()
