'''Every behaviour the code offers is in the docs, read from the code
itself, so that an option or variable added later fails here until it is
documented:

- every option of every ``hpc-acceptance`` subcommand, from its argparse
  definition (its sub-subcommands' too; a subcommand that parses by hand
  names its options in ``USAGE``), in that subcommand's section of
  checks/hpc_acceptance/tools/README.md;
- every environment variable the code reads (``os.environ`` and
  ``os.getenv`` in checks/ and config/, constants resolved; ``$NAME`` in
  ci/*.sh where the script does not set it itself) in the table of
  config/README.md's "Environment variables";
- every exit status the scripts and tools give in ci/README.md's table.

(tests/docs/test_documented_commands.py holds the other direction: what
the docs show exists.)
'''

import argparse
import ast
import re

import pytest

from conftest import PROJECT_DIR
from hpc_acceptance.tools import cli

TOOLS_README = PROJECT_DIR / 'checks' / 'hpc_acceptance' / 'tools' / \
    'README.md'
VARIABLES_DOC = PROJECT_DIR / 'config' / 'README.md'

#: Reads of variables no site sets or needs told: the shell's own, the
#: process's search path, the login's name.
NOT_SETTINGS = {'PATH', 'HOME', 'PWD', 'BASH_SOURCE', 'EUID', 'UID',
                'IFS', 'FUNCNAME', 'LINENO', 'RANDOM', 'PIPESTATUS',
                'LOGNAME', 'USER'}
#: Reads of a variable whose name is not in the code, with where the docs
#: say which it is.
DYNAMIC = {
    'self.credentials_variable': "the export's `credentials_variable`",
}


def parser_options(parser):
    '''Every option string of ``parser`` and of its subcommands.'''
    found = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= parser_options(sub)
        else:
            found |= set(action.option_strings) - {'-h', '--help'}

    return found


def options_of(name):
    '''Every option of subcommand ``name``, as cli.py parses it.'''
    return parser_options(cli.parser_of(name, cli.module_of(name)))


def section(text, heading):
    '''The Markdown section whose heading contains ``heading``, up to the
    next heading of its level or above.'''
    lines = text.splitlines()
    for number, line in enumerate(lines):
        found = re.match(r'^(#+)\s', line)
        if found and heading in line:
            level = len(found[1])
            rest = []
            for following in lines[number + 1:]:
                deeper = re.match(r'^(#+)\s', following)
                if deeper and len(deeper[1]) <= level:
                    break
                rest.append(following)
            return '\n'.join(rest)

    return None


def mentions(text, option):
    return re.search(rf'(?<![\w-]){re.escape(option)}(?![\w-])', text)


@pytest.mark.parametrize('name', sorted(cli.SUBCOMMANDS))
def test_every_option_of_the_subcommand_is_documented(name):
    text = section(TOOLS_README.read_text(), f'`hpc-acceptance {name}`')
    assert text is not None, \
        f'{TOOLS_README}: no section "`hpc-acceptance {name}`"'
    missing = sorted(o for o in options_of(name) if not mentions(text, o))
    assert not missing, (f'{TOOLS_README}, `hpc-acceptance {name}`: '
                         f'options not documented: {", ".join(missing)}')
    assert 'Exit status' in text, f'hpc-acceptance {name}: no exit status'


def test_the_options_are_read_from_the_definitions():
    '''The rule on subcommands of each kind: plain, with sub-subcommands,
    passing arguments on.'''
    assert {'--replay', '--since', '--verify', '--db', '--site-dir'} <= \
        options_of('export')
    assert {'--keep', '--run', '--reports'} <= options_of('db')
    assert options_of('run') == {'--full-output', '--fleet',
                                 '--fleet-mode', '--node-time-limit',
                                 '--nodes-per-job', '--reservation',
                                 '--max-jobs'}
    assert options_of('verdict') == set()
    assert mentions('`--db FILE`', '--db')
    assert not mentions('--db-file', '--db')


def _module_constants(tree):
    return {target.id: node.value.value
            for node in tree.body if isinstance(node, ast.Assign) and
            isinstance(node.value, ast.Constant) and
            isinstance(node.value.value, str)
            for target in node.targets if isinstance(target, ast.Name)}


def _environ(node):
    '''Whether ``node`` is ``os.environ`` or a name ``environ``.'''
    return (isinstance(node, ast.Attribute) and node.attr == 'environ') or \
        (isinstance(node, ast.Name) and node.id == 'environ')


def _read_argument(node):
    '''The argument naming the variable of an environment read, or
    ``None`` when ``node`` is none.'''
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in (
                'get', 'pop', 'setdefault') and _environ(func.value):
            return node.args[0] if node.args else None
        if (isinstance(func, ast.Attribute) and func.attr == 'getenv') or \
                (isinstance(func, ast.Name) and func.id == 'getenv'):
            return node.args[0] if node.args else None
    if isinstance(node, ast.Subscript) and _environ(node.value) and \
            isinstance(node.ctx, ast.Load):
        return node.slice
    return None


def _shown(path):
    return str(path.relative_to(PROJECT_DIR)
               if path.is_relative_to(PROJECT_DIR) else path)


