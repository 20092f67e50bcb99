'''A Slurm partition on this machine, layered over config/settings.py by
tests/e2e/test_slurm_partition.py:

    reframe -C config/settings.py -C tests/data/slurm/slurm_localhost.py \
            --system slurm-localhost ...

It is the embedded default's node behind a real scheduler (Debian's Slurm,
started by the test): jobs go through sbatch, MPI ranks through srun with
PMIx, Turbo is asked of Slurm's --cpu-freq, as on a production cluster
(config/systems/example_cluster.py).
'''

import copy
import importlib.util
from pathlib import Path

_LOCAL = (Path(__file__).resolve().parents[3] / 'config' / 'systems' /
          'local.py')
_spec = importlib.util.spec_from_file_location('hpc_acceptance_slurm_local',
                                               _LOCAL)
_local = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_local)

_node = _local.system['partitions'][0]
_VAR = Path(__file__).resolve().parents[3] / 'var'

site_configuration = {
    'systems': [
        {
            'name': 'slurm-localhost',
            'descr': 'This machine as a one-node Slurm cluster',
            # never picked by host name: --system slurm-localhost
            'hostnames': ['^$'],
            'modules_system': 'nomod',
            'prefix': str(_VAR),
            'partitions': [
                {
                    'name': 'compute',
                    'descr': 'One node, jobs through Slurm',
                    # no accounting database: poll squeue, not sacct
                    'scheduler': 'squeue',
                    'launcher': 'srun',
                    'access': ['--partition=compute'],
                    'environs': ['gnu'],
                    'max_jobs': 1,
                    'features': ['compute'],
                    'processor': copy.deepcopy(_node['processor']),
                    'env_vars': _node['env_vars'],
                    'resources': [
                        {'name': 'cpu_freq', 'options': ['--cpu-freq={freq}']},
                    ],
                    'extras': dict(_node['extras'], turbo_control='slurm'),
                }
            ],
        }
    ],
    'environments': [
        dict(copy.deepcopy(_local.environments[0]),
             target_systems=['slurm-localhost'])
    ],
}
