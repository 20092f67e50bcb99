'''Every command the Markdown files show exists, with the options they give
it: ``hpc-acceptance`` subcommands and their options (against each
subcommand's ``--help``), the scripts of ``ci/`` and the options they take
(those they pass on to ``reframe`` against ``reframe --help``), and
``reframe``'s own options. So the docs cannot drift from the CLI.'''

import functools
import re
import shlex
import subprocess

import pytest

from conftest import HPC_ACCEPTANCE, PROJECT_DIR, REFRAME
from hpc_acceptance.tools import cli

#: A command as the docs write it: in a shell block, or a code span.
_COMMAND = re.compile(r'^(?:[A-Z_]+=\S+\s+)*((?:\.venv/bin/)?hpc-acceptance|'
                      r'ci/[\w/]+\.sh|reframe)(\s.*)?$')
_BLOCK = re.compile(r'```(?:sh|bash|console)?\n(.*?)```', re.DOTALL)
_SPAN = re.compile(r'`([^`\n]+)`')
#: Scripts whose other arguments go to reframe.
_TO_REFRAME = {'ci/acceptance.sh', 'ci/post-upgrade.sh', 'ci/nightly.sh',
               'ci/bench/suite_cost.sh'}


def _markdown_files():
    return sorted(path for path in PROJECT_DIR.rglob('*.md')
                  if not {'.venv', '.spack', 'var', 'node_modules'} &
                  set(path.relative_to(PROJECT_DIR).parts))


def _commands(text):
    '''``(program, [words])`` of each command line of a Markdown text.'''
    lines = [line for block in _BLOCK.findall(text)
             for line in block.replace('\\\n', ' ').splitlines()]
    lines += _SPAN.findall(text)
    for line in lines:
        line = line.split(' #', 1)[0].strip()
        match = _COMMAND.match(line)
        if not match:
            continue

        try:
            words = shlex.split(match[2] or '')
        except ValueError:
            words = (match[2] or '').split()

        yield match[1].replace('.venv/bin/', ''), words


def _options(words):
    '''The options of a command line, without their values; placeholders
    (``[reframe args]``, ``<name>``) left out.'''
    return [word.split('=', 1)[0] for word in words
            if re.match(r'^--?[A-Za-z]', word) and '<' not in word]


@functools.lru_cache(maxsize=None)
def _help(*command):
    done = subprocess.run([*command, '--help'], capture_output=True,
                          text=True, cwd=PROJECT_DIR, timeout=120)
    return done.stdout + done.stderr


def _offers(help_text, option):
    return re.search(rf'(?<![\w-]){re.escape(option)}(?![\w-])',
                     help_text) is not None


DOCUMENTED = sorted({(str(path.relative_to(PROJECT_DIR)), program,
                      tuple(words))
                     for path in _markdown_files()
                     for program, words in _commands(path.read_text())})


def test_the_docs_show_commands_at_all():
    programs = {program for _, program, _ in DOCUMENTED}
    assert {'hpc-acceptance', 'reframe', 'ci/acceptance.sh'} <= programs


@pytest.mark.parametrize('doc, program, words', DOCUMENTED,
                         ids=lambda v: v if isinstance(v, str) else None)
def test_a_documented_command_exists_with_its_options(doc, program, words):
    reframe_help = _help(str(REFRAME))
    if program == 'hpc-acceptance':
        subcommand = words[0] if words else '--help'
        assert subcommand in cli.SUBCOMMANDS or subcommand == '--help', \
            f'{doc}: hpc-acceptance has no subcommand {subcommand!r}'
        own = _help(str(HPC_ACCEPTANCE), subcommand)
        # after --, the arguments are reframe's
        words = words[1:words.index('--')] if '--' in words else words[1:]
        unknown = [o for o in _options(words) if not _offers(own, o)]
    elif program == 'reframe':
        unknown = [o for o in _options(words)
                   if not _offers(reframe_help, o)]
    else:
        script = PROJECT_DIR / program
        assert script.is_file(), f'{doc}: no script {program}'
        text = script.read_text()
        unknown = [o for o in _options(words)
                   if not _offers(text, o) and not (
                       program in _TO_REFRAME and _offers(reframe_help, o))]

    assert not unknown, f'{doc}: {program} {" ".join(words)}: no option ' \
                        f'{", ".join(unknown)}'


def test_an_unknown_option_or_subcommand_is_caught():
    '''The test's own rule, on commands the docs do not show.'''
    own = _help(str(HPC_ACCEPTANCE), 'suspects')
    assert _offers(own, '--drain') and not _offers(own, '--drian')
    assert not _offers(_help(str(REFRAME)), '--fleet')
    assert 'nodez' not in cli.SUBCOMMANDS
