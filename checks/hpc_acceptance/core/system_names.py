'''The names of the systems a checkout knows, read without ReFrame.

``ci/nightly.sh`` refuses an unknown ``HPC_ACCEPTANCE_SYSTEM`` before
anything runs, also on a fresh checkout whose setup has not made the
project's environment yet: so the names are read from the system files'
text (``system = {'name': ...}``), with the standard library alone, from
``config/systems/`` and the site directory's ``systems/``
(:mod:`.site`).

    python3 -m hpc_acceptance.core.system_names [SITE_DIR]

prints the names, one a line; a file whose name is not written out
(computed) prints ``?``, which stands for any name.
'''

import ast
import sys
from pathlib import Path

from hpc_acceptance.core.paths import PROJECT_DIR

#: Stands for a system file whose name is computed, not written out.
UNKNOWN = '?'

#: The checkout's system files (:mod:`.system_files` loads them).
_CONFIG_SYSTEMS = PROJECT_DIR / 'config' / 'systems'


def name_in(path):
    '''The ``'name'`` of the ``system`` dictionary a system file assigns,
    or :data:`UNKNOWN`.'''
    try:
        tree = ast.parse(Path(path).read_text(), str(path))
    except (OSError, SyntaxError, ValueError):
        return UNKNOWN

    for node in tree.body:
        if (isinstance(node, ast.Assign) and
                any(isinstance(t, ast.Name) and t.id == 'system'
                    for t in node.targets) and
                isinstance(node.value, ast.Dict)):
            for key, value in zip(node.value.keys, node.value.values):
                if (isinstance(key, ast.Constant) and key.value == 'name' and
                        isinstance(value, ast.Constant) and
                        isinstance(value.value, str)):
                    return value.value

    return UNKNOWN


def names(site_dir=None):
    '''The names of the systems of ``config/systems/`` and of
    ``site_dir``'s ``systems/``, sorted.'''
    # <site>/systems, as site.systems_dir says (which needs ReFrame)
    folders = [_CONFIG_SYSTEMS] + ([Path(site_dir) / 'systems']
                                   if site_dir else [])
    return sorted({name_in(path) for folder in folders
                   for path in folder.glob('*.py')})


if __name__ == '__main__':
    print('\n'.join(names(sys.argv[1] if len(sys.argv) > 1 else None)))
