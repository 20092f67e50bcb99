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

import argparse
import json
import re
import sys

from reframe.core.systems import ProcessorInfo

from hpc_acceptance.core import (isa, node_shape, node_state, topology,
                                 topology_change)
from hpc_acceptance.tools.topology import node_plan
from hpc_acceptance.tools.topology import snapshot

#: Variant parameters left out of a test case's name in text: the defaults.
_DEFAULT_PARAMETERS = (' %isa=native', ' %turbo=as-configured',
                       ' %smt=as-configured')
_VARIANT_PARAMETERS = ('%isa=', '%turbo=', '%smt=')


def _parser():
    parser = argparse.ArgumentParser(
        prog='hpc-acceptance topology',
        description=__doc__.split('\n\n')[0],
        epilog='Replaying a snapshot runs ReFrame\'s own detection on it in '
               'a private mount namespace: as root, or where the kernel '
               'allows unprivileged user namespaces.')
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
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.snapshot:
            with snapshot.opened(args.snapshot) as snap:
                node = snapshot.node_of(snap)
                return _report(node, args)

        return _report(snapshot.this_host(), args)
    except (snapshot.SnapshotError, node_plan.ReplayError) as err:
        print(f'hpc-acceptance topology: {err}', file=sys.stderr)
        return 2


def _report(node, args):
    if args.format == 'figures':
        return _figures(node)

    cases, settings = node_plan.load_cases(node, args.partition)
    decisions = {mode: [node_plan.decide(case, mode, settings[mode], node)
                        for case in cases
                        if node_plan.in_mode(case.check, mode)]
                 for mode in node_plan.MODES}
    report = {
        'node': describe(node),
        'partition': _partition(cases[0].partition if cases else None,
                                args.partition),
        'modes': {mode: [vars(d) for d in found]
                  for mode, found in decisions.items()},
        'not_replayed': node_plan.NOT_RUN,
    }
    if args.format == 'json':
        json.dump(report, sys.stdout, indent=1, default=sorted)
        print()
    else:
        print('\n'.join(render(report)))

    return 0


def _figures(node):
    '''The sizes the ci/bench scripts measure at, one ``name value unit``
    line each.'''
    shape = node_shape.shape(node.info)
    try:
        shape.require('cores')
        sizes = topology.level_working_sets(node.info, shape.cores[:1])
    except topology.TopologyError as err:
        print(f'hpc-acceptance topology: {node.source}: {err}',
              file=sys.stderr)
        return 2

    figures = [('memory_working_set', sizes.pop('memory'), 'B'),
               ('cores', shape.core_count, 'cores'),
               ('sockets', shape.socket_count or 1, 'sockets')]
    figures += [(f'working_set_{level}', size, 'B')
                for level, size in sizes.items()]
    for name, value, unit in figures:
        print(name, value, unit)

    return 0


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
        'caches': [_cache(name, instances)
                   for name, instances in shape.caches.items()],
        'isa': {variant: _supported(info, variant)
                for variant in isa.TARGETS},
        'turbo': vars(states['turbo']),
        'smt': vars(states['smt']),
        'nominal_ghz': nominal.ghz,
        'memory_bytes': node.memory_bytes,
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


def _cache(name, instances):
    sizes = {}
    for instance in instances:
        sizes[instance.size] = sizes.get(instance.size, 0) + 1

    per_instance = sorted({len(i.cpus) for i in instances if i.cpus})
    return {'level': name, 'sizes': sizes, 'instances': len(instances),
            'cpus_per_instance': per_instance}


def _supported(info, variant):
    try:
        isa.cpu_supports(info, variant)
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


def _bytes(size):
    for unit, scale in (('GiB', 2**30), ('MiB', 2**20), ('KiB', 2**10)):
        if size >= scale:
            value = size / scale
            return (f'{value:.0f} {unit}' if value == int(value)
                    else f'{value:.1f} {unit}')

    return f'{size} B'


