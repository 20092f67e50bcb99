'''``hpc-acceptance topology``: what the suite would do on a node.

Without an argument, for the host it runs on; with ``SNAPSHOT``, for the
node a snapshot of ``/sys`` and ``/proc/cpuinfo`` was taken on (a directory
or tarball, :mod:`.snapshot`). It prints the node as
the checks count it (sockets, cores, threads per core, NUMA nodes, each
cache level, the ISA, the Turbo and SMT state the node-state probe reads),
then, per mode (``nightly``, ``post-upgrade``), every test case ReFrame
generates for it with what its setup decides (threads and OpenMP places,
MPI ranks and their placement, STREAM's array, HPCC's N, NB and P x Q, the
NUMA check's pairs, the peaks it compares with) or why it skips
(:mod:`.node_plan`). ``--format json`` gives the same
for tools; ``--format figures`` the sizes the ci/bench scripts measure at,
as ``name value unit`` lines.
'''

import json
import sys

from reframe.core.systems import ProcessorInfo

from hpc_acceptance.core import (core_kinds, isa, node_facts, node_shape,
                                 node_state, node_view, numa_memory,
                                 topology, topology_change)
from hpc_acceptance.tools.topology import node_plan
from hpc_acceptance.tools.topology import snapshot
from hpc_acceptance.tools.topology.text import render

#: One line for ``hpc-acceptance --help``.
description = 'what the suite would do on this node or a snapshot of one'


def setup_parser(parser):
    '''The options of ``hpc-acceptance topology``.'''
    # cli.py's formatter keeps text as written: the lines are broken here
    parser.epilog = ('Replaying a snapshot runs ReFrame\'s own detection on '
                     'it in a private mount\nnamespace: as root, or where the '
                     'kernel allows unprivileged user namespaces.')
    parser.add_argument('snapshot', nargs='?',
                        help='a directory or tarball with sys/ and '
                             'proc/cpuinfo (default: this host)')
    parser.add_argument('--partition', default=node_plan.EMBEDDED_DEFAULT,
                        metavar='SYSTEM:PARTITION',
                        help='the configured partition whose settings '
                             '(scheduler, launcher, extras: memory, peaks, '
                             'Turbo control) the node runs with (default: '
                             '%(default)s, the embedded default)')
    parser.add_argument('--format', choices=('text', 'json', 'figures'),
                        default='text',
                        help='json: the same report for tools; figures: '
                             'the sizes the ci/bench scripts measure at, '
                             'as "name value unit" lines (default: '
                             '%(default)s)')


def command(args):
    '''``hpc-acceptance topology``: the node and its test cases, as text
    or JSON, or the benchmarks' sizes.'''
    try:
        if args.snapshot:
            with snapshot.opened(args.snapshot) as snap:
                return _show(snapshot.node_of(snap), args)

        return _show(snapshot.this_host(), args)
    except (snapshot.SnapshotError, node_plan.ReplayError) as err:
        print(f'hpc-acceptance topology: {err}', file=sys.stderr)
        return 2


def _show(node, args):
    if args.format == 'figures':
        try:
            found = figures(node)
        except topology.TopologyError as err:
            print(f'hpc-acceptance topology: {node.source}: {err}',
                  file=sys.stderr)
            return 2

        for name, value, unit in found:
            print(name, value, unit)
    elif args.format == 'json':
        json.dump(report(node, args.partition), sys.stdout, indent=1,
                  default=sorted)
        print()
    else:
        print('\n'.join(render(report(node, args.partition))))

    return 0


def report(node, partition):
    '''What the suite would do on ``node`` with the settings of
    ``partition``: the node, the partition, and per mode each test case's
    decisions.'''
    cases, settings = node_plan.load_cases(node, partition)
    decisions = {mode: [node_plan.decide(case, mode, settings[mode], node)
                        for case in cases
                        if node_plan.in_mode(case.check, mode)]
                 for mode in node_plan.MODES}
    return {
        'node': describe(node),
        'partition': _partition(cases[0].partition if cases else None,
                                partition),
        'modes': {mode: [vars(d) for d in found]
                  for mode, found in decisions.items()},
        'not_replayed': node_plan.NOT_RUN,
    }


def figures(node):
    '''The sizes the ci/bench scripts measure at, ``(name, value,
    unit)`` each.

    :raises TopologyError: where the node's topology has no cores or
        caches to size by.
    '''
    shape = node_shape.shape(node.info)
    shape.require('cores')
    sizes = topology.level_working_sets(node.info, shape.cores[:1])
    found = [('memory_working_set', sizes.pop('memory'), 'B'),
             ('cores', shape.core_count, 'cores'),
             ('sockets', shape.socket_count or 1, 'sockets')]
    return found + [(f'working_set_{level}', size, 'B')
                    for level, size in sizes.items()]


