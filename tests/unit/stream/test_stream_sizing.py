'''STREAM thread layouts and array sizes (hpc_acceptance.stream.sizing).'''

import pytest

from hpc_acceptance.core import topology
from hpc_acceptance.core.openmp_process import omp_places
from hpc_acceptance.stream import sizing as stream_sizing
from conftest import load_topology

KVM = load_topology('kvm-one-socket-two-cores')
TWO_SOCKETS = load_topology('two-socket-icelake-smt')
L3 = 56623104   # one socket's L3 on the two-socket node


def test_layouts_on_a_two_socket_smt_node():
    single = stream_sizing.layout_cores(TWO_SOCKETS, 'single')
    socket = stream_sizing.layout_cores(TWO_SOCKETS, 'socket')
    every = stream_sizing.layout_cores(TWO_SOCKETS, 'all_cores')
    assert single == [{0, 72}]
    assert len(socket) == 36
    # the first socket is CPUs 0-35 and their SMT siblings 72-107
    assert set().union(*socket) == set(range(36)) | set(range(72, 108))
    assert len(every) == 72


def test_places_pin_one_thread_per_core_with_its_siblings():
    plan = stream_sizing.plan(TWO_SOCKETS, 'socket', every_thread=False)
    places = omp_places(plan.places)
    assert places.startswith('{0,72},{1,73},')
    assert places.endswith(',{35,107}')
    assert omp_places([{0}]) == '{0}'


def test_smt_on_places_one_thread_per_hardware_thread():
    plan = stream_sizing.plan(TWO_SOCKETS, 'socket', every_thread=True)
    assert omp_places(plan.places).startswith('{0},{72},{1},{73},')
    assert len(plan.places) == 72
    # the same cores, so the same caches and array size
    assert plan.min_elements == stream_sizing.plan(
        TWO_SOCKETS, 'socket', every_thread=False).min_elements


def test_last_level_cache_counts_the_instances_the_cores_reach():
    def llc(layout):
        return stream_sizing.last_level_cache_bytes(
            TWO_SOCKETS, stream_sizing.layout_cores(TWO_SOCKETS, layout))

    assert llc('single') == L3
    assert llc('socket') == L3
    assert llc('all_cores') == 2 * L3
    kvm_single = stream_sizing.layout_cores(KVM, 'single')
    assert stream_sizing.last_level_cache_bytes(KVM, kvm_single) == 503316480


def test_without_cpu_sets_every_instance_counts():
    info = {'topology': {'caches': [{'type': 'L3', 'size': L3,
                                     'num_cpus': 72,
                                     'cpusets': []}]}}
    assert stream_sizing.last_level_cache_bytes(info, [{0}]) == L3


def test_array_is_four_times_the_caches_in_doubles():
    assert stream_sizing.min_array_elements(503316480) == 251_658_240
    assert stream_sizing.min_array_elements(2 * L3) == 56_623_104
    assert stream_sizing.min_array_elements(10, bytes_per_element=8) == 5


def test_arrays_that_do_not_fit_are_named_with_the_memory():
    assert stream_sizing.memory_problem(251_658_240, 24 * 2**30) is None
    problem = stream_sizing.memory_problem(2_000_000_000, 24 * 2**30)
    assert problem == ('the three STREAM arrays of 2000000000 elements need '
                       '44.7 GiB, more than 90% of the node\'s 24.0 GiB '
                       '(extras.memory_bytes)')


def test_sockets_used_by_each_layout():
    def used(layout):
        return stream_sizing.sockets_used(
            TWO_SOCKETS, stream_sizing.layout_cores(TWO_SOCKETS, layout))

    assert used('single') == (1, 2)
    assert used('socket') == (1, 2)
    assert used('all_cores') == (2, 2)


def test_peak_is_that_of_the_sockets_the_threads_use():
    def peak(layout):
        return stream_sizing.peak_bandwidth_mbs(
            stream_sizing.plan(TWO_SOCKETS, layout, every_thread=False),
            409.6)

    assert peak('single') == pytest.approx(204800)
    assert peak('socket') == pytest.approx(204800)
    assert peak('all_cores') == pytest.approx(409600)


def test_missing_masks_say_how_to_regenerate_the_topology():
    info = {'num_cpus': 2, 'topology': {'caches': KVM['topology']['caches']}}
    with pytest.raises(topology.TopologyError,
                       match='no topology.cores CPU masks.*'
                             'detect-host-topology'):
        stream_sizing.layout_cores(info, 'all_cores')


def test_unknown_layout_is_refused():
    with pytest.raises(ValueError, match="unknown thread layout 'half'"):
        stream_sizing.layout_cores(KVM, 'half')
