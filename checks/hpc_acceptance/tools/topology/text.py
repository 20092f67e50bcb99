'''``hpc-acceptance topology``'s text: the node as the checks count it,
then per mode every test case with what its setup decided, those decided
as in the nightly counted per variant, NPB's process counts of one
benchmark on one line, skips grouped by reason.
'''

import re

#: Variant parameters left out of a test case's name in text: the defaults.
_DEFAULT_PARAMETERS = (' %isa=native', ' %turbo=as-configured',
                       ' %smt=as-configured')
_VARIANT_PARAMETERS = ('%isa=', '%turbo=', '%smt=')


def _bytes(size):
    for unit, scale in (('GiB', 2**30), ('MiB', 2**20), ('KiB', 2**10)):
        if size >= scale:
            return f'{size / scale:.2f}'.rstrip('0').rstrip('.') + f' {unit}'

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
            f'{g["count"]} x {_bytes(g["size"])}'
            + (f' ({g["cpus"]} CPU{"s" if g["cpus"] > 1 else ""} each)'
               if g['cpus'] else '')
            for g in c['groups'])
        for c in node['caches']) if node['caches'] else '  caches: none')
    kinds = node.get('core_kinds')
    if kinds and kinds['hybrid']:
        lines.append(f'  {kinds["described"]}')
        lines.append('  all-cores and multi-rank cases run on every kind of '
                     'core, fewer ranks or threads on the first cores in '
                     'CPU order; threads=performance_cores (post-upgrade) on '
                     'the performance cores only, single on the first of '
                     'them')
    if len(node.get('numa_distances') or []) > 2:
        lines.append('  NUMA distances (SLIT): ' + ', '.join(
            map(str, node['numa_distances'])))
    lines.append('  ISA: ' + ', '.join(
        f'{variant} {"yes" if found is True else "no"}'
        for variant, found in node['isa'].items()))
    lines.append(f'  turbo {node["turbo"]["value"]} '
                 f'({node["turbo"]["detail"]}); smt {node["smt"]["value"]} '
                 f'({node["smt"]["detail"]})')
    if node.get('allowed'):
        lines.append(f'  {node["allowed"]}')
    memory = (f'  memory {_bytes(node["memory_bytes"])}'
              if node['memory_bytes'] else
              '  memory unknown (no proc/meminfo, no NUMA node meminfo)')
    total = node.get('memtotal_bytes')
    if node['memory_bytes'] and total and total != node['memory_bytes']:
        memory += (f' (of the NUMA nodes with CPUs the run may use; '
                   f'MemTotal {_bytes(total)})')
    lines.append(memory)
    kinds = node.get('memory_kinds') or []
    if len(kinds) > 1:
        lines.append('  memory kinds: ' + '; '.join(
            f'{k["kind"]} on NUMA nodes '
            f'{", ".join(map(str, k["numa_nodes"]))} ('
            + ', '.join(filter(None, k['evidence'])) + ')'
            for k in kinds)
            + ': the NUMA check compares local and remote DRAM only')
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
                     f'({decided.get("memory_fraction")} of memory, '
                     f'{decided.get("blocks_per_process")} blocks per '
                     f'process)')
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
    if decided.get('core_choice') and counts:
        parts.append(f'on {decided["core_choice"]}')
    if decided.get('levels_not_measured'):
        parts.append(_abbreviated(
            f'not measured: {decided["levels_not_measured"]}', 120))
    if decided.get('distance_classes'):
        parts.append(f'NUMA {decided["distance_classes"]}')
    return '; '.join(parts) or 'runs'
