'''The kinds of core of a node (hpc_acceptance.core.core_kinds): by the
clocks cpufreq states, as hwloc tells them, else by the caches of the
processor description (tests/helpers/descriptions.py).'''

from helpers.descriptions import described
from hpc_acceptance.core import core_kinds, node_facts, node_shape

# the i7-1370P's shape: 6 P-cores of 2 threads, own 1.25 MiB L2; 8 E-cores
# in two clusters of 4 sharing 2 MiB of L2
PERFORMANCE = [{2 * c, 2 * c + 1} for c in range(6)]
EFFICIENCY = [{c} for c in range(12, 20)]
HYBRID = node_shape.shape(described(
    PERFORMANCE + EFFICIENCY, [set(range(20))], caches=[
        (1, 48 << 10, PERFORMANCE), (1, 32 << 10, EFFICIENCY),
        (2, 1280 << 10, PERFORMANCE),
        (2, 2 << 20, [set(range(12, 16)), set(range(16, 20))])]))


def clocks(performance, efficiency, base=True):
    found = {cpu: (performance, 1900000 if base else None)
             for cpu in range(12)}
    found.update({cpu: (efficiency, 1400000 if base else None)
                  for cpu in range(12, 20)})
    return found


def test_the_kinds_are_those_of_the_highest_clocks():
    found = core_kinds.kinds(HYBRID, clocks(5000000, 3900000))
    assert found.evidence == 'cpufreq' and found.hybrid
    assert [len(k.cores) for k in found.kinds] == [6, 8]
    assert found.performance.max_khz == 5000000
    assert found.describe().startswith(
        "a hybrid CPU, 2 kinds of core by their highest clocks, cpufreq's "
        "cpuinfo_max_freq (hwloc's rule): performance: 6 cores of 2 threads "
        "up to 5.0 GHz (L1d 48 KiB, L2 1.25 MiB per core); efficiency: 8 "
        "cores of 1 thread up to 3.9 GHz (L1d 32 KiB, L2 512 KiB per core)")


def test_favoured_cores_of_one_base_clock_are_one_kind():
    # Turbo Boost Max 3.0: two P-cores reach 5.2 GHz, the others 5.0
    found = clocks(5000000, 3900000)
    found.update({4: (5200000, 1900000), 5: (5200000, 1900000)})
    assert [len(k.cores) for k in core_kinds.kinds(HYBRID, found).kinds] \
        == [6, 8]
    # without a base clock to tell, each highest clock is a kind
    found = {cpu: (top, None) for cpu, (top, _) in found.items()}
    assert len(core_kinds.kinds(HYBRID, found).kinds) == 3


def test_without_cpufreq_the_caches_tell_the_kinds():
    found = core_kinds.kinds(HYBRID)
    assert found.evidence == 'caches'
    # the most L2 per core first
    assert [len(k.cores) for k in found.kinds] == [6, 8]
    assert found.performance.l2_bytes_per_core == 1280 << 10


def test_one_kind_of_core_is_no_hybrid():
    cores = [{c} for c in range(4)]
    node = node_shape.shape(described(cores, [set(range(4))], caches=[
        (1, 32 << 10, cores), (2, 1 << 20, cores)]))
    found = core_kinds.kinds(node, {c: (3000000, 2000000) for c in range(4)})
    assert not found.hybrid and found.describe() == 'one kind of core'
    assert node_facts.core_choice(found, node.cores) == ''


def test_the_choice_names_the_kinds_of_the_cores_used():
    found = core_kinds.kinds(HYBRID, clocks(5000000, 3900000))
    cores = list(HYBRID.cores)
    assert node_facts.core_choice(found, cores) == \
        'all 14 cores (6 performance, 8 efficiency)'
    assert node_facts.core_choice(found, cores[:6]) == \
        'the 6 performance cores'
    assert node_facts.core_choice(found, cores[:1]) == '1 performance core'
    assert node_facts.core_choice(found, cores[4:8]) == \
        '2 performance and 2 efficiency cores'
