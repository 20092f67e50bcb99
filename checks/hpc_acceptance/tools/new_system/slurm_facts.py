'''What Slurm says about a cluster, for ``hpc-acceptance new-system``:
partitions and their nodes (``scontrol show partition|node``), the MPI
plugins ``srun`` has (``srun --mpi=list``), the default one
(``scontrol show config``), and whether accounting answers (``sacct``).

Every fact keeps the command it was read from, for the comment the
generated configuration gives it.
'''

import re
import shutil
import subprocess
from dataclasses import dataclass

#: ReFrame's Slurm backends: ``slurm`` polls ``sacct``, ``squeue`` needs no
#: accounting database.
ACCOUNTING, NO_ACCOUNTING = 'slurm', 'squeue'


class SlurmError(RuntimeError):
    '''Slurm did not answer, or not as expected; the message says what was
    asked and what to do.'''


@dataclass(frozen=True)
class Node:
    name: str
    sockets: int
    cores_per_socket: int
    threads_per_core: int
    #: ``RealMemory`` in MiB: what jobs may use (1 when not configured)
    real_memory_mib: int


@dataclass(frozen=True)
class Partition:
    name: str
    default: bool
    state: str
    #: Slurm's host list, e.g. ``n[1-4]``
    node_list: str
    nodes: tuple
    max_time: str


def run(*args):
    '''Standard output of a Slurm command; :class:`SlurmError` naming the
    command and its error when it fails or Slurm is not installed.'''
    try:
        done = subprocess.run(list(args), capture_output=True, text=True,
                              timeout=120)
    except FileNotFoundError:
        raise SlurmError(f'{args[0]} is not on PATH: is this a Slurm '
                         f'login node? On a machine without Slurm use '
                         f'--scheduler local') from None
    except subprocess.TimeoutExpired:
        raise SlurmError(f'{" ".join(args)} did not answer in 120 s: is '
                         f'slurmctld running?') from None

    if done.returncode != 0:
        raise SlurmError(f'{" ".join(args)} failed: '
                         f'{(done.stderr or done.stdout).strip()}')

    return done.stdout


def key_values(line):
    '''``{key: value}`` of one line of ``scontrol -o show ...``.'''
    return dict(field.split('=', 1) for field in line.split()
                if '=' in field)


def partitions():
    '''Every partition, as ``scontrol show partition`` describes it;
    :class:`SlurmError` when the controller does not answer.'''
    try:
        text = run('scontrol', '-o', 'show', 'partition')
    except SlurmError as err:
        raise SlurmError(f'Slurm does not answer: {err}. Is slurmctld up '
                         f'and SLURM_CONF right? Without Slurm use '
                         f'--scheduler local') from None

    found = []
    for line in text.splitlines():
        fields = key_values(line)
        if 'PartitionName' not in fields:
            continue

        node_list = fields.get('Nodes', '(null)')
        nodes = (() if node_list == '(null)' else
                 tuple(run('scontrol', 'show', 'hostnames',
                           node_list).split()))
        found.append(Partition(
            name=fields['PartitionName'],
            default=fields.get('Default') == 'YES',
            state=fields.get('State', 'UNKNOWN'),
            node_list=node_list, nodes=nodes,
            max_time=fields.get('MaxTime', 'UNLIMITED'),
        ))

    if not found:
        raise SlurmError('scontrol show partition lists no partitions')

    return found


def select(available, names):
    '''The partitions ``names`` (by default Slurm's default partition)
    among ``available``; :class:`SlurmError` naming an unknown one and
    the partitions there are.'''
    by_name = {p.name: p for p in available}
    listing = ', '.join(f'{p.name}{" (default)" if p.default else ""}'
                        for p in available)
    if not names:
        chosen = [p for p in available if p.default]
        if not chosen:
            raise SlurmError(f'Slurm has no default partition: name the '
                             f'partitions to bring in with --partition '
                             f'(partitions: {listing})')
        return chosen

    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise SlurmError(f'no partition {", ".join(unknown)} in Slurm '
                         f'(scontrol show partition: {listing}): pass '
                         f'--partition with one of these')

    empty = [name for name in names if not by_name[name].nodes]
    if empty:
        raise SlurmError(f'partition {", ".join(empty)} has no nodes')

    return [by_name[name] for name in dict.fromkeys(names)]


