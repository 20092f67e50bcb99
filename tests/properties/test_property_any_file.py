'''*Any file*: any JSON a site can hand over (a real report mutated: keys
dropped, types changed, another ``data_version``, not a report at all, not
JSON) gives one line naming the file and what is wrong and the documented
exit status (3: unreadable), or a verdict; it leaves the results database
as it was; never a traceback.

Through the commands' own entry points: ``hpc-acceptance verdict``,
``suspects --run-report``, ``post-upgrade --report`` and ``db import``.'''

import copy
import hashlib
import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from helpers import generated_runs as gen
from helpers import upgrade_runs
from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.upgrade import runs_before_after

pytestmark = pytest.mark.usefixtures('empty_results_database')

#: A fleet run of 5 nodes, and a real report of ReFrame's.
FLEET = gen.report(gen.example([gen.generation(66060288)], [0] * 5,
                               checks=('StreamCheck',)))
REAL = upgrade_runs.TEMPLATE

#: Values of every JSON type, to put where another one was.
OTHERS = (None, True, 0, -1.5, 'x', '', [], {}, [1, 'a'], {'a': 1})

#: Whole documents that are no report.
NOT_REPORTS = ([], [REAL], 42, 'report', None, {}, {'runs': {}},
               {'runs': [1]}, {'runs': [{'testcases': {}}]},
               {'session_info': [], 'runs': []})

#: Files that are no JSON.
NOT_JSON = (b'', b'{', b'\xff\xfe\x00garbage', b'NaN-', b'{"runs": [',
            b'\x00' * 10)

#: ``{command: exit statuses it documents}``
DOCUMENTED = {'verdict': {0, 1, 2, 3}, 'suspects': {0, 1, 2, 3},
              'post-upgrade': {0, 1, 2, 3}, 'db import': {0, 3}}
UNREADABLE = 3


def _places(doc, depth=0):
    '''``(container, key)`` of every value in ``doc``.'''
    items = (doc.items() if isinstance(doc, dict) else
             enumerate(doc) if isinstance(doc, list) else ())
    for key, value in items:
        yield doc, key
        if depth < 6:
            yield from _places(value, depth + 1)


#: How a file is made of a report (:func:`render`).
HOWS = ('drop', 'retype', 'data_version', 'not a report', 'not JSON')
VERSIONS = ('3.1', '5.0', '', '4', 42, None, 'four')

#: A file a site hands over in place of a report: ``(how, which report,
#: [(place, value)])``, indices into the report's places (:func:`_places`)
#: and into the values put there.
FILES = st.tuples(st.sampled_from(HOWS), st.sampled_from(('fleet', 'real')),
                  st.lists(st.tuples(gen.INDEX, gen.INDEX), min_size=1,
                           max_size=3))


def render(how, which, steps):
    '''The bytes of the file :data:`FILES` describes.'''
    doc = copy.deepcopy(FLEET if which == 'fleet' else REAL)
    first = steps[0][1]
    if how == 'data_version':
        doc['session_info']['data_version'] = VERSIONS[first % len(VERSIONS)]
    elif how == 'not a report':
        doc = NOT_REPORTS[first % len(NOT_REPORTS)]
    elif how == 'not JSON':
        return NOT_JSON[first % len(NOT_JSON)]
    else:
        for place, value in steps:
            places = list(_places(doc))
            container, key = places[place % len(places)]
            if how == 'drop':
                del container[key]
            else:
                others = [v for v in OTHERS
                          if type(v) is not type(container[key])]
                container[key] = copy.deepcopy(others[value % len(others)])

    return json.dumps(doc).encode()


def _database(tmp_path):
    '''A results database holding a real run.'''
    path = tmp_path / 'results.db'
    if not path.exists():
        assert cli.main(['db', 'import', '--db', str(path),
                        upgrade_runs.write(REAL, tmp_path / 'real.json')]
                       ) == 0
    return path


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _judged(name, status, err, path):
    '''The command's answer is one it documents; a refusal is one line
    naming the file.'''
    assert status in DOCUMENTED[name], (name, status, err)
    if status == UNREADABLE:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1, (name, err)
        assert str(path) in lines[0], (name, err)


