'''The names of the systems a checkout knows, read without ReFrame.

``ci/nightly.sh`` refuses an unknown ``HPC_ACCEPTANCE_SYSTEM`` before
anything runs, also on a fresh checkout whose setup has not made the
project's environment yet: so the names are read from the system files'
text (``system = {'name': ...}``), with the standard library alone, from
the folders it names (``config/systems/`` and the site directory's
``systems/``).

    python3 -m hpc_acceptance.core.system_names FOLDER...

prints the names, one a line; a file whose name is not written out
(computed) prints ``?``, which stands for any name.
'''

import ast
import sys
from pathlib import Path

#: Stands for a system file whose name is computed, not written out.
UNKNOWN = '?'


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


def names(folders):
    '''The names of the systems of the system files in ``folders``,
    sorted.'''
    return sorted({name_in(path) for folder in folders
                   for path in Path(folder).glob('*.py')})


if __name__ == '__main__':
    print('\n'.join(names(sys.argv[1:])))
