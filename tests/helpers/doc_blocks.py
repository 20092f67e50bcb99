'''The docs' command blocks that the end-to-end tests run as written.

A shell block in a Markdown file is marked for a test by an HTML comment
on the line before it, which a reader of the rendered page does not see::

    <!-- run-by: tests/e2e/test_new_system.py -->
    ```sh
    .venv/bin/hpc-acceptance new-system <name> --site-dir <site>
    ```

The test named takes the block with :func:`block` (by its file and the
heading it stands under) and runs its commands, in order, with
:class:`Session`: only what the doc writes as a placeholder (``<name>``)
is replaced, by the test's value; a comment after ``#`` is the reader's.
So a command changed in the doc is the command the test runs, and one that
no longer works fails the test. tests/docs/test_doc_blocks.py holds that
every marked block is taken by the test it names.

A text block that shows what commands print is marked with them, run from
the project's root on files of the checkout (:func:`output_blocks`)::

    <!-- output-of: .venv/bin/hpc-acceptance verdict <report> 0 -->
    ```text
    acceptance passed — ...
    ```

tests/docs/test_doc_outputs.py runs them and compares (:func:`shows`): a
line ``...`` in the doc stands for lines left out, and so does a line's
end ``...``.
'''

import functools
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import NamedTuple

PROJECT_DIR = Path(__file__).resolve().parents[2]

#: A marked block: the test that runs it, then the block.
_MARKED = re.compile(r'^<!-- run-by: (\S+) -->\n```sh\n(.*?)^```',
                     re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r'^#+\s+(.*)$', re.MULTILINE)
#: A placeholder of a block (``<name>``), the test's value in its place.
PLACEHOLDER = re.compile(r'<[a-z][a-z-]*>')


#: A text block marked with the commands whose output it shows.
_OUTPUT = re.compile(r'^<!-- output-of: (.*?) -->\n```text\n(.*?)^```',
                     re.MULTILINE | re.DOTALL)
#: Elided: a line that is only ``...``, or a line's end.
_ELIDED = '...'


class Block(NamedTuple):
    doc: str        # the Markdown file, from the project's root
    heading: str    # the heading it stands under
    test: str       # the test file that runs it
    text: str


class DocBlockError(Exception):
    '''A marked block that cannot be taken or run as written.'''


def _markdown_files():
    return sorted(path for path in PROJECT_DIR.rglob('*.md')
                  if not {'.venv', '.spack', 'var', 'node_modules'} &
                  set(path.relative_to(PROJECT_DIR).parts))


def blocks_of(path):
    '''Every marked block of the Markdown file ``path``.'''
    text = Path(path).read_text()
    doc = str(Path(path).resolve().relative_to(PROJECT_DIR))
    found = []
    for match in _MARKED.finditer(text):
        headings = _HEADING.findall(text[:match.start()])
        found.append(Block(doc, headings[-1] if headings else '',
                           match[1], match[2]))
    return found


def marked_blocks():
    '''Every marked block of the project's Markdown files.'''
    return [block for path in _markdown_files() for block in blocks_of(path)]


def block(doc, heading):
    '''The one marked block of ``doc`` under the heading ``heading``.'''
    found = [b for b in blocks_of(PROJECT_DIR / doc) if b.heading == heading]
    if len(found) != 1:
        raise DocBlockError(f'{doc}: {len(found)} marked blocks under '
                            f'"{heading}", not one')
    return found[0]


class OutputBlock(NamedTuple):
    doc: str        # the Markdown file, from the project's root
    commands: list  # the word lists of the commands, run in order
    text: str       # what the doc shows they print


def output_blocks():
    '''Every text block of the project's Markdown files marked with the
    commands whose output it shows (``;`` between commands).'''
    found = []
    for path in _markdown_files():
        doc = str(path.relative_to(PROJECT_DIR))
        for match in _OUTPUT.finditer(path.read_text()):
            found.append(OutputBlock(
                doc, [shlex.split(part) for part in match[1].split(';')],
                match[2]))
    return found


def shows(shown, printed):
    '''Whether the doc's text ``shown`` is what was ``printed``, but for
    what the doc left out: a line ``...`` (with any indentation) stands for
    none or more lines, a line ending in ``...`` for the rest of a line
    that starts so.'''
    want = shown.rstrip('\n').split('\n')
    have = printed.rstrip('\n').split('\n')

    @functools.cache
    def match(i, j):
        if i == len(want):
            return j == len(have)
        if want[i].strip() == _ELIDED:
            return any(match(i + 1, k) for k in range(j, len(have) + 1))
        if j == len(have):
            return False
        if want[i].endswith(_ELIDED):
            same = have[j].startswith(want[i][:-len(_ELIDED)].rstrip())
        else:
            same = have[j] == want[i]
        return same and match(i + 1, j + 1)

    return match(0, 0)


def commands(text, placeholders):
    '''The word lists of the block's commands: continued lines joined,
    comments dropped, each placeholder replaced by its value in
    ``placeholders``; a placeholder without one is an error.'''
    found = []
    for line in text.replace('\\\n', ' ').splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        joined = ' '.join(words)
        missing = sorted(set(PLACEHOLDER.findall(joined)) -
                         set(placeholders))
        if missing:
            raise DocBlockError(f'{line.strip()!r}: no value for '
                                f'{", ".join(missing)}')
        found.append([PLACEHOLDER.sub(lambda m: placeholders[m[0]], word)
                      for word in words])
    return found


class Session:
    '''A user's shell, as far as the docs use one: ``export NAME=VALUE``
    and ``unset NAME`` change the environment of the commands after them;
    any other command runs from the project's root, and a failing one
    raises :class:`DocBlockError` with its output.

    ``adapt``: ``{program: function(words) -> words}``, where a test runs
    a command on its own terms (narrows a selection, names its own Spack);
    it receives the doc's words and may name the program by its path and
    add words after the doc's, never change or drop one.
    '''

    def __init__(self, env, adapt=None, timeout=3600):
        self.env = dict(env)
        self.adapt = adapt or {}
        self.timeout = timeout
        self.done = []

    def run(self, words):
        program = words[0]
        if program == 'export':
            for assignment in words[1:]:
                name, _, value = assignment.partition('=')
                self.env[name] = value
            return None
        if program == 'unset':
            for name in words[1:]:
                self.env.pop(name, None)
            return None

        key = os.path.basename(program)
        if key == 'hpc-acceptance' and len(words) > 1:
            key = f'hpc-acceptance {words[1]}'
        adapted = self.adapt.get(key, lambda w: w)(list(words))
        if adapted[1:len(words)] != words[1:]:
            raise DocBlockError(f'{key}: the test changed the words of the '
                                f'doc, not only added its own after them')
        done = subprocess.run(adapted, cwd=PROJECT_DIR, env=self.env,
                              text=True, timeout=self.timeout,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
        self.done.append((words, done))
        if done.returncode != 0:
            raise DocBlockError(f'{" ".join(words)}: exit {done.returncode}'
                                f'\n{done.stdout[-4000:]}')
        return done
