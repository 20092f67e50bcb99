'''Example production system: copy this file, rename it and edit it, or
let ``hpc-acceptance new-system`` write one from what the cluster says
(config/README.md, "Adding a site's system").

A Slurm cluster with a login node and a ``compute`` partition of two-socket
nodes. What a site changes:

- ``name``, ``hostnames`` (regexes of the hosts ReFrame runs on),
  ``modules_system`` (``lmod``, ``tmod4``, ... — ``nomod`` here so that the
  example loads on any machine);
- the partition's ``access`` (account, QoS, ``--exclusive``), ``max_jobs``
  and ``launcher``. ``srun`` starts Open MPI ranks through Slurm's PMIx
  plugin (``srun --mpi=list`` lists ``pmix``; ``MpiDefault=pmix`` in
  ``slurm.conf``); ``--no-requeue`` makes a job lost to a failed node a
  failed check naming the node instead of a silent rerun. Without Slurm
  accounting (no ``sacct``), the scheduler is ``squeue``. This path was
  run on a four-node test cluster: see config/README.md, "Adding a
  site's system";
- ``processor``: the compute nodes' topology, which the checks size their
  working sets from. Generate it on a compute node with
  ``reframe --detect-host-topology=config/topology/<system>-<partition>.json``;
- ``extras``: the Spack environment the checks take their binaries from,
  how Turbo is switched (``'slurm'``, or ``{'on': [commands], 'off':
  [commands]}`` run in the job), the memory of one node and the node's
  theoretical peaks (see checks/README.md, "Peak figures");
- ``environments``: the modules of the site's compilers and MPI, and the
  compiler behind the MPI wrappers (``extras.compiler``) for ISA flags.
'''

import json
from pathlib import Path

_TOPOLOGY = (Path(__file__).resolve().parents[1] / 'topology' /
             'example-cluster-compute.json')

system = {
    'name': 'example-cluster',
    'descr': 'Example Slurm cluster of two-socket Ice Lake nodes',
    'hostnames': [r'^login\d+\.example\.org$'],
    'modules_system': 'nomod',
    'partitions': [
        {
            'name': 'login',
            'descr': 'Login nodes: nothing is benchmarked here',
            'scheduler': 'local',
            'launcher': 'local',
            'environs': ['gnu'],
            'features': ['login'],
        },
        {
            'name': 'compute',
            'descr': 'Two-socket Xeon 8360Y nodes, whole nodes per job',
            'scheduler': 'slurm',
            'launcher': 'srun',
            'access': ['--partition=compute', '--exclusive',
                       '--no-requeue'],
            'environs': ['gnu'],
            'max_jobs': 16,
            'time_limit': '30m',
            'features': ['compute'],
            'processor': json.loads(_TOPOLOGY.read_text()),
            'resources': [
                # Turbo variants: Slurm sets the core frequency governor.
                {'name': 'cpu_freq', 'options': ['--cpu-freq={freq}']},
                # Hyper-Threading variants: use or leave the sibling threads.
                {'name': 'threads_per_core',
                 'options': ['--hint={hint}']},
            ],
            'extras': {
                'spack_env': 'spack-envs/example-cluster',
                # Turbo variants: Slurm sets the frequency (resource above),
                # verified by the clock measured against the base clock.
                'turbo_control': 'slurm',
                'nominal_clock_ghz': 2.4,
                # Memory of one node: 16 x 16 GiB DIMMs
                'memory_bytes': 256 * 2**30,
                # 8 DDR4-3200 channels x 8 bytes x 3.2 GT/s x 2 sockets
                'peak_memory_bandwidth_gbs': 409.6,
                # 2.4 GHz x 36 cores x 32 DP flop/cycle x 2 sockets
                'peak_gflops': 5529.6,
            },
        },
    ]
}

environments = [
    {
        'name': 'gnu',
        # With a real modules system, list the site's modules here, e.g.
        # 'modules': ['gcc/12.2.0', 'openmpi/4.1.6'],
        'cc': 'mpicc',
        'cxx': 'mpicxx',
        'ftn': 'mpif90',
        'features': ['openmp', 'mpi'],
        # The compiler behind the wrappers: archspec picks ISA flags for it.
        'extras': {'compiler': {'name': 'gcc', 'version': '12.2.0'}},
        'target_systems': ['example-cluster'],
    }
]
