'''The docs' marked command blocks (tests/helpers/doc_blocks.py): each is
taken by the test it names, so none is shown as run by the tests while no
test runs it; and the runner's own rules, on blocks the docs do not have.'''

import os

import pytest

from conftest import PROJECT_DIR
from helpers import doc_blocks


def test_the_quick_start_and_adding_a_system_are_marked():
    marked = {(b.doc, b.heading) for b in doc_blocks.marked_blocks()}
    assert {('README.md', 'Quick start'),
            ('README.md', 'Add your system')} <= marked


@pytest.mark.parametrize('found', doc_blocks.marked_blocks(),
                         ids=lambda b: f'{b.doc}:{b.heading}')
def test_each_marked_block_is_taken_by_the_test_it_names(found):
    test = PROJECT_DIR / found.test
    assert test.is_file(), f'{found.doc}: run-by {found.test}: no such test'
    claim = f"doc_blocks.block('{found.doc}', '{found.heading}')"
    assert claim in test.read_text(), \
        f'{found.test} does not run {found.doc}, "{found.heading}" ({claim})'
    placeholders = {word: 'x' for word in
                    doc_blocks.PLACEHOLDER.findall(found.text)}
    assert doc_blocks.commands(found.text, placeholders), \
        f'{found.doc}: an empty block'


def test_placeholders_are_replaced_and_comments_dropped():
    text = ('.venv/bin/hpc-acceptance new-system <name> \\\n'
            '    --site-dir <site>   # the site\'s own\n'
            '# a line for the reader\n'
            'export HPC_ACCEPTANCE_SITE_DIR=<site>\n')
    assert doc_blocks.commands(text, {'<name>': 'c1', '<site>': '/etc/s'}) \
        == [['.venv/bin/hpc-acceptance', 'new-system', 'c1', '--site-dir',
             '/etc/s'], ['export', 'HPC_ACCEPTANCE_SITE_DIR=/etc/s']]
    with pytest.raises(doc_blocks.DocBlockError, match='no value for <site>'):
        doc_blocks.commands(text, {'<name>': 'c1'})


def test_a_session_keeps_exports_and_fails_on_a_failing_command():
    session = doc_blocks.Session({'PATH': os.environ['PATH']})
    session.run(['export', 'X_DOC=1'])
    assert session.run(['sh', '-c', 'echo $X_DOC']).stdout == '1\n'
    session.run(['unset', 'X_DOC'])
    assert 'X_DOC' not in session.env
    with pytest.raises(doc_blocks.DocBlockError, match='exit 3'):
        session.run(['sh', '-c', 'exit 3'])


def test_a_test_may_add_words_but_not_change_the_docs():
    session = doc_blocks.Session({'PATH': os.environ['PATH']}, adapt={
        'echo': lambda words: [*words, 'added'],
        'true': lambda words: ['true', 'other']})
    assert session.run(['echo', 'doc']).stdout == 'doc added\n'
    with pytest.raises(doc_blocks.DocBlockError, match='changed the words'):
        session.run(['true', 'doc'])
