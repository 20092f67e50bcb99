'''Lines printed for a shell (hpc_acceptance.tools.common.shell_line):
every word quoted, no word on two lines, comments that stay comments.'''

import shlex

import pytest

from hpc_acceptance.tools.common import shell_line


def test_every_word_is_quoted_and_reads_back_as_itself():
    argv = ['scontrol', 'update', 'NodeName=n1', 'State=DRAIN',
            'Reason=hpc-acceptance: x $(id>F) `id` "q" \'s\' ; rm -rf ~']
    line = shell_line.quoted(argv)
    assert shlex.split(line) == argv
    assert '$(id>F)' not in line.replace("'", '').split()[:4]


@pytest.mark.parametrize('word', ['n1\nid', 'n1\rid', 'a\x1bb', 'a\tb',
                                  'a\x00b', 'a\u202eb'])
def test_a_word_with_a_control_character_is_refused(word):
    with pytest.raises(shell_line.NotALine, match='control character'):
        shell_line.quoted(['scontrol', 'update', f'NodeName={word}'])


def test_a_comment_stays_one_comment_line():
    line = shell_line.comment('n2: reason\nscontrol update NodeName=n2 '
                              'State=RESUME', indent='  ')
    assert line.startswith('#   n2: reason scontrol') and '\n' not in line
