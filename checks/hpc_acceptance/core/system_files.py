'''The system files of ``config/systems/``: each defines ``system`` (one
entry of ReFrame's ``systems``) and ``environments``. The configuration
(``config/settings.py``) loads them, and so do the test configurations
layered over it, which redefine the embedded default ``local``.
'''

import importlib.util

from hpc_acceptance.core.paths import PROJECT_DIR

#: Where the system files are.
SYSTEMS_DIR = PROJECT_DIR / 'config' / 'systems'


def load(path):
    '''The module of the system file ``path``.'''
    spec = importlib.util.spec_from_file_location(
        f'hpc_acceptance_config_{path.stem}', path
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def local():
    '''The module of the embedded default, ``config/systems/local.py``.'''
    return load(SYSTEMS_DIR / 'local.py')
