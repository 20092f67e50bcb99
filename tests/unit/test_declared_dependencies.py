'''Every package the library imports is declared in pyproject.toml, not
merely brought along by another one (ReFrame brings archspec, but its pin
is ReFrame's to change).'''

import ast
import importlib.metadata
import re
import sys

import pytest
from conftest import PROJECT_DIR

LIBRARY = PROJECT_DIR / 'checks' / 'hpc_acceptance'
#: Scripts the library has run by Spack's own Python (``spack python``),
#: which imports Spack: not the library's dependencies.
RUN_BY_SPACK = {LIBRARY / 'core' / 'spack_load_every_variable.py'}
tomllib = pytest.importorskip('tomllib')


def _imported_modules():
    modules = set()
    for path in set(LIBRARY.rglob('*.py')) - RUN_BY_SPACK:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules.update(a.name.split('.')[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules.add(node.module.split('.')[0])

    return modules - set(sys.stdlib_module_names) - {'hpc_acceptance'}


def _normalized(name):
    return re.sub(r'[-_.]+', '-', name).lower()


def test_every_imported_package_is_a_declared_dependency():
    project = tomllib.loads((PROJECT_DIR / 'pyproject.toml').read_text())
    declared = {_normalized(re.match(r'[A-Za-z0-9_.-]+', spec)[0])
                for spec in project['project']['dependencies']}
    distributions = importlib.metadata.packages_distributions()
    undeclared = {module: distributions.get(module)
                  for module in _imported_modules()
                  if not declared & {_normalized(d) for d in
                                     distributions.get(module, [])}}
    assert undeclared == {}
