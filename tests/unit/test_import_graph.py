'''The library's structure, drawn from its imports: families side by side
above core, tools above the families, the tools' rooms in layers, no
arrows back up, no circles, no command called from another room, no
command module imported by another module.'''

import ast

import pytest

from conftest import PROJECT_DIR
from hpc_acceptance.tools import cli

LIBRARY = PROJECT_DIR / 'checks' / 'hpc_acceptance'
FAMILIES = ('memory', 'stream', 'hpcc', 'npb', 'network')
#: The rooms of ``tools`` in layers: each imports only those before it.
ROOMS = ('common', 'results', 'launch', 'references', 'fleet', 'node_jobs',
         'shifts', 'export', 'outcome', 'page', 'pipeline', 'upgrade')
#: Rooms beside the layers, on core and the families alone (and the
#: commands' common options, the results).
SIDE_ROOMS = ('new_system', 'topology')
_BELOW = {'core', *FAMILIES}
#: Package -> the packages it may import from, besides itself.
ALLOWED = {'core': set(),
           **{family: {'core'} for family in FAMILIES},
           **{f'tools.{room}': _BELOW | {f'tools.{r}' for r in ROOMS[:i]}
              for i, room in enumerate(ROOMS)},
           **{f'tools.{room}': _BELOW | {'tools.common', 'tools.results'}
              for room in SIDE_ROOMS},
           # the command: every room
           'tools': _BELOW | {f'tools.{room}' for room in ROOMS + SIDE_ROOMS}}


def module_name(path):
    parts = path.relative_to(LIBRARY.parent).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def imported_modules(path):
    '''The ``hpc_acceptance`` modules ``path`` imports, wherever in it.'''
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update(f'{node.module}.{alias.name}'
                         for alias in node.names)
            names.add(node.module)

    return {name for name in names
            if name.split('.')[0] == 'hpc_acceptance'}


def _graph():
    modules = {module_name(path): path
               for path in sorted(LIBRARY.rglob('*.py'))}
    graph = {}
    for name, path in modules.items():
        # "from pkg import module" names a module; "from module import
        # thing" names the module: keep what exists.
        graph[name] = {imported for imported in imported_modules(path)
                       if imported in modules and imported != name}

    return graph


GRAPH = _graph()


def package_of(module):
    '''``core``, a family, ``tools.<room>``, or ``tools`` for the command
    itself.'''
    parts = module.split('.')
    if len(parts) > 2 and parts[1] == 'tools' and \
            (LIBRARY / 'tools' / parts[2]).is_dir():
        return f'tools.{parts[2]}'

    return parts[1] if len(parts) > 1 else None


def test_every_module_is_in_a_package_the_rules_know():
    packages = {package_of(module) for module in GRAPH} - {None}
    assert packages == set(ALLOWED)


@pytest.mark.parametrize('module', sorted(GRAPH))
def test_imports_run_down_the_layers(module):
    package = package_of(module)
    if package is None:
        assert GRAPH[module] == set(), 'the top package imports nothing'
        return

    wrong = sorted(imported for imported in GRAPH[module]
                   if package_of(imported) not in ALLOWED[package] |
                   {package})
    assert not wrong, f'{module} ({package}) must not import {wrong}'


def test_there_are_no_circles():
    done, path = set(), []

    def visit(module):
        if module in path:
            circle = path[path.index(module):] + [module]
            pytest.fail('import circle: ' + ' -> '.join(circle))

        if module in done:
            return

        path.append(module)
        for imported in sorted(GRAPH[module]):
            visit(imported)

        path.pop()
        done.add(module)

    for module in sorted(GRAPH):
        visit(module)


@pytest.mark.parametrize('module', sorted(GRAPH))
def test_no_module_only_re_exports(module):
    path = LIBRARY.parent.joinpath(*module.split('.'))
    path = path / '__init__.py' if path.is_dir() else path.with_suffix('.py')
    body = ast.parse(path.read_text()).body
    if path.name == '__init__.py':
        assert [type(node) for node in body] == [ast.Expr], \
            f'{path}: a package\'s __init__ holds its docstring only'
        return

    assert ast.get_docstring(ast.Module(body, [])), f'{path}: no docstring'
    assert any(not isinstance(node, (ast.Import, ast.ImportFrom, ast.Expr))
               for node in body), f'{path} only imports'


def _bound_modules(tree, modules):
    '''``{name: module}`` of the ``hpc_acceptance`` modules an import in
    ``tree`` binds to a name.'''
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                name = f'{node.module}.{alias.name}'
                if name in modules:
                    bound[alias.asname or alias.name] = name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    bound[alias.asname or alias.name.split('.')[0]] = \
                        alias.name

    return bound


@pytest.mark.parametrize('module', sorted(GRAPH))
def test_no_command_is_called_from_another_room(module):
    '''A room reuses another's work through its functions, which return
    values: never through a command's entry point (``main``,
    ``command``), with an argv to build and output to parse.'''
    path = LIBRARY.parent.joinpath(*module.split('.'))
    path = path / '__init__.py' if path.is_dir() else path.with_suffix('.py')
    tree = ast.parse(path.read_text())
    bound = _bound_modules(tree, GRAPH)
    called = sorted(
        f'{bound[node.func.value.id]}.{node.func.attr}'
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and
        isinstance(node.func, ast.Attribute) and
        node.func.attr in ('main', 'command') and
        isinstance(node.func.value, ast.Name) and
        node.func.value.id in bound and
        package_of(bound[node.func.value.id]) != package_of(module))
    assert not called, f'{module} calls {called}'


#: The subcommands' modules (``cli.SUBCOMMANDS``), front-ends only.
COMMAND_MODULES = {f'hpc_acceptance.tools.{module}'
                   for module in cli.SUBCOMMANDS.values()}


def test_every_subcommand_module_is_in_the_graph():
    assert COMMAND_MODULES <= set(GRAPH)


@pytest.mark.parametrize('module', sorted(GRAPH))
def test_no_module_imports_a_command_module(module):
    '''A command is a front-end: its options, the settings it reads, the
    exit status. The work it fronts lives in a library module named for
    what it does, which other modules import instead; ``cli`` finds the
    commands by name.'''
    imported = sorted(GRAPH[module] & COMMAND_MODULES)
    assert not imported, f'{module} imports the command module(s) ' \
                         f'{imported}: move the work it needs into a ' \
                         f'library module'


@pytest.mark.parametrize('module', sorted(GRAPH))
def test_no_module_reads_printed_output(module):
    '''What a function returns is the value; a command's printed lines
    are for people.'''
    path = LIBRARY.parent.joinpath(*module.split('.'))
    path = path / '__init__.py' if path.is_dir() else path.with_suffix('.py')
    assert 'redirect_stdout' not in path.read_text(), \
        f'{module} captures what another function prints'


@pytest.mark.parametrize('family', FAMILIES)
def test_each_check_names_the_package_of_its_logic(family):
    checks = sorted((PROJECT_DIR / 'checks' / family).glob('*.py'))
    assert checks
    for path in checks:
        tree = ast.parse(path.read_text())
        assert f':mod:`hpc_acceptance.{family}`' in ast.get_docstring(tree), \
            f'{path}: its docstring does not name hpc_acceptance.{family}'
        used = {package_of(name) for name in imported_modules(path)}
        assert used <= {family, 'core'}, \
            f'{path} imports from {sorted(used - {family, "core"})}'
