'''JSON read and written at a fleet night's size (tools/results/json_text):
by orjson where it gives what Python's json gives, by Python's json
where orjson cannot, never a value changed on the way.'''

import json
import math

import pytest
from conftest import DATA_DIR
from hpc_acceptance.tools.results import json_text

FIXTURE = DATA_DIR / 'reframe_runs' / 'acceptance-report.json'


def test_a_report_reads_as_python_s_json_reads_it_and_writes_back_whole():
    data = FIXTURE.read_bytes()
    report = json_text.loads(data)
    assert report == json.loads(data)
    assert json.loads(json_text.encoded(report)) == report


@pytest.mark.parametrize('text,shown', [
    ('NaN', 'NaN'), ('Infinity', 'Infinity'), ('-Infinity', '-Infinity'),
    ('1e400', 'Infinity'), ('-1e400', '-Infinity')])
def test_a_figure_orjson_refuses_is_read_and_written_as_it_was(text, shown):
    '''ReFrame writes a benchmark's ``nan`` as ``NaN``: orjson reads no such
    file and would write the value as ``null``.'''
    value = json_text.loads(f'{{"v": [{text}, 1.5, "µs"]}}'.encode())
    assert isinstance(value['v'][0], json_text.NonFinite)
    assert math.isnan(value['v'][0]) or math.isinf(value['v'][0])
    assert value['v'][1:] == [1.5, 'µs'] and type(value['v'][1]) is float
    assert json_text.encoded(value) == f'{{"v":[{shown},1.5,"\\u00b5s"]}}' \
        .encode()


def test_a_lone_surrogate_is_read_and_written_as_it_was():
    data = b'{"fail_reason": "\\ud800 half a character"}'
    value = json_text.loads(data)
    assert value == json.loads(data)
    assert json.loads(json_text.encoded(value)) == value


def test_an_integer_orjson_reads_is_an_integer_and_one_past_64_bits_is_not():
    '''orjson reads an integer of more than 64 bits as a float (where
    Python's json keeps it whole): the value checked at the door is the
    value written, each a number; only its type differs.'''
    assert json_text.loads(b'[18446744073709551615, -9223372036854775808]') \
        == [2**64 - 1, -2**63]
    (big,) = json_text.loads(b'[123456789012345678901234567890]')
    assert isinstance(big, float) and big == pytest.approx(1.2345678e29)
    assert json.loads(json_text.encoded([2**70])) == [2**70]


def test_nesting_orjson_reads_is_written_back():
    '''orjson reads 1,024 levels and writes 255: what it read, Python's json
    writes.'''
    deepest = b'[' * json_text.DEEPEST + b']' * json_text.DEEPEST
    assert json_text.encoded(json_text.loads(deepest)) == deepest


def test_nesting_deeper_than_either_reads_is_a_recursion_error():
    deeper = b'[' * 100_000 + b']' * 100_000
    with pytest.raises(RecursionError):
        json_text.loads(deeper)


def test_what_is_no_json_or_no_utf8_is_a_value_error():
    for data in (b'{"a": ', b'"\xff"', b'[1, 2] x'):
        with pytest.raises(ValueError):
            json_text.loads(data)
