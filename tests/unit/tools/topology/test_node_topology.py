'''``hpc-acceptance topology`` (hpc_acceptance.tools.topology.topology): the
sizes for ci/bench (``--format figures``), the node as the checks count it,
and the text a sysadmin reads. The replay of whole snapshots through
ReFrame is tested in tests/topology/.'''

from conftest import load_topology
from helpers.descriptions import described
from hpc_acceptance.core import node_shape, topology
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.topology import node_plan
from hpc_acceptance.tools.topology import snapshot
from hpc_acceptance.tools.topology import topology as node_topology

TWO_SOCKETS = load_topology('two-socket-icelake-smt')
PROBED = ('turbo on intel_pstate/no_turbo=0\n'
          'smt on smt/active=1 smt/control=on\n'
          'nominal_khz 2400000 cpu0/cpufreq/base_frequency\n'
          'topology 144 72 cpu*/topology')


def node(info=TWO_SOCKETS, probed=PROBED):
    return node_plan.Node(info, 256 * 2**30, probed, 'this host')


def test_figures_are_the_sizes_the_checks_use(monkeypatch, capsys):
    monkeypatch.setattr(snapshot, 'this_host', node)
    assert cli.main(['topology', '--format', 'figures']) == 0
    first_core = node_shape.shape(TWO_SOCKETS).cores[:1]
    assert capsys.readouterr().out.splitlines() == [
        f'memory_working_set {topology.memory_working_set(TWO_SOCKETS)} B',
        'cores 72 cores',
        'sockets 2 sockets',
    ] + [f'working_set_{level} {size} B'
         for level, size in topology.level_working_sets(
             TWO_SOCKETS, first_core).items()
         if level != 'memory']


def test_figures_without_caches_say_so(monkeypatch, capsys):
    described = dict(TWO_SOCKETS, topology=dict(TWO_SOCKETS['topology'],
                                                caches=[]))
    monkeypatch.setattr(snapshot, 'this_host', lambda: node(described))
    assert cli.main(['topology', '--format', 'figures']) == 2
    assert 'no processor topology with caches' in capsys.readouterr().err


def test_the_node_is_described_as_the_checks_count_it():
    described = node_topology.describe(node())
    assert (described['sockets'], described['cores'],
            described['hardware_threads'], described['threads_per_core'],
            described['numa_nodes']) == (2, 72, 144, [2], 2)
    assert [(c['level'], c['instances']) for c in described['caches']] == [
        ('l1', 72), ('l2', 72), ('l3', 2)]
    assert described['isa'] == {'sse4.2': True, 'avx': True, 'avx2': True,
                                'avx512': True}
    assert described['turbo'] == {'value': 'on',
                                  'detail': 'intel_pstate/no_turbo=0'}
    assert described['nominal_ghz'] == 2.4
    assert described['reframe']['num_cores'] == 72
    assert described['notes'] == [] and described['unusable'] == {}


def test_a_probe_without_state_lines_says_so_instead_of_failing():
    described = node_topology.describe(node(probed=''))
    assert described['turbo']['value'] == 'unknown'
    assert 'no smt or turbo line' in described['turbo']['detail']


def report(decisions, described_node=None):
    return {'node': described_node or node_topology.describe(node()),
            'partition': {'name': 'local:default', 'scheduler': 'local',
                          'launcher': 'mpirun'},
            'modes': decisions, 'not_replayed': node_plan.NOT_RUN}


def decision(name, mode, skip=None, **decided):
    return vars(node_plan.Decision(name, name.split()[0], mode, skip=skip,
                                   decided=decided))


def test_text_groups_process_counts_skips_and_cases_as_in_the_nightly():
    block = '--map-by core --bind-to core'
    nightly = [
        decision(f'NpbCgCheck %isa=native %num_procs={n}', 'nightly',
                 num_tasks=n, num_tasks_per_node=n, launcher_options=block,
                 npb_class='W')
        for n in (1, 2)] + [
        decision('MemoryNumaCheck %threads=all_cores', 'nightly',
                 skip='local:default: 1 NUMA node: nothing to compare')]
    post = [dict(d, mode='post-upgrade') for d in nightly] + [
        dict(d, name=d['name'].replace('%isa=native', '%isa=avx2'),
             mode='post-upgrade') for d in nightly[:2]]
    lines = node_topology.render(report({'nightly': nightly,
                                         'post-upgrade': post}))
    text = '\n'.join(lines)
    assert (f'  NpbCgCheck %num_procs=1,2: {block}; class W') in lines
    assert 'nightly: 3 test cases, 2 run, 1 do not' in lines
    assert ('  skip (1): local:default: 1 NUMA node: nothing to compare'
            in lines)
    assert '  %isa=avx2: 2 test cases decided as in the nightly' in lines
    assert text.count('NpbCgCheck %num_procs=1,2') == 1
    assert lines[-1].startswith('not replayed: resolve_dependency')


