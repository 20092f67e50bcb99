'''HPL's share of the node's peak (HpccBenchmark.peak_gflops): the peak of
the cores the ranks run on, whether a rank has a core or a hardware thread.

The check's method runs on a stand-in holding only what it reads: the
partition's per-node peak and processor description (the example
cluster's: 72 cores, 2 hardware threads each, 5529.6 Gflop/s), the ranks
and the threads per core the SMT variant set.
'''

from types import SimpleNamespace

import pytest

from conftest import load_topology
from hpc_acceptance.hpcc.check import HpccBenchmark

NODE_PEAK = 5529.6
CORES = 72
TWO_SOCKETS = load_topology('two-socket-icelake-smt')


def run_of(ranks_per_node, threads_per_core, nodes=1, peak=NODE_PEAK):
    partition = SimpleNamespace(extras={'peak_gflops': peak},
                                processor=SimpleNamespace(info=TWO_SOCKETS))
    return SimpleNamespace(current_partition=partition,
                           num_tasks=nodes * ranks_per_node,
                           num_tasks_per_node=ranks_per_node,
                           threads_per_core=threads_per_core)


@pytest.mark.parametrize('ranks, threads_per_core', [
    (72, 1),    # one rank per core: as-configured and smt=off
    (144, 2),   # smt=on: a rank per hardware thread, the same 72 cores
])
def test_a_whole_node_is_the_node_peak(ranks, threads_per_core):
    assert HpccBenchmark.peak_gflops(
        run_of(ranks, threads_per_core)) == pytest.approx(NODE_PEAK)


def test_ranks_on_hardware_threads_count_the_cores_they_occupy():
    # 36 ranks on hardware threads fill 18 cores; 37 reach into a 19th
    assert HpccBenchmark.peak_gflops(run_of(36, 2)) == pytest.approx(
        NODE_PEAK * 18 / CORES)
    assert HpccBenchmark.peak_gflops(run_of(37, 2)) == pytest.approx(
        NODE_PEAK * 19 / CORES)


def test_several_nodes_add_their_peaks():
    assert HpccBenchmark.peak_gflops(run_of(144, 2, nodes=4)) == \
        pytest.approx(4 * NODE_PEAK)


def test_no_declared_peak_no_figure():
    assert HpccBenchmark.peak_gflops(run_of(72, 1, peak=None)) is None