def python_reads(files):
    '''``{variable: [file:line]}`` of the environment reads in ``files``;
    a name that cannot be told is ``?<expression>``.'''
    trees = {path: ast.parse(path.read_text()) for path in files}
    # another module's, by its name (modules of one name share)
    constants = {}
    for path, tree in trees.items():
        constants.setdefault(path.stem, {}).update(_module_constants(tree))
    found = {}
    for path, tree in trees.items():
        own = _module_constants(tree)
        aliases = {alias.asname or alias.name: alias.name
                   for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom)
                   for alias in node.names}
        for node in ast.walk(tree):
            argument = _read_argument(node)
            if argument is None:
                continue
            if isinstance(argument, ast.Constant):
                name = argument.value
            elif isinstance(argument, ast.Name):
                name = own.get(argument.id)
            elif isinstance(argument, ast.Attribute) and \
                    isinstance(argument.value, ast.Name):
                module = aliases.get(argument.value.id, argument.value.id)
                name = constants.get(module, {}).get(argument.attr)
            else:
                name = None
            name = name or f'?{ast.unparse(argument)}'
            found.setdefault(name, []).append(f'{_shown(path)}:{node.lineno}')

    return found


def shell_reads(files):
    '''``{variable: [file]}`` the scripts read and do not set themselves
    (a name read with a default, ``${NAME:-...}``, counts as read).'''
    found = {}
    for path in files:
        text = path.read_text()
        for name in set(re.findall(r'\$\{?([A-Za-z_]\w*)', text)):
            if not re.fullmatch(r'[A-Z][A-Z0-9_]*', name):
                continue
            assigned = re.search(rf'^\s*(export\s+|local\s+)?{name}\+?=',
                                 text, re.MULTILINE)
            defaulted = re.search(rf'\$\{{{name}:?[-+=]', text)
            if not assigned or defaulted:
                found.setdefault(name, []).append(_shown(path))

    return found


def environment_reads():
    python = sorted((PROJECT_DIR / 'checks').rglob('*.py')) + \
        sorted((PROJECT_DIR / 'config').rglob('*.py'))
    reads = python_reads(python)
    for name, where in shell_reads(
            sorted((PROJECT_DIR / 'ci').glob('*.sh'))).items():
        reads.setdefault(name, []).extend(where)
    return reads


def test_every_environment_variable_read_is_documented():
    table = section(VARIABLES_DOC.read_text(), 'Environment variables')
    assert table, f'{VARIABLES_DOC}: no section "Environment variables"'
    missing = []
    for name, where in sorted(environment_reads().items()):
        if name in NOT_SETTINGS:
            continue
        if name.startswith('?'):
            documented_as = DYNAMIC.get(name[1:])
            assert documented_as, (f'{where}: reads the variable '
                                   f'{name[1:]}, whose name the test '
                                   f'cannot tell: add it to DYNAMIC')
            if documented_as not in table:
                missing.append(f'{documented_as} ({", ".join(where)})')
        elif f'`{name}`' not in table:
            missing.append(f'{name} ({", ".join(where)})')

    assert not missing, (f'{VARIABLES_DOC}, "Environment variables": not '
                         f'documented: {"; ".join(missing)}')


def test_the_scan_finds_reads_of_each_kind(tmp_path):
    '''The scan's rule on code it must catch: a literal, a constant of the
    module, a constant of another module, a shell default.'''
    (tmp_path / 'names.py').write_text("WAIT = 'X_WAIT'\n")
    (tmp_path / 'reader.py').write_text(
        "import os\nfrom os import environ\nfrom pkg import names as n\n"
        "OWN = 'X_OWN'\n"
        "a = os.environ.get('X_LITERAL')\nb = os.getenv(OWN)\n"
        "c = environ[n.WAIT]\nos.environ['X_SET'] = '1'\n")
    (tmp_path / 'run.sh').write_text(
        'x=${X_SHELL:-1}\nY_SET=2\necho "$Y_SET ${Z_DEFAULTED:-3}"\n'
        'Z_DEFAULTED=4\n')
    reads = python_reads([tmp_path / 'names.py', tmp_path / 'reader.py'])
    assert set(reads) == {'X_LITERAL', 'X_OWN', 'X_WAIT'}
    assert set(shell_reads([tmp_path / 'run.sh'])) == {'X_SHELL',
                                                       'Z_DEFAULTED'}


def test_the_scan_sees_the_variables_the_suite_is_known_to_read():
    reads = environment_reads()
    assert {'HPC_ACCEPTANCE_SITE_DIR', 'HPC_ACCEPTANCE_LOCK_FILE',
            'HPC_ACCEPTANCE_MAX_JOBS', 'HPC_ACCEPTANCE_WAIT',
            'HPC_ACCEPTANCE_SPACK_KIT', 'RFM_SQLITE_DB_FILE'} <= set(reads)


EXIT_TABLE = PROJECT_DIR / 'ci' / 'README.md'


def test_the_exit_table_names_every_status_the_runs_end_with():
    '''0 to 6 of the scripts and the verdict, and the signals (the
    table against the code's constants: tests/docs/test_exit_statuses.py).'''
    table = section(EXIT_TABLE.read_text(), 'Exit status')
    rows = set(re.findall(r'^\| (\d+(?:, \d+)*) \|', table, re.MULTILINE))
    statuses = {status for row in rows for status in row.split(', ')}
    assert statuses >= {'0', '1', '2', '3', '4', '5', '6', '130', '143'}, \
        statuses
