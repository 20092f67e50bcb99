'''Proposing references from stored sessions (propose_references).

stored-testcases.memory.json is ReFrame's --describe-stored-testcases
output of a real run of the memory checks on this machine (trimmed to the
fields the command reads).
'''

import json

import pytest

from hpc_acceptance.tools import propose_references as pr
from hpc_acceptance.tools import results
from conftest import DATA_DIR

CASES = json.loads((DATA_DIR / 'results' /
                    'stored-testcases.memory.json').read_text())


def test_variant_comes_from_the_display_name():
    name = 'MemoryDotStreamsCheck %threads=single %streams=4'
    assert results.variant_of(name) == ('MemoryDotStreamsCheck',
                                        {'threads': 'single', 'streams': 4})


def test_collect_groups_passed_checks_by_variant():
    collected = pr.collect(CASES, 'local')
    key = ('MemoryDotStreamsCheck', 'local:default', 'gnu',
           (('threads', 'all_cores'), ('streams', 8)))
    values, unit = collected[key]['bandwidth']
    assert unit == 'MB/s' and len(values) == 1
    assert not any(k[0] == 'MemoryKernelsBuild' for k in collected)
    # the NUMA check was skipped on this machine: nothing to propose
    assert not any(k[0] == 'MemoryNumaCheck' for k in collected)
    assert pr.collect(CASES, 'other-system') == {}


@pytest.mark.parametrize('values, floor, expected', [
    ([100, 100, 100], 0.05, 0.05),          # no spread: the floor
    ([90, 100, 104], 0.05, 0.2),            # 10 % below: twice that
    ([100, 101, 99], 0.0, 0.02),
])
def test_tolerance_is_twice_the_widest_deviation_with_a_floor(values, floor,
                                                              expected):
    assert pr.tolerance(values, floor) == pytest.approx(expected)


def test_propose_uses_the_median_and_needs_enough_runs():
    collected = {('C', 'sys:p', 'gnu', (('threads', 'single'),)): {
        'bw': ([90.0, 100.0, 104.0], 'MB/s'),
        'lat': ([1.0], 'ns'),
    }}
    proposed, notes = pr.propose(collected, floor=0.05, min_runs=3)
    assert proposed == {'C': {
        '$index': ['$partition', '$environ', 'threads'],
        'sys:p': {'gnu': {'single': {'bw': [100.0, -0.2, 0.2, 'MB/s']}}},
    }}
    assert notes == ['C.sys:p.gnu.single.lat: 1 run(s), need 3: left out']


def test_proposal_from_real_sessions_renders_as_a_valid_file(tmp_path):
    proposed, _ = pr.propose(pr.collect(CASES, 'local'), floor=0.05,
                             min_runs=1)
    path = tmp_path / 'local.yaml'
    path.write_text(pr.render(proposed))
    from hpc_acceptance.core import references
    data = references.load(str(path))
    entry = data['MemoryLatencyCheck']['local:default']['gnu']['single']
    assert entry['latency_l1'][3] == 'ns'
    assert entry['latency_l1'][1] == -0.05


def test_lower_tolerance_never_goes_below_zero():
    collected = {('C', 'sys:p', 'gnu', ()): {
        'bw': ([10.0, 30.0, 30.0], 'MB/s')}}
    proposed, _ = pr.propose(collected, floor=0.05, min_runs=3)
    assert proposed['C']['sys:p']['gnu']['bw'] == [30.0, -1.0, 1.333, 'MB/s']


def test_merge_keeps_checks_the_sessions_do_not_cover():
    merged = pr.merge({'A': {'x': 1}, 'B': {'y': 2}}, {'B': {'y': 3}})
    assert merged == {'A': {'x': 1}, 'B': {'y': 3}}