def _abbreviated(text, limit=90):
    if len(text) <= limit:
        return text

    return f'{text[:limit - 30]} ... {text[-24:]}'


def render(report):
    '''The report as text lines.'''
    node, partition = report['node'], report['partition']
    lines = [f'node: {node["source"]}: {node["model"]} '
             f'({node["architecture"]}, archspec {node["archspec"]})']
    threads = '/'.join(map(str, node['threads_per_core']))
    numa = f'{node["numa_nodes"]} NUMA nodes'
    if node['numa_nodes_without_cpus']:
        numa += f' ({node["numa_nodes_without_cpus"]} without CPUs)'
    dies = (f', {node["dies_per_package"]} dies per package'
            if node['dies_per_package'] else '')
    lines.append(f'  {node["sockets"]} sockets{dies}, {node["cores"]} cores, '
                 f'{node["hardware_threads"]} hardware threads ({threads} '
                 f'per core), {numa}')
    lines.append('  caches: ' + '; '.join(
        f'{c["level"].upper()} ' + ' + '.join(
            f'{_bytes(size)} x {count}' for size, count in c['sizes'].items())
        + f' ({"/".join(map(str, c["cpus_per_instance"]))} CPUs each)'
        for c in node['caches']) if node['caches'] else '  caches: none')
    lines.append('  ISA: ' + ', '.join(
        f'{variant} {"yes" if found is True else "no"}'
        for variant, found in node['isa'].items()))
    lines.append(f'  turbo {node["turbo"]["value"]} '
                 f'({node["turbo"]["detail"]}); smt {node["smt"]["value"]} '
                 f'({node["smt"]["detail"]})')
    lines.append(f'  memory {_bytes(node["memory_bytes"])}'
                 if node['memory_bytes'] else
                 '  memory unknown (no proc/meminfo, no NUMA node meminfo)')
    rf = node['reframe']
    lines.append(f'  ReFrame counts {rf["num_cpus"]} CPUs, '
                 f'{rf["num_cpus_per_core"]} per core, {rf["num_cores"]} '
                 f'cores, {rf["num_sockets"]} sockets, '
                 f'{rf["num_numa_nodes"]} NUMA nodes')
    lines += [f'  note: {note}' for note in node['notes']]
    lines += [f'  unusable {part}: {why}'
              for part, why in node['unusable'].items()]
    if node['topology_changed']:
        lines.append(f'  every job would fail: {node["topology_changed"]}')

    declared = [f'{key} {partition[key]}' for key in
                ('peak_gflops', 'peak_memory_bandwidth_gbs', 'turbo_control')
                if partition.get(key)]
    lines.append(f'partition: {partition["name"]} ('
                 f'{partition.get("scheduler")} scheduler, '
                 f'{partition.get("launcher")}; '
                 + (', '.join(declared) or 'no peaks or Turbo control '
                    'declared') + ')')

    nightly = {}
    for mode, decisions in report['modes'].items():
        runs = [d for d in decisions if d['skip'] is None and
                d['failure'] is None]
        lines.append(f'{mode}: {len(decisions)} test cases, {len(runs)} run, '
                     f'{len(decisions) - len(runs)} do not')
        if mode == 'nightly':
            nightly = {_base(d['name']): _summary(d['decided'])
                       for d in runs}
            lines += _runs(runs)
        else:
            lines += _runs(runs, nightly)
        lines += [f'  FAILS {_name(d["name"])}: {d["failure"]}'
                  for d in decisions if d['failure']]
        lines += _skips([d for d in decisions if d['skip']])

    lines.append('not replayed: ' + '; '.join(
        f'{hook} ({why})' for hook, why in report['not_replayed'].items()))
    return lines


def _name(name):
    for default in _DEFAULT_PARAMETERS:
        name = name.replace(default, '')
    return name


def _base(name):
    '''A test case's name without its variant parameters.'''
    return ' '.join(part for part in name.split()
                    if not part.startswith(_VARIANT_PARAMETERS))


