'''The collection bench (ci/bench/fleet_collect.py): a measured night made
bigger, every copy of a node its own node, then collected and stored.'''

import importlib.util
import json

from conftest import DATA_DIR, PROJECT_DIR

spec = importlib.util.spec_from_file_location(
    'fleet_collect', PROJECT_DIR / 'ci' / 'bench' / 'fleet_collect.py')
fleet_collect = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fleet_collect)

NIGHT = DATA_DIR / 'fleet_night'


def test_a_name_is_replaced_where_it_stands_alone():
    assert fleet_collect._renamed('n1 %.nid=n1 n10 n1-ib x.n1 n1,',
                                  'n1', 'n7') == \
        'n7 %.nid=n7 n10 n1-ib x.n1 n7,'


def test_a_bigger_night_is_each_copy_s_own(tmp_path):
    assert fleet_collect.scaled(str(NIGHT), 10, str(tmp_path)) == \
        str(tmp_path / 'fleet.json')
    folder = tmp_path / 'fleet-node-runs'
    plan = json.loads((folder / 'night.json').read_text())
    assert sorted(plan['nodes'], key=lambda n: int(n[1:])) == [
        f'n{i}' for i in range(1, 11)]
    assert plan['perflogs'] == str(tmp_path / 'perflogs')
    # n9 is a copy of n1 (the nodes that wrote a report, cycled)
    status = json.loads((folder / 'n9' / 'status.json').read_text())
    assert status['node'] == 'n9'
    text = (folder / 'n9' / 'report.json').read_text()
    assert '=n9' in text and '=n1"' not in text


def test_a_node_of_the_nightly_set_s_size_has_each_test_case_copied(
        tmp_path):
    '''``--copies 3``: each test case (not a build) three, the copies
    variants of their own, with their perflog lines, collected as the
    node's own.'''
    from hpc_acceptance.tools.node_jobs import gather

    def collected(copies, folder):
        folder.mkdir()
        merged, _ = gather.collect(fleet_collect.scaled(str(NIGHT), 4,
                                                        str(folder), copies))
        names = [record.display_name for record in merged.records()]
        lines = [line for p in (folder / 'perflogs').rglob('*.log')
                 for line in p.read_text().splitlines()[1:]]
        return names, lines

    names, lines = collected(1, tmp_path / 'one')
    copied, copied_lines = collected(3, tmp_path / 'three')
    pinned = [n for n in names if ' %.part=' in n]
    assert pinned and len(copied) == len(names) + 2 * len(pinned)
    assert len(set(copied)) == len(copied)
    assert sorted(n for n in copied if '%copy=2 ' in n) == sorted(
        n.replace(' %.part=', ' %copy=2 %.part=') for n in pinned)
    pinned_lines = [line for line in lines if ' %.part=' in line]
    assert pinned_lines and len(copied_lines) == \
        len(lines) + 2 * len(pinned_lines)


def test_the_bigger_night_is_collected_and_stored():
    cases, collect, store, rss, back = fleet_collect.measure(str(NIGHT), 8)
    # each copy's test cases (and a failed one where the copied node's job
    # did not do its work), twice the original's four nodes'
    assert cases == 2 * fleet_collect.measure(str(NIGHT), 4)[0] > 0
    assert collect > 0 and store > 0 and rss > 0
    assert back is None


def test_a_night_too_large_for_one_value_reads_back_whole(monkeypatch):
    '''SQLite's limit on one value made smaller than the night: it is
    stored in parts, and every test case is read back by its UUID.'''
    from helpers import sqlite_limit

    cases, *_ = fleet_collect.measure(str(NIGHT), 4)
    sqlite_limit.limit(monkeypatch, 40_000)
    *_, (sessions, read, _) = fleet_collect.measure(str(NIGHT), 4, True)
    assert sessions > 1
    assert read == cases
