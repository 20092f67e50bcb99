'''Loading a system file: each defines ``system`` (one entry of ReFrame's
``systems``) and ``environments``. The configuration (``config/settings.py``,
which knows where its ``systems/`` are) loads them, and so do a site
directory's (:mod:`.site`) and the test configurations layered over it.
'''

from reframe.utility import import_module_from_file


def load(path):
    '''The module of the system file ``path``, loaded as ReFrame loads
    configuration and check files (once per process).'''
    return import_module_from_file(str(path))