def describe(node):
    '''The node as the checks count it, and as ReFrame and the node-state
    probe describe it.'''
    info = node.info
    shape = node_shape.shape(info)
    reframe = ProcessorInfo(info)
    try:
        states = node_state.parse(node.probed, 'the node-state probe')
    except node_state.NodeStateError as err:
        states = {name: node_state.State('unknown', str(err))
                  for name in ('turbo', 'smt')}

    nominal = node_state.nominal_clock(node.probed)
    per_core = sorted({len(core) for core in shape.cores}, reverse=True)
    facts = node_facts.of_probe(node.probed, 'the node\'s probe')
    return {
        'source': node.source,
        'model': info.get('model'),
        'architecture': info.get('platform'),
        'archspec': info.get('arch'),
        'sockets': shape.socket_count,
        'dies_per_package': node.dies,
        'cores': shape.core_count,
        'hardware_threads': shape.cpu_count,
        'threads_per_core': per_core or [shape.threads_per_core],
        'numa_nodes': len(shape.numa_nodes),
        'numa_nodes_without_cpus': (len(shape.numa_nodes) -
                                    len(shape.numa_nodes_with_cpus)),
        'core_kinds': _kinds(shape, facts),
        'numa_distances': sorted({d for n in (facts.distances or {}).values()
                                  for d in n.distances.values()}),
        'caches': [_cache(name, instances)
                   for name, instances in shape.caches.items()],
        'isa': {variant: _supported(info, variant, facts.flags)
                for variant in isa.TARGETS},
        'turbo': vars(states['turbo']),
        'smt': vars(states['smt']),
        'nominal_ghz': nominal.ghz,
        'memory_bytes': node.memory_bytes,
        # what the run may use, where less than the machine, and why
        'allowed': node_view.summary(shape) or None,
        'machine_cpus': len(shape.machine_cpus),
        'machine_numa_nodes': shape.machine_numa_nodes,
        'memtotal_bytes': shape.view.get('memtotal_bytes'),
        'memory_why': list(shape.view.get('memory_why') or []),
        'memory_kinds': _memory_kinds(shape),
        'reframe': {'num_cpus': info.get('num_cpus'),
                    'num_cpus_per_core': info.get('num_cpus_per_core'),
                    'num_cores': reframe.num_cores,
                    'num_sockets': info.get('num_sockets'),
                    'num_numa_nodes': reframe.num_numa_nodes},
        'notes': list(shape.notes),
        'unusable': dict(shape.unusable),
        # what every job's probe would say of this description on the node
        'topology_changed': topology_change.live_problem(
            node_state.topology(node.probed), info),
    }


def _memory_kinds(shape):
    '''``[{'kind': ..., 'numa_nodes': [...], 'evidence': [...]}]`` of the
    NUMA nodes the run may use, main memory first; ``[]`` where the
    description does not tell kinds.'''
    found = {}
    evidence = {entry['node']: entry.get('evidence')
                for entry in shape.view.get('numa_nodes') or []}
    for number, kind in zip(shape.numa_ids, shape.numa_kinds):
        entry = found.setdefault(kind, {'kind': kind, 'numa_nodes': [],
                                        'evidence': []})
        entry['numa_nodes'].append(number)
        if evidence.get(number) not in entry['evidence']:
            entry['evidence'].append(evidence.get(number))
    return sorted(found.values(),
                  key=lambda k: (k['kind'] != numa_memory.MAIN, k['kind']))


def _kinds(shape, facts):
    '''The kinds of core (:mod:`hpc_acceptance.core.core_kinds`), by the
    node's cpufreq where its probe read it, else by its caches.'''
    if not shape.cores or 'cores' in shape.unusable:
        return None

    kinds = core_kinds.kinds(shape, facts.frequencies)
    return {'evidence': kinds.evidence, 'hybrid': kinds.hybrid,
            'described': kinds.describe(),
            'kinds': [{'cores': len(kind.cores),
                       'cpus': node_shape.cpu_list(kind.cpus),
                       'threads_per_core': sorted(set(kind.threads)),
                       'max_ghz': kind.max_khz / 1e6 if kind.max_khz else None}
                      for kind in kinds.kinds]}


def _cache(name, instances):
    sizes, groups = {}, {}
    for instance in instances:
        sizes[instance.size] = sizes.get(instance.size, 0) + 1
        key = (instance.size, len(instance.cpus) if instance.cpus else None)
        groups[key] = groups.get(key, 0) + 1

    per_instance = sorted({len(i.cpus) for i in instances if i.cpus})
    return {'level': name, 'sizes': sizes, 'instances': len(instances),
            'cpus_per_instance': per_instance,
            # each size with its sharing: a hybrid CPU's L2 of one core
            # and L2 of four
            'groups': [{'size': size, 'count': count, 'cpus': cpus}
                       for (size, cpus), count in groups.items()]}


def _supported(info, variant, flags):
    try:
        isa.cpu_supports(info, variant, flags)
    except isa.UnsupportedIsa as err:
        return str(err)

    return True


def _partition(partition, name):
    if partition is None:
        return {'name': name}

    extras = partition.extras
    return {
        'name': partition.fullname,
        'scheduler': partition.scheduler.registered_name,
        'launcher': partition.launcher_type.registered_name,
        'memory_bytes': extras.get('memory_bytes'),
        'peak_gflops': extras.get('peak_gflops'),
        'peak_memory_bandwidth_gbs': extras.get('peak_memory_bandwidth_gbs'),
        'turbo_control': extras.get('turbo_control'),
    }
