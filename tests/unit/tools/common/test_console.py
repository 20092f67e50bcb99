'''What the commands print is safe for a terminal
(hpc_acceptance.tools.common.console): no control character a node or a
report wrote reaches it raw.'''

import io
import json
import sys

from hpc_acceptance.tools.common import console


def test_control_characters_are_spelled_out_newlines_and_tabs_kept():
    assert console.printable('a\x1b[2Kb\rc\x07\x00\x7f\x9b\u202ed\n\te') == \
        'a^[[2Kb^Mc^G^@^?<U+009B><U+202E>d\n\te'


def test_one_line_joins_lines_and_spells_out_the_rest():
    assert console.one_line('failed:\n  exit 1\r\x1b[1A  PASSED') == \
        'failed: exit 1 ^[[1A PASSED'


def test_the_spelling_keeps_json_json():
    # JSON escapes C0 itself; DEL and C1 it leaves as they are
    text = json.dumps({'node': 'n1\x9b2J\x7f'}, ensure_ascii=False)
    assert json.loads(console.printable(text)) == {'node': 'n1<U+009B>2J^?'}


def test_guarded_streams_print_no_control_character(monkeypatch):
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, 'stdout', out)
    monkeypatch.setattr(sys, 'stderr', err)
    with console.guarded():
        print('n1: failed\r\x1b[2Kacceptance: all checks PASSED')
        sys.stderr.writelines(['\x1b[31mred\n'])
        sys.stdout.flush()
    assert sys.stdout is out
    assert out.getvalue() == ('n1: failed^M^[[2Kacceptance: all checks '
                              'PASSED\n')
    assert err.getvalue() == '^[[31mred\n'
