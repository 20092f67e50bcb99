'''The suite on real machines seen as a run sees them: from a Slurm job's
cgroup (v2) and an old cpuset, with CPU 0 and NUMA node 0 offline, with
HBM and NVM beside DRAM, with caches missing for some CPUs, and with GPU
memory shown as NUMA nodes (tests/fixtures/data/sysfs, from hwloc's test
data). Each is replayed as ``hpc-acceptance topology`` replays it; the
numbers below are the issue's, before and after.

Replayed once with the other snapshots (the fixture ``replays`` of
tests/conftest.py).
'''

import re

import pytest

from helpers.replay import decisions, parameters, places

CGROUP2 = '32amd64-4s2n4c-cgroup2'
CPUSETS = '16amd64-8n2c-cpusets'
OFFLINE = 'offline-cpu0-node0'
TIERS = 'fakeheteromemtiers'
ASYMMETRIC = '8em64t-2s4c-asymcaches'
GPU_MEMORY = 'nvidiagpunumanodes'

GIB = 2**30


@pytest.fixture(scope='module')
def reports(replays):
    return replays


def only(report, mode, check, *words):
    '''The one decision of ``check`` in ``mode`` whose name holds every of
    ``words`` (the defaults of the variants when none).'''
    words = words or ('%isa=native', '%turbo=as-configured',
                      '%smt=as-configured')
    [found] = [d for d in decisions(report, mode, check).values()
               if all(w in d['name'] for w in words)]
    return found


def test_a_slurm_job_s_six_cpus_are_planned_on_not_the_32(reports):
    # before: HPCC 32 ranks 4x8, NPB up to 32 ranks, STREAM 32 threads,
    # NUMA partners outside the cpuset
    report = reports[CGROUP2]
    node = report['node']
    assert (node['cores'], node['machine_cpus'], node['numa_nodes'],
            node['machine_numa_nodes']) == (6, 32, 6, 8)
    assert node['allowed'].startswith(
        '6 of 32 CPUs, NUMA nodes 0-5 of 8, 96 of 126.2 GiB of memory: '
        'planned on what this run may use (CPUs: cgroup v2 '
        'cpuset.cpus.effective of /uid_2008/job_15389/step_0')
    # hwloc's 96 GB: nodes 0-5, 2 MiB short of 16 GiB in node 0
    assert node['memory_bytes'] == (16775084 + 5 * 16777216) * 1024
    hpcc = only(report, 'nightly', 'HpccCheck')['decided']
    assert (hpcc['num_tasks'], hpcc['process_grid']) == (6, '2x3')
    npb = sorted({int(parameters(d['name'])['num_procs'])
                  for d in decisions(report, 'nightly').values()
                  if d['check'] == 'NpbCgCheck' and not d['skip']})
    assert npb == [1, 2, 4]
    stream = only(report, 'nightly', 'StreamCheck', '%threads=all_cores')
    assert len(places(stream)) == 6
    numa = only(report, 'nightly', 'MemoryNumaCheck')
    # 4 CPUs on node 0, 2 on node 1: 2 threads of each, paired across
    assert places(numa) == [{0}, {1}, {4}, {5}]
    for d in report['modes']['nightly']:
        if d['skip'] is None and 'OMP_PLACES' in d['decided'].get(
                'openmp', {}):
            assert set().union(*places(d)) <= set(range(6)), d['name']
        assert d['decided'].get('allowed_view', '') == node['allowed']


def test_numa_node_0_offline_sizes_hpl_by_the_64_gib_left(reports):
    # before: 125.6 GiB planned (MemTotal), post-upgrade HPL N 28992
    report = reports[OFFLINE]
    node = report['node']
    assert node['memory_bytes'] == 64 * GIB
    assert node['memtotal_bytes'] > 125 * GIB
    assert node['allowed'] == (
        '64 of 125.6 GiB of memory: planned on what this run may use '
        '(MemTotal counts 61.6 GiB that no online NUMA node holds (NUMA '
        'node 0 offline))')
    post = only(report, 'post-upgrade', 'HpccCheck')['decided']
    assert post['problem_size'] == 20544
    # the probe reads the first online CPU, not the offline cpu0
    assert 'cpu0/cpufreq' not in node['turbo']['detail']


def test_gpu_memory_shown_as_numa_nodes_is_not_sized_into(reports):
    # before: +90 GiB of six V100s' memory counted into HPL's N
    node = reports[GPU_MEMORY]['node']
    assert node['memory_bytes'] == (129839104 + 133952000) * 1024
    assert any(why.startswith('NUMA nodes 250, 251, 252, 253, 254, 255 '
                              'without CPUs hold 90 GiB')
               for why in node['memory_why'])


def test_dram_hbm_and_nvm_are_told_apart(reports):
    # before: the NUMA check paired DRAM -> DRAM -> HBM in one ring; the
    # HBM and NVM nodes were never named
    report = reports[TIERS]
    kinds = {k['kind']: k['numa_nodes']
             for k in report['node']['memory_kinds']}
    assert kinds['DRAM'] == [0, 1]
    assert kinds['HBM'] == [2, 4]
    assert kinds['slower memory (CXL or NVM)'] == [6, 8, 9]
    numa = only(report, 'nightly', 'MemoryNumaCheck')
    assert places(numa) == [{0}, {1}, {2}, {3}]
    partners = [int(p) for p in re.search(
        r'--partners=([\d,]+)', ' '.join(
            numa['decided']['program_options']))[1].split(',')]
    assert partners == [2, 3, 0, 1]
    assert numa['decided']['memory_kinds'].startswith(
        'NUMA nodes 2, 4: HBM (access1 read bandwidth 10000 MB/s')
    assert 'not measured' in numa['decided']['memory_kinds']


def test_caches_missing_for_some_cpus_skip_only_what_they_size(reports):
    # before: 19 memory and STREAM cases skipped, naming only L1's gap
    report = reports[ASYMMETRIC]
    node = report['node']
    assert 'caches' not in node['unusable']
    [gaps] = [n for n in node['notes'] if 'the node shows no L1' in n]
    assert 'no L1 for CPUs 1-2,5; no L2 for CPUs 0,4' in gaps
    skipped = [d['name'] for d in report['modes']['nightly']
               if d['skip'] and d['check'].startswith(('Memory', 'Stream'))]
    assert skipped == [only(report, 'nightly', 'MemoryNumaCheck')['name']]
    latency = only(report, 'nightly', 'MemoryLatencyCheck',
                   '%threads=single')
    # one thread on a core with every level
    [place] = places(latency)
    assert not place & {0, 1, 2, 4, 5}
    assert '--sizes=l1:' in ' '.join(latency['decided']['program_options'])
    daxpy = only(report, 'nightly', 'MemoryDaxpyCheck', '%threads=all_cores')
    assert 'l1: the node shows no L1 for CPUs 1-2,5' in \
        daxpy['decided']['levels_not_measured']


def test_an_old_cpuset_file_system_restricts_cpus_and_nodes(reports):
    node = reports[CPUSETS]['node']
    assert (node['hardware_threads'], node['numa_nodes']) == (10, 4)
    assert node['allowed'].startswith('10 of 15 CPUs, NUMA nodes 1-4 of 8')
