'''Which measured figures a node could have delivered at all
(hpc_acceptance.tools.results.plausible): the bounds, each at its edge,
and every published figure of the seed papers within them.'''

import pytest

from hpc_acceptance.tools.references import published
from hpc_acceptance.tools.results import plausible
from hpc_acceptance.tools.results.runs import figures_of, unmeasured


def _case(cpus=None, nodes=('n1',), tasks=None):
    case = {'job_nodelist': list(nodes)}
    if cpus is not None:
        case['node_hardware'] = f'cpu=X; cpus={cpus}; cores={cpus}; ' \
                                f'memory_kb=1'
    if tasks is not None:
        case['num_tasks'] = tasks
    return case


def test_a_thread_moves_512_bytes_a_cycle_of_10_ghz_at_most():
    case = _case(cpus=4)
    edge = 4 * 512 * 10e9 / 1e6
    assert plausible.limit('MB/s', case) == ('at most', edge)
    assert plausible.why_not(edge, 'MB/s', case) is None
    assert plausible.why_not(edge * 1.001, 'MB/s', case) == (
        f'implausible: {edge * 1.001:.3g} MB/s, above {edge:.3g} MB/s, '
        f'what 4 hardware thread(s) can deliver')


def test_the_bound_counts_every_node_of_the_job():
    assert plausible.threads(_case(cpus=64, nodes=('n1', 'n2', 'n3'))) == 192
    # no node list: each task on a node of its own, at most
    assert plausible.threads(_case(cpus=64, nodes=(), tasks=8)) == 512
    assert plausible.threads(_case(cpus=64, nodes=(), tasks=2)) == 128
    assert plausible.threads(_case(cpus=64, nodes=())) == 64
    # no probe: the largest machine there is
    assert plausible.threads(_case()) == plausible.UNKNOWN_CPUS
    assert plausible.threads({'node_hardware': 'cpus=0'}) == \
        plausible.UNKNOWN_CPUS


def test_operations_clocks_updates_and_times_have_their_bounds():
    case = _case(cpus=1)
    assert plausible.limit('Gflop/s', case) == ('at most', 4096 * 10.0)
    assert plausible.limit('Mop/s', case) == ('at most', 4096 * 10e3)
    assert plausible.limit('GUP/s', case) == ('at most', 640.0)
    assert plausible.limit('GHz', _case(cpus=64)) == ('at most', 10.0)
    assert plausible.limit('ns', case) == ('at least', pytest.approx(1e-3))
    assert plausible.limit('%', case) is None
    assert plausible.why_not(10.0, 'GHz', case) is None
    assert plausible.why_not(10.5, 'GHz', case) == (
        'implausible: 10.5 GHz, above 10 GHz, the fastest clock there is')
    assert plausible.why_not(1e-3, 'ns', case) is None
    assert plausible.why_not(0.9e-3, 'ns', case) == (
        'implausible: 0.0009 ns, below 0.001 ns, the shortest time a node '
        'can measure')


def test_zero_is_judged_as_the_worst_not_as_implausible():
    assert plausible.why_not(0.0, 'ns', _case()) is None


def test_an_implausible_figure_is_no_measurement_to_every_reader():
    case = dict(_case(cpus=16), perfvalues={
        'c:p:triad': [1e300, 0, None, None, 'MB/s', 'pass'],
        'c:p:latency': [1e-300, 0, None, None, 'ns', 'pass'],
        'c:p:copy': [38500.0, 0, None, None, 'MB/s', 'pass']})
    assert figures_of(case) == {'copy': (38500.0, 'MB/s')}
    assert sorted(unmeasured(case)) == ['latency', 'triad']
    assert unmeasured(case)['triad'][0].startswith('implausible: 1e+300 MB/s')


def test_every_published_figure_is_plausible_on_one_hardware_thread():
    '''The seed papers' figures (reference/published), of machines from
    2003 to 2013, each within the bounds of a node of a single hardware
    thread: no real figure comes near them.'''
    checked = 0
    for name, loaded in published.load_all().items():
        for check, entries in loaded['figures'].items():
            for value, unit in _figures(entries):
                assert plausible.why_not(value, unit, _case(cpus=1)) is \
                    None, (name, check, value, unit)
                checked += plausible.limit(unit, _case(cpus=1)) is not None

    assert checked >= 10


def _figures(entries):
    '''``(value, unit)`` of every ``[value, lower, upper, unit]`` leaf.'''
    if isinstance(entries, list) and len(entries) == 4 and \
            isinstance(entries[3], str):
        yield float(entries[0]), entries[3]
    elif isinstance(entries, dict):
        for key, inner in entries.items():
            if not str(key).startswith('$'):
                yield from _figures(inner)