def left_out(available, chosen):
    '''``'bigmem (4 nodes), debug (1 node)'``: the partitions of
    ``available`` not in ``chosen``, or ``''``.'''
    names = {p.name for p in chosen}
    return ', '.join(f'{p.name} ({len(p.nodes)} node'
                     f'{"" if len(p.nodes) == 1 else "s"})'
                     for p in available if p.name not in names)


def nodes(partition):
    '''The :class:`Node` of each node of ``partition``.'''
    text = run('scontrol', '-o', 'show', 'node', partition.node_list)
    return parse_nodes(text)


def parse_nodes(text):
    '''The :class:`Node` of each line of ``scontrol -o show node``.'''
    found = []
    for line in text.splitlines():
        fields = key_values(line)
        if 'NodeName' in fields:
            found.append(Node(
                name=fields['NodeName'],
                sockets=int(fields.get('Sockets', 1)),
                cores_per_socket=int(fields.get('CoresPerSocket', 1)),
                threads_per_core=int(fields.get('ThreadsPerCore', 1)),
                real_memory_mib=int(fields.get('RealMemory', 1)),
            ))

    return found


def config_value(name):
    '''A value of ``scontrol show config``, or ``None``.'''
    found = re.search(rf'^{re.escape(name)}\s*=\s*(\S+)',
                      run('scontrol', 'show', 'config'), re.MULTILINE)
    return found[1] if found else None


def mpi_plugins():
    '''The MPI plugin types ``srun --mpi=list`` names.'''
    return parse_mpi_list(run('srun', '--mpi=list'))


def parse_mpi_list(text):
    '''The plugin types of ``srun --mpi=list``'s output: the indented
    lines (Slurm 22.05 and later also print plugin versions after them).'''
    return [line.strip() for line in text.splitlines()
            if line.startswith(('\t', ' ')) and line.strip()]


def accounting():
    '''``(backend, why)``: ReFrame's ``slurm`` backend when ``sacct``
    answers, else ``squeue``; ``why`` quotes what sacct said.'''
    if not shutil.which('sacct'):
        return NO_ACCOUNTING, 'sacct is not installed'

    done = subprocess.run(['sacct', '-n', '-X', '-S', 'now-1hours', '-o',
                           'JobID'], capture_output=True, text=True)
    if done.returncode == 0:
        return ACCOUNTING, 'sacct answers'

    said = (done.stderr or done.stdout).strip().splitlines()
    return NO_ACCOUNTING, (f'sacct: "{said[-1]}"' if said else
                           f'sacct failed ({done.returncode})')


#: The srun MPI plugin each MPI starts under: Open MPI 4 and later through
#: PMIx (Debian's Open MPI 4.1 aborts in MPI_Init under pmi2 or none),
#: the MPICH family through PMI2.
MPI_PLUGINS = {'openmpi': 'pmix', 'mpich': 'pmi2', 'mvapich2': 'pmi2',
               'intel-oneapi-mpi': 'pmi2', 'cray-mpich': 'cray_shasta'}


@dataclass(frozen=True)
class Launcher:
    #: ReFrame's launcher
    name: str
    #: ``[[variable, value]]`` the partition sets for it
    env_vars: list
    #: where this was read, for the configuration's comment
    why: str


def launcher_for(mpi, plugins, mpi_default):
    '''How ranks of the MPI package ``mpi`` start under this Slurm: srun
    with the plugin the MPI needs when ``srun --mpi=list`` has it (named by
    ``SLURM_MPI_TYPE`` unless it is Slurm's ``MpiDefault``), else the MPI's
    own mpirun inside the allocation.'''
    wanted = MPI_PLUGINS.get(mpi)
    listed = ', '.join(plugins) or 'none'
    if wanted is None or wanted not in plugins:
        return Launcher('mpirun', [], (
            f'srun --mpi=list: {listed}; {mpi} needs '
            f'{wanted or "a plugin this tool does not know"}: its own '
            f'mpirun starts the ranks inside the allocation'))

    if (mpi_default or '').startswith(wanted):
        return Launcher('srun', [], (
            f'srun --mpi=list: {listed}; MpiDefault={mpi_default} '
            f'(scontrol show config) is what {mpi} needs'))

    return Launcher('srun', [['SLURM_MPI_TYPE', wanted]], (
        f'srun --mpi=list: {listed}; {mpi} needs {wanted}, Slurm\'s '
        f'MpiDefault is {mpi_default}: SLURM_MPI_TYPE makes srun use it'))
