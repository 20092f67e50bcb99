'''Lines printed for a shell: a command whose every word is quoted, and
comments that stay comments.

``hpc-acceptance suspects --format slurm`` prints ``scontrol`` lines for a
sysadmin to read and pipe to ``sh``; the database's recovery prints the
commands that restore it. Their words come from reports and from Slurm
(node names, figures, kernel strings, reasons): each word is
``shlex.quote``d, so that ``$(...)``, backticks, ``;`` or a quote in one is
text, and a word with a control character (a newline would end the
command and start another) is refused. A comment's text has its control
characters spelled out (:func:`.console.one_line`), so that it cannot end
the comment.
'''

import shlex

from hpc_acceptance.tools.common import console
from hpc_acceptance.tools.common.identifiers import shown


class NotALine(ValueError):
    '''A word that cannot be put on one line for a shell.'''


def quoted(argv):
    '''``argv`` as one line that ``sh`` reads back as exactly ``argv``.

    :raises NotALine: naming a word that holds a control character.
    '''
    for word in argv:
        if console.has_control(word):
            raise NotALine(f'{shown(word)} holds a control character: not '
                           f'printed as a word for a shell')

    return shlex.join(argv)


def comment(text, indent=''):
    '''``text`` as a shell comment line (``indent`` after the ``#``).'''
    return f'# {indent}{console.one_line(text)}'
