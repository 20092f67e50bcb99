'''The embedded default: whatever machine ReFrame runs on.

It matches any host name, runs jobs on this node one at a time (concurrent
benchmarks would skew each other) and detects the processor topology that
checks size themselves from each time ReFrame starts, with what this
process may use of it (:mod:`hpc_acceptance.core.node_view`: the cgroup's
cpuset and memory limit, the CPU affinity and ``Mems_allowed``, as inside
a Slurm job, a container or ``taskset``): its jobs inherit them. The
memory the checks size by is that of the NUMA nodes with CPUs the run may
allocate on (hwloc's figure), not ``MemTotal``, which also counts a GPU's
memory shown as a NUMA node. Debian's GNU compilers
and Open MPI provide the ``gnu`` environment (``ci/setup.sh`` installs them).

The partition uses the Spack environment ``ci/setup-spack.sh`` installed
exactly when that script recorded one (``<Spack directory>/setup.json``;
the directory is ``.spack/`` or ``HPC_ACCEPTANCE_SPACK_DIR``) that this
run can use (:mod:`hpc_acceptance.core.spack_setup`), never merely because
some ``spack`` is on ``PATH``.
'''

import os
import subprocess

from reframe.utility.cpuinfo import cpuinfo

from hpc_acceptance.core import node_view, spack_setup


#: ReFrame's description of this node, with what this process may use.
_PROCESSOR = node_view.of_this_host(cpuinfo())


def _memory_bytes():
    return node_view.memory_bytes(_PROCESSOR) or (
        os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES'))


def _gcc():
    '''The GNU compiler behind the Open MPI wrappers, for archspec's ISA
    flags; ``None`` when gcc is missing (ISA variants then skip).'''
    try:
        done = subprocess.run(['gcc', '-dumpfullversion'], text=True,
                              capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None

    return {'name': 'gcc', 'version': done.stdout.strip()}


def _open_mpi_as_root():
    # Open MPI refuses to start as root unless told; tell it only then.
    if os.geteuid() != 0:
        return []

    return [['OMPI_ALLOW_RUN_AS_ROOT', '1'],
            ['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1']]


def _prepared_spack():
    '''The record of ``ci/setup-spack.sh`` when this run may use it,
    else ``None``.'''
    record = spack_setup.read()
    if spack_setup.unusable_because(record):
        return None

    return record


def _spack_extras(prepared):
    if prepared is None:
        return {}

    # The checks look for spack on ReFrame's own PATH and run it in their
    # job scripts, which inherit this process's environment.
    os.environ.update(prepared['env_vars'])
    os.environ['PATH'] = f"{prepared['spack_bin']}:{os.environ['PATH']}"
    return {'spack_env': prepared['environment'],
            'spack_install_opts': prepared['install_opts']}


system = {
    'name': 'local',
    'descr': 'Embedded default: the node ReFrame runs on',
    'hostnames': ['.*'],
    'modules_system': 'nomod',
    'partitions': [
        {
            'name': 'default',
            'descr': 'This node, one benchmark at a time',
            'scheduler': 'local',
            'launcher': 'mpirun',
            'environs': ['gnu'],
            'max_jobs': 1,
            'features': ['compute'],
            # ReFrame auto-detects only partitions with a local launcher and
            # caches the result; detecting here never goes stale.
            'processor': _PROCESSOR,
            'env_vars': _open_mpi_as_root(),
            'extras': {
                # Checks refuse working sets that do not fit in this.
                'memory_bytes': _memory_bytes(),
                **_spack_extras(_prepared_spack()),
            },
        }
    ]
}

environments = [
    {
        'name': 'gnu',
        'cc': 'mpicc',
        'cxx': 'mpicxx',
        'ftn': 'mpif90',
        'features': ['openmp', 'mpi'],
        'extras': {'compiler': _gcc()},
        'target_systems': ['local'],
    }
]
