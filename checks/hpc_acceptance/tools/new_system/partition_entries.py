'''The partitions ``hpc-acceptance new-system`` writes: each value of a
partition's configuration (:class:`~.system_writer
.PartitionEntry`) from what Slurm and the probe on one of its nodes said,
with where it was read.
'''

import os

from hpc_acceptance.tools.new_system.system_writer import PartitionEntry, Value


def root_env_vars(tools):
    '''Open MPI's permission to run as root, when new-system runs as root
    (the checks will, then).'''
    if os.geteuid() != 0 or tools.mpi != 'openmpi':
        return []

    why = 'new-system ran as root: Open MPI refuses root unless told'
    return [Value(['OMPI_ALLOW_RUN_AS_ROOT', '1'], why),
            Value(['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1'])]


def state_notes(node):
    '''What the partition's comments say about SMT and the peaks.'''
    smt = node.state['smt']
    return [f'SMT: {smt.value} on {node.host} ({smt.detail}; node_state.sh, '
            f'{node.where})',
            'peak_memory_bandwidth_gbs and peak_gflops (checks/README.md, '
            '"Peak figures") give the % of peak figures: they are not '
            'readable from the machine']


def local_entry(node, tools):
    '''This host as the partition ``default``, as the probe describes it:
    what ``config/systems/local.py`` is by hand.'''
    turbo = node.state['turbo']
    return PartitionEntry(
        name='default',
        descr=Value('This host, one benchmark at a time'),
        scheduler=Value('local', 'no scheduler: jobs run on this host '
                                 '(--scheduler local)'),
        launcher=Value('mpirun', f'{tools.mpi}\'s own launcher on this '
                                 f'host'),
        memory_bytes=Value(node.memory_bytes, node.memory_source()),
        max_jobs=Value(1, 'one benchmark at a time: benchmarks sharing a '
                          'node skew each other'),
        env_vars=root_env_vars(tools),
        notes=[f'Turbo: {turbo.value} on {node.host} ({turbo.detail}): '
               f'the Turbo variants run only in the state the node is in '
               f'unless extras.turbo_control gives commands to switch it']
        + state_notes(node),
    )


def slurm_entry(partition, nodes, node, tools, backend, launcher):
    '''A Slurm partition as Slurm (:mod:`~.slurm_facts`)
    and the probe job on one of its ``nodes`` describe it.

    :arg backend: ``(ReFrame's Slurm backend, why)``.
    '''
    probed = next((n for n in nodes if n.name == node.host), nodes[0])
    if probed.real_memory_mib > 1:
        memory = Value(probed.real_memory_mib * 2**20,
                       f'RealMemory={probed.real_memory_mib} MiB of '
                       f'{probed.name} (scontrol show node): what Slurm '
                       f'lets a job use')
    else:
        memory = Value(node.memory_bytes,
                       f'{node.memory_source()} ({node.where}): Slurm\'s '
                       f'RealMemory is not configured')

    notes = state_notes(node)
    kinds = {(n.sockets, n.cores_per_socket, n.threads_per_core,
              n.real_memory_mib) for n in nodes}
    if len(kinds) > 1:
        notes.insert(0, f'the nodes of {partition.name} differ (sockets, '
                        f'cores per socket, threads per core, memory: '
                        f'{sorted(kinds)}): sized for {node.host}; give '
                        f'the others a partition of their own')

    info = node.processor
    if (info.get('num_sockets'), info.get('num_cpus')) != (
            probed.sockets, probed.sockets * probed.cores_per_socket *
            probed.threads_per_core):
        notes.insert(0, f'Slurm describes {probed.name} as '
                        f'{probed.sockets} sockets x '
                        f'{probed.cores_per_socket} cores x '
                        f'{probed.threads_per_core} threads, the node '
                        f'itself as {info.get("num_sockets")} sockets, '
                        f'{info.get("num_cpus")} CPUs: the checks size '
                        f'themselves from the node\'s own')

    turbo = node.state['turbo']
    turbo_control, resources = None, []
    if turbo.value in ('on', 'off'):
        turbo_control = Value('slurm', f'Turbo is {turbo.value} on '
                                       f'{node.host} ({turbo.detail}; '
                                       f'node_state.sh, {node.where}): the '
                                       f'Turbo variants ask Slurm for '
                                       f'--cpu-freq')
        resources = [Value({'name': 'cpu_freq',
                            'options': ['--cpu-freq={freq}']},
                           'Turbo variants: Slurm sets the frequency')]
    else:
        notes.insert(0, f'Turbo: {turbo.detail} on {node.host} '
                        f'(node_state.sh, {node.where}): the Turbo variants '
                        f'skip')

    count = len(partition.nodes)
    where = f'scontrol show partition {partition.name}: {count} nodes ' \
            f'{partition.node_list}'
    return PartitionEntry(
        name=partition.name,
        descr=Value(f'Slurm partition {partition.name}, {count} nodes',
                    where),
        scheduler=Value(backend[0], f'{backend[1]}: ReFrame\'s '
                                    f'{backend[0]} backend'),
        launcher=Value(launcher.name, launcher.why),
        access=Value([f'--partition={partition.name}', '--exclusive',
                      '--no-requeue'],
                     'whole nodes: a benchmark sharing a node with another '
                     'job measures both; a job whose node fails fails its '
                     'check, naming the node, instead of a silent rerun'),
        max_jobs=Value(count, f'one job per node at a time ({where})'),
        env_vars=root_env_vars(tools) + [
            Value(var, launcher.why) for var in launcher.env_vars],
        memory_bytes=memory,
        max_nodes=Value(count, f'{where}: the most nodes a run may take; '
                               f'lower it to keep acceptance runs smaller'),
        turbo_control=turbo_control, resources=resources, notes=notes,
    )
