'''The identifiers a report, the results database, Slurm or a command line
hands in, checked against strict patterns before any tool uses them.

A session id becomes a query of ReFrame's results database (whose session
filter, a spec after ``?``, is Python that ReFrame evaluates) and a folder
name; a node name becomes a word of an ``scontrol`` line, a job option and
a line of a page; a system or partition name a key of references. Each is
evidence read from a node or a file, never code or a path: one that does
not have its kind's form is refused here, naming what it is and the value
(shown escaped, at most :data:`SHOWN` characters), and never reaches a
filter, a path or a shell.
'''

import re

#: ReFrame's session UUIDs (``str(uuid.uuid4())``, which its storage
#: recognises as a UUID rather than a period or a filter).
SESSION = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                     r'[0-9a-f]{12}')

#: ReFrame's test case UUIDs: ``<session>:<run index>:<test index>``.
TESTCASE = re.compile(SESSION.pattern + r':\d+:\d+')

#: Slurm's node names (host names: letters, digits, ``-``, ``_`` and
#: ``.``, at most 255), without its host list syntax (``n[1-4]``, ``,``).
NODE = re.compile(r'[A-Za-z0-9][A-Za-z0-9._-]{0,254}')

#: The nodes a test case ran on as ReFrame abbreviates them
#: (``nodelist_abbrev``: ``n[1-2]``, ``login1,nid[001-002,004]``): node
#: names, a run of digits in each given as Slurm's host list ranges.
_RANGES = r'\[[0-9]+(?:-[0-9]+)?(?:,[0-9]+(?:-[0-9]+)?)*\]'
_GROUP = (rf'[A-Za-z0-9][A-Za-z0-9._-]{{0,254}}'
          rf'(?:{_RANGES}[A-Za-z0-9._-]{{0,254}})?')
NODE_LIST = re.compile(rf'{_GROUP}(?:,{_GROUP})*')

#: ReFrame's names of systems, partitions and environments (its
#: configuration schema's ``alphanum_ext_string``).
NAME = re.compile(r'[A-Za-z_][A-Za-z0-9_-]{0,254}')

#: archspec's microarchitecture names (``x86_64_v3``, ``icelake``,
#: ``neoverse_v1``).
ARCH = re.compile(r'[a-z][a-z0-9_]{0,63}')

#: Characters of a refused value shown in its message.
SHOWN = 60


class BadIdentifier(ValueError):
    '''A value that is not an identifier of its kind; the message names
    what it is, the value and the form it must have.'''


def shown(value):
    '''``value`` for a message: escaped (``repr``) and cut short.'''
    text = repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + '...'


def _check(pattern, value, what, form):
    if isinstance(value, str) and pattern.fullmatch(value):
        return value

    raise BadIdentifier(f'{what} {shown(value)} is not {form}')


def session(value, what='session id'):
    '''``value`` if it is a ReFrame session UUID.

    :raises BadIdentifier: naming ``what`` and the value.
    '''
    return _check(SESSION, value, what, 'a ReFrame session UUID '
                                        '(8-4-4-4-12 hexadecimal digits)')


def testcase(value, what='test case uuid'):
    '''``value`` if it is a ReFrame test case UUID
    (``<session>:<run>:<test>``).'''
    return _check(TESTCASE, value, what, 'a ReFrame test case UUID '
                                         '(<session UUID>:<run>:<test>)')


def node(value, what='node name'):
    '''``value`` if it is a Slurm node name.'''
    return _check(NODE, value, what, 'a node name (letters, digits, "-", '
                                     '"_" and ".")')


def reservation(value, what='reservation'):
    '''``value`` if it is a Slurm reservation's name (a node name's
    characters).'''
    return _check(NODE, value, what, 'a reservation name (letters, digits, '
                                     '"-", "_" and ".")')


def node_list(value, what='node list'):
    '''``value`` if it is a node name or ReFrame's abbreviation of several
    (:data:`NODE_LIST`): a multi-node test case's ``node``.'''
    return _check(NODE_LIST, value, what, 'a node name or a host list of '
                                          'them (n[1-4],m2)')


def name(value, what):
    '''``value`` if it is a ReFrame name (a system, partition or
    environment).'''
    return _check(NAME, value, what, 'a ReFrame name (letters, digits, "-" '
                                     'and "_", starting with a letter or '
                                     '"_")')


def arch(value, what='microarchitecture'):
    '''``value`` if it is an archspec microarchitecture name.'''
    return _check(ARCH, value, what, 'an archspec microarchitecture name '
                                     '(lower-case letters, digits and "_")')


def is_node(value):
    return isinstance(value, str) and NODE.fullmatch(value) is not None
