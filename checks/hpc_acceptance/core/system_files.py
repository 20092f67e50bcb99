'''The system files of ``config/systems/``: each defines ``system`` (one
entry of ReFrame's ``systems``) and ``environments``. The configuration
(``config/settings.py``) loads them, and so do the test configurations
layered over it, which redefine the embedded default ``local``.
'''

from reframe.utility import import_module_from_file

from hpc_acceptance.core.paths import PROJECT_DIR

#: Where the system files are.
SYSTEMS_DIR = PROJECT_DIR / 'config' / 'systems'


def load(path):
    '''The module of the system file ``path``, loaded as ReFrame loads
    configuration and check files (once per process).'''
    return import_module_from_file(str(path))


def local():
    '''The module of the embedded default, ``config/systems/local.py``.'''
    return load(SYSTEMS_DIR / 'local.py')
