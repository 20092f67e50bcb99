'''What the commands print, safe for a terminal whatever a node or a
report wrote.

Node names, fail reasons, kernel strings and figure names come from the
nodes' jobs. A terminal runs the escape sequences among them: they can
move the cursor, erase a line and write "all checks PASSED" over a
verdict, or set the window title. So every command's standard output and
error go through :func:`guarded` (``hpc-acceptance``'s entry point puts
it around each command), which replaces each control character but the
newline and the tab, and the characters that reorder text (Unicode's
bidirectional controls), by a visible spelling: ``^[`` for ESC, ``^M``
for a carriage return (``cat -v``'s), ``<U+202E>`` for the others. The
spelling is valid inside a JSON string, so ``--format json`` stays JSON.

A newline inside a value would still start a line of its own: values
shown on one line go through :func:`one_line`.
'''

import contextlib
import re
import sys

#: C0 controls but tab and newline, DEL, C1 controls, and Unicode's
#: bidirectional formatting characters (marks, embeddings, overrides,
#: isolates).
_CONTROL = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f'
                      '\u202a-\u202e\u2066-\u2069]')

#: Any control character, newline and tab included.
_ANY_CONTROL = re.compile('[\t\n]|' + _CONTROL.pattern)


def _spelled(match):
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return '^' + chr(code + 0x40)

    if code == 0x7f:
        return '^?'

    return f'<U+{code:04X}>'


def printable(text):
    '''``text`` with each control character (but newline and tab)
    spelled out visibly.'''
    return _CONTROL.sub(_spelled, str(text))


def has_control(text):
    '''Whether ``text`` holds a control character, newline and tab
    included.'''
    return _ANY_CONTROL.search(str(text)) is not None


def one_line(text):
    '''``text`` on one line: its runs of whitespace (newlines included) one
    space, its control characters spelled out.'''
    return printable(' '.join(str(text).split()))


class _Guarded:
    '''A text stream whose writes are :func:`printable`.'''

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        return self._stream.write(printable(text))

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def guarded():
    '''Standard output and error :func:`printable` while in it.'''
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Guarded(saved[0]), _Guarded(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
