'''What the docs show a command prints is what it prints today: each text
block marked ``<!-- output-of: COMMANDS -->`` (tests/helpers/doc_blocks.py)
against the output of its commands, run from the project's root on the
checkout's recorded runs, as on a fresh checkout (no results stored, no
setting of a site's); and the comparison's own rules.'''

import os
import subprocess

import pytest

from conftest import PROJECT_DIR
from helpers import doc_blocks


def test_the_quick_start_and_a_failing_night_show_real_output():
    docs = [block.doc for block in doc_blocks.output_blocks()]
    assert docs.count('README.md') >= 2, docs


@pytest.mark.parametrize('found', doc_blocks.output_blocks(),
                         ids=lambda b: f'{b.doc}:{" ".join(b.commands[0])}')
def test_each_shown_output_is_printed(found, tmp_path):
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(('HPC_ACCEPTANCE_', 'RFM_'))}
    env['RFM_SQLITE_DB_FILE'] = str(tmp_path / 'results.db')
    printed = ''
    for words in found.commands:
        done = subprocess.run(words, cwd=PROJECT_DIR, env=env, text=True,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=300)
        printed += done.stdout
    assert doc_blocks.shows(found.text, printed), (
        f'{found.doc}: the block of {" ".join(found.commands[0])} is not '
        f'what it prints today:\n{printed}')


@pytest.mark.parametrize('shown, printed, same', [
    ('a\nb\n', 'a\nb\n', True),
    ('a\nb\n', 'a\nc\n', False),
    ('a\n  ...\nd\n', 'a\nb\nc\nd\n', True),
    ('a\n...\nd\n', 'a\nd\n', True),
    ('a\n...\nd\n', 'a\nb\n', False),
    ('a long li...\n', 'a long line\n', True),
    ('a long li...\n', 'a short line\n', False),
    ('a\n', 'a\nb\n', False),
])
def test_elided_lines_and_line_ends(shown, printed, same):
    assert doc_blocks.shows(shown, printed) is same
