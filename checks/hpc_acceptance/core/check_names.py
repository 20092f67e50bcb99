'''Names of the checks in a directory tree, found without importing them.

The configuration validates reference files when ReFrame loads it, before
any check is imported; like ReFrame's own loader, this reads the sources
with :mod:`ast` and collects the classes decorated with ``simple_test``.
'''

import ast
import os


def _is_simple_test(decorator):
    if isinstance(decorator, ast.Call):
        decorator = decorator.func

    name = getattr(decorator, 'attr', None) or getattr(decorator, 'id', None)
    return name == 'simple_test'


def simple_test_classes(directories):
    '''Class names decorated with ``simple_test`` in ``*.py`` below
    ``directories``.'''
    names = set()
    for top in directories:
        for root, _, files in os.walk(top):
            for filename in files:
                if not filename.endswith('.py'):
                    continue

                with open(os.path.join(root, filename)) as fp:
                    tree = ast.parse(fp.read(), filename)

                names.update(node.name for node in ast.walk(tree)
                             if isinstance(node, ast.ClassDef) and
                             any(map(_is_simple_test, node.decorator_list)))

    return names