def test_a_hybrid_cpu_is_said_with_its_kinds_and_each_cache_s_sharing():
    performance = [{2 * c, 2 * c + 1} for c in range(6)]
    efficiency = [{c} for c in range(12, 20)]
    info = described(performance + efficiency, [set(range(20))], caches=[
        (1, 48 << 10, performance), (1, 32 << 10, efficiency),
        (2, 1280 << 10, performance),
        (2, 2 << 20, [set(range(12, 16)), set(range(16, 20))])])
    probed = PROBED + ('\ncpufreq 3900000 1400000 12,13,14,15,16,17,18,19'
                       '\ncpufreq 5000000 1900000 0,1,2,3,6,7,10,11'
                       '\ncpufreq 5200000 1900000 4,5,8,9')
    described_node = node_topology.describe(node(info, probed))
    assert described_node['core_kinds']['evidence'] == 'cpufreq'
    lines = node_topology.render(report({'nightly': [], 'post-upgrade': []},
                                        described_node))
    assert ('  caches: L1 6 x 48 KiB (2 CPUs each) + 8 x 32 KiB (1 CPU '
            'each); L2 6 x 1.25 MiB (2 CPUs each) + 2 x 2 MiB (4 CPUs '
            'each)') in lines
    assert any(line.startswith('  a hybrid CPU, 2 kinds of core') and
               'performance: 6 cores of 2 threads up to 5.0 GHz' in line
               for line in lines)


def test_a_restricted_view_and_memory_kinds_are_said_in_the_text():
    # 8 cores on 2 NUMA nodes of DRAM and one of HBM; the run may use
    # CPUs 0-5 and 96 GiB of the 126
    cores = [{c} for c in range(8)]
    info = described(cores, [set(range(8))],
                     nodes=[set(range(4)), set(range(4, 8)), set()],
                     caches=[(1, 32768, cores)])
    info['topology']['allowed'] = {
        'online': None, 'cpus': '0-5', 'mems': None,
        'numa_nodes': [
            {'node': 0, 'cpus': '0-3', 'kind': 'DRAM',
             'evidence': 'memory tier 4 (the nodes with CPUs: tier 4)'},
            {'node': 1, 'cpus': '4-7', 'kind': 'DRAM',
             'evidence': 'memory tier 4 (the nodes with CPUs: tier 4)'},
            {'node': 2, 'cpus': '', 'kind': 'HBM',
             'evidence': 'memory tier 1 (the nodes with CPUs: tier 4)'}],
        'memory_bytes': 96 << 30, 'memtotal_bytes': 132295672 * 1024,
        'memory_why': ['the cgroup limits the run to 96 GiB (memory.max of '
                       '/job)'],
        'read_from': ['CPUs: cgroup v2 cpuset.cpus.effective of /job']}
    lines = node_topology.render(report(
        {'nightly': [], 'post-upgrade': []},
        node_topology.describe(node_plan.Node(info, 96 << 30, PROBED,
                                              'this host'))))
    assert ('  6 of 8 CPUs, 96 of 126.2 GiB of memory: planned on what this '
            'run may use (CPUs: cgroup v2 cpuset.cpus.effective of /job; '
            'the cgroup limits the run to 96 GiB (memory.max of /job))'
            in lines)
    assert ('  memory 96 GiB (of the NUMA nodes with CPUs the run may use; '
            'MemTotal 126.17 GiB)' in lines)
    assert ('  memory kinds: DRAM on NUMA nodes 0, 1 (memory tier 4 (the '
            'nodes with CPUs: tier 4)); HBM on NUMA nodes 2 (memory tier 1 '
            '(the nodes with CPUs: tier 4)): the NUMA check compares local '
            'and remote DRAM only' in lines)
