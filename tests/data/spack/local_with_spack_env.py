'''Configuration layered over config/settings.py by the Spack tests:

    reframe -C config/settings.py -C tests/data/spack/local_with_spack_env.py

It redefines the embedded default system ``local`` (ReFrame prefers the
later file and warns about the redefinition) with the Spack environment
named by ``$HPC_ACCEPTANCE_TEST_SPACK_ENV`` (an absolute path), so that tests
can install a copy of ``spack-envs/`` outside the checkout.
'''

import copy
import importlib.util
import os
from pathlib import Path

_LOCAL = (Path(__file__).resolve().parents[3] / 'config' / 'systems' /
          'local.py')

_spec = importlib.util.spec_from_file_location('hpc_acceptance_test_local',
                                               _LOCAL)
_local = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_local)

_system = copy.deepcopy(_local.system)
for _partition in _system['partitions']:
    _partition['extras']['spack_env'] = (
        os.environ['HPC_ACCEPTANCE_TEST_SPACK_ENV']
    )

site_configuration = {'systems': [_system]}
