'''Published figures (reference/published) and the comparison with a run.'''

import json

import pytest

from hpc_acceptance.core.references import ReferenceFileError
from hpc_acceptance.tools.references import compare_published
from hpc_acceptance.tools.references import published
from conftest import DATA_DIR

CASES = json.loads((DATA_DIR / 'results' /
                    'stored-testcases.memory.json').read_text())


def test_every_published_file_loads_with_a_source_per_figure():
    systems = published.load_all()
    assert {'pleiades-sandybridge', 'pleiades-westmere', 'tacc-xeon-2p',
            'tacc-opteron-2p', 'alphaserver-gs1280'} <= set(systems)
    for loaded in systems.values():
        assert loaded['system']['name']
        assert loaded['sources']


def test_a_figure_without_source_is_refused(tmp_path):
    path = tmp_path / 'x.yaml'
    path.write_text('$system: {name: X}\n'
                    'MemoryLatencyCheck:\n  $index: [threads]\n'
                    '  single:\n    latency_l1: [1.2, null, null, ns]\n')
    with pytest.raises(ReferenceFileError,
                       match='MemoryLatencyCheck.single.latency_l1: no '
                             'source in \\$sources'):
        published.load(path)


def test_a_source_without_figure_is_refused(tmp_path):
    path = tmp_path / 'x.yaml'
    path.write_text('$system: {name: X}\n'
                    'MemoryLatencyCheck:\n  $index: [threads]\n'
                    '  single:\n    latency_l1: [1.2, null, null, ns]\n'
                    '$sources:\n  MemoryLatencyCheck.single.latency_l1: s\n'
                    '  MemoryLatencyCheck.single.latency_l9: s\n')
    with pytest.raises(ReferenceFileError, match='latency_l9: no such '
                                                 'figure'):
        published.load(path)


def test_compare_matches_check_variant_and_unit():
    rows = compare_published.compare(CASES, published.load_all())
    by_key = {(r[0], r[1], r[2]): r for r in rows}
    row = by_key[('pleiades-sandybridge',
                  'MemoryLatencyCheck %threads=single', 'latency_l1')]
    _, _, _, value, ours, unit, ratio, source = row
    assert (value, unit) == (1.2, 'ns')
    assert ratio == pytest.approx(ours / 1.2)
    assert 'Sec. 4.1' in source
    # the all-cores memory read figure compares with the dual-process one
    assert ('tacc-opteron-2p', 'MemoryReadBandwidthCheck %threads=all_cores',
            'bandwidth_memory') in by_key
    # published figures for checks that did not run are not invented
    assert not any(r[1].startswith('MemoryNumaCheck') for r in rows)


def test_only_the_newest_run_of_a_variant_counts():
    older = {'display_name': 'C %threads=single', 'result': 'pass',
             'job_completion_time_unix': 1, 'perfvalues': {}}
    newer = dict(older, job_completion_time_unix=2)
    failed = dict(older, job_completion_time_unix=3, result='fail')
    latest = compare_published.latest_runs([older, newer, failed])
    assert latest == {('C', (('threads', 'single'),), ''): newer}


def test_runs_of_other_inputs_are_compared_apart():
    class_w = {'display_name': 'C %threads=single', 'result': 'pass',
               'job_completion_time_unix': 2, 'perfvalues': {},
               'identity': 'npb_class=W'}
    class_c = dict(class_w, job_completion_time_unix=1,
                   identity='npb_class=C')
    latest = compare_published.latest_runs([class_w, class_c])
    assert len(latest) == 2
    assert {c['identity'] for c in latest.values()} == {'npb_class=W',
                                                        'npb_class=C'}


def suite_checks():
    '''Class names of the checks ReFrame would load from checks/: those
    its decorators registered in each check file.'''
    from reframe.utility import import_module_from_file
    from conftest import PROJECT_DIR
    names = set()
    for path in sorted((PROJECT_DIR / 'checks').glob('*/*.py')):
        if path.parent.name == 'hpc_acceptance':
            continue

        module = import_module_from_file(str(path))
        names.update(cls.__name__ for cls in
                     getattr(module, '_rfm_test_registry', []))

    return names


def test_published_entries_name_checks_of_the_suite():
    checks = suite_checks()
    assert {'MemoryLatencyCheck', 'NpbCgCheck'} <= checks
    assert 'MemoryKernelCheck' not in checks
    for name, loaded in published.load_all().items():
        assert set(loaded['figures']) <= checks, name


def test_recorded_attributes_select_published_figures():
    # NPB's class is a variable, not a parameter: it comes from the record
    case = {'display_name': 'NpbCgCheck %isa=native %turbo=as-configured '
                            '%smt=as-configured %num_procs=2',
            'result': 'pass', 'npb_class': 'B',
            'perfvalues': {'local:default:time': [300.0, 0, None, None, 's',
                                                  'pass']}}
    rows = compare_published.compare([case], published.load_all())
    assert {(r[0], r[3]) for r in rows} == {('tacc-opteron-2p', 221),
                                            ('tacc-xeon-2p', 666)}
    assert not compare_published.compare(
        [dict(case, npb_class='C')], published.load_all())