def _variant(name):
    '''The variant parameters of a test case that are not defaults.'''
    return ' '.join(part for part in _name(name).split()
                    if part.startswith(_VARIANT_PARAMETERS))


def _runs(decisions, nightly=None):
    '''One line per test case; NPB's process counts of one benchmark on
    one line; past the nightly (``nightly``: its summaries by base name),
    those decided as in it counted per variant.'''
    lines, counts, same = [], {}, {}
    for d in decisions:
        name, summary = _name(d['name']), _summary(d['decided'])
        if nightly is not None and nightly.get(_base(d['name'])) == summary:
            variant = _variant(d['name']) or 'as configured'
            same[variant] = same.get(variant, 0) + 1
            continue

        procs = re.search(r' %num_procs=(\d+)', name)
        if procs is None:
            lines.append(f'  {name}: {summary}')
            continue

        key = (name.replace(procs[0], ''),
               _summary(d['decided'], counts=False))
        if key not in counts:
            counts[key] = []
            lines.append(key)
        counts[key].append(procs[1])

    return [f'  {variant}: {count} test cases decided as in the nightly'
            for variant, count in same.items()] + [
        line if isinstance(line, str) else
        f'  {line[0]} %num_procs={",".join(counts[line])}: {line[1]}'
        for line in lines]


def _skips(decisions):
    by_reason = {}
    for d in decisions:
        by_reason.setdefault(d['skip'], []).append(_name(d['name']))

    lines = []
    for reason, names in by_reason.items():
        lines.append(f'  skip ({len(names)}): {reason}')
        lines.append('    ' + _abbreviated(', '.join(names), 300))

    return lines


def _summary(decided, counts=True):
    '''One line of what a test case's setup decided; ``counts=False``
    leaves out its rank counts.'''
    parts = []
    omp = decided.get('openmp')
    if omp and 'OMP_PLACES' in omp:
        threads = int(omp['OMP_NUM_THREADS'])
        parts.append(f'{threads} thread{"s" if threads > 1 else ""} on '
                     f'{_abbreviated(omp["OMP_PLACES"], 60)} '
                     f'({omp["OMP_PROC_BIND"]})')
    if decided.get('num_tasks_per_node'):
        ranks = [f'{decided["num_tasks"]} ranks, '
                 f'{decided["num_tasks_per_node"]} per node'] if counts else []
        if decided.get('launcher_options'):
            ranks.append(decided['launcher_options'])
        if decided.get('expected_cpus') and counts:
            ranks.append('on CPUs ' + _abbreviated(
                ' '.join(decided['expected_cpus']), 60))
        parts.append(', '.join(ranks) or 'launcher defaults')
    if 'array_elements' in decided:
        parts.append(f'arrays of {decided["array_elements"]} elements '
                     f'(at least {decided.get("min_elements")})')
    if 'problem_size' in decided:
        parts.append(f'N={decided["problem_size"]} '
                     f'NB={decided.get("block_size")} '
                     f'PxQ={decided.get("process_grid")} '
                     f'({decided.get("memory_fraction")} of memory)')
    if 'npb_class' in decided:
        parts.append(f'class {decided["npb_class"]}')
    options = [o for o in decided.get('program_options', [])
               if o.startswith(('--sizes', '--size=', '--partners',
                                '--elements'))]
    parts += [_abbreviated(o, 80) for o in options]
    if 'peak_gflops' in decided:
        parts.append(f'HPL peak {decided["peak_gflops"]:.1f} Gflop/s'
                     if decided['peak_gflops'] else 'no peak_gflops declared')
    if 'peak_mbs' in decided:
        parts.append(f'triad peak {decided["peak_mbs"]:.0f} MB/s'
                     if decided['peak_mbs'] else
                     'no peak_memory_bandwidth_gbs declared')
    if decided.get('threads_per_core', 1) > 1:
        parts.append(f'{decided["threads_per_core"]} threads per core')
    return '; '.join(parts) or 'runs'