@pytest.fixture
def quiet_post_upgrade(monkeypatch):
    # the console summary and the page of a readable run are an
    # acceptance run's, tested with it: only the verdict here
    monkeypatch.setattr(runs_before_after, 'show_run', lambda *_: None)


#: Found on the code before, each a traceback or another exit status than
#: the documented one, by the command and the line it stopped at.
FOUND_BEFORE = (
    # db import: exit 1 for a report without session_info
    ('drop', 'fleet', [(0, 0)]),
    # db import: a JSON list, ReFrame's validation's TypeError
    ('not a report', 'real', [(622, 680)]),
    # db import: exit 1 for a JSON object that is no report
    ('not a report', 'real', [(67, 375)]),
    # post-upgrade: float() of a list, a TypeError (post_upgrade.py:145)
    ('retype', 'real', [(995, 908)]),
    # verdict, post-upgrade: a result that is no string (verdict.py:62)
    ('retype', 'real', [(815, 372)]),
    # every command: a performance value that is no list (runs.py:230)
    ('retype', 'fleet', [(979, 82)]),
    # every command: a file that is no UTF-8
    ('not JSON', 'fleet', [(486, 104)]),
    # suspects, verdict: float('x') (the fleet comparison)
    ('retype', 'fleet', [(602, 292)]),
    # post-upgrade: two lines for one unreadable report
    ('not a report', 'fleet', [(612, 599)]),
    # verdict: a test case without display_name, a KeyError (runs.py:152)
    ('drop', 'real', [(149, 57)]),
    # verdict: runs[0].testcases that is no list (runs.py:128)
    ('retype', 'fleet', [(539, 357)]),
    # verdict: a test case that is no object (runs.py:152)
    ('retype', 'real', [(33, 348)]),
    # verdict: a report of a JSON list (verdict.py:181)
    ('not a report', 'fleet', [(542, 307)]),
    # found by ci/bench/properties.sh on the code after: post-upgrade's "no
    # test case ran" did not name the report
    ('drop', 'real', [(26, 0)]),
)


@examples(60)
@given(FILES)
@example(handed_over=FOUND_BEFORE[0])
@example(handed_over=FOUND_BEFORE[1])
@example(handed_over=FOUND_BEFORE[2])
@example(handed_over=FOUND_BEFORE[3])
@example(handed_over=FOUND_BEFORE[4])
@example(handed_over=FOUND_BEFORE[5])
@example(handed_over=FOUND_BEFORE[6])
@example(handed_over=FOUND_BEFORE[7])
@example(handed_over=FOUND_BEFORE[8])
@example(handed_over=FOUND_BEFORE[9])
@example(handed_over=FOUND_BEFORE[10])
@example(handed_over=FOUND_BEFORE[11])
@example(handed_over=FOUND_BEFORE[12])
@example(handed_over=FOUND_BEFORE[13])
def test_any_file_is_judged_or_refused_in_one_line(
        tmp_path, capsys, quiet_post_upgrade, handed_over):
    database = _database(tmp_path)
    before = _digest(database)
    path = tmp_path / 'handed-over.json'
    path.write_bytes(render(*handed_over))
    commands = {
        'verdict': lambda: cli.main(['verdict', str(path), '0']),
        'suspects': lambda: cli.main(['suspects', '--run-report',
                                      str(path)]),
        'post-upgrade': lambda: cli.main(['post-upgrade', '--report',
                                          str(path), '--json',
                                          str(tmp_path / 'verdict.json')]),
        'db import': lambda: cli.main(['db', 'import', '--db', str(database),
                                      str(path)]),
    }
    for name, command in commands.items():
        capsys.readouterr()
        status = command()
        _judged(name, status, capsys.readouterr().err, path)

    if status != 0:
        assert _digest(database) == before
