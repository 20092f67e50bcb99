'''The exit statuses are said in one place, ci/README.md's "Exit status",
and that table says what the code does: each status the code names by a
constant has its row, saying that constant's meaning, and no row names a
status the code never gives. Every other place that tells a reader about a
run's status (the scripts' headers, the recipes, the tools README, the
quick start) links to the table instead of keeping its own list.'''

import re
import signal

from conftest import PROJECT_DIR
from hpc_acceptance.tools.fleet import suspects
from hpc_acceptance.tools.launch import lock
from hpc_acceptance.tools.pipeline import run, run_end
from hpc_acceptance.tools.results import database
from test_documented_behaviour import section

TABLE_DOC = PROJECT_DIR / 'ci' / 'README.md'


def setup_failed():
    '''ci/setup.sh's own constant.'''
    return int(re.search(r'^SETUP_FAILED=(\d+)$',
                         (PROJECT_DIR / 'ci' / 'setup.sh').read_text(),
                         re.MULTILINE)[1])


#: Each status the code names, with words its row must say.
CODE = [
    (run.NOT_RUN, 'nothing was run'),
    (database.UNREADABLE, 'a report cannot be read'),
    (suspects.UNREADABLE, 'a report cannot be read'),
    (lock.BUSY, 'another run holds this checkout'),
    (run_end.NOT_STORED, 'results database cannot take the run'),
    (setup_failed(), 'the setup could not finish'),
    (128 + signal.SIGINT, 'SIGINT'),
    (128 + signal.SIGTERM, 'SIGTERM'),
]
#: The verdict's own, returned as literals (outcome/verdict.py).
VERDICT = [(0, 'passed'), (1, 'a check failed'), (2, 'not validated')]


def rows():
    '''``{status: its row's text}`` of the one table.'''
    table = section(TABLE_DOC.read_text(), 'Exit status')
    found = {}
    for statuses, meaning in re.findall(r'^\| (\d+(?:, \d+)*) \| (.*) \|$',
                                        table, re.MULTILINE):
        for status in statuses.split(', '):
            found[int(status)] = meaning
    return found


def test_each_status_of_the_code_has_its_row_saying_what_it_means():
    table = rows()
    for status, words in CODE + VERDICT:
        assert status in table, f'{TABLE_DOC}: no row for exit {status}'
        assert words in table[status], \
            f'{TABLE_DOC}: exit {status}: does not say {words!r}'


def test_no_row_names_a_status_the_code_never_gives():
    assert set(rows()) == {status for status, _ in CODE + VERDICT}


#: The places that speak of a run's status, each linking to the table.
POINTERS = {
    'README.md': '(ci/README.md#exit-status)',
    'checks/hpc_acceptance/tools/README.md':
        '(../../../ci/README.md#exit-status)',
    'ci/acceptance.sh': 'ci/README.md, "Exit status"',
    'ci/nightly.sh': 'ci/README.md, "Exit status"',
    'ci/post-upgrade.sh': 'ci/README.md, "Exit status"',
    'ci/setup.sh': 'ci/README.md, "Exit status"',
    'ci/systemd/hpc-acceptance-nightly.service':
        'ci/README.md, "Exit status"',
    'ci/cron/hpc-acceptance': 'ci/README.md, "Exit status"',
    'ci/gitlab/acceptance.gitlab-ci.yml': 'ci/README.md, "Exit status"',
}


def test_every_other_place_links_to_the_table():
    for path, pointer in POINTERS.items():
        assert pointer in (PROJECT_DIR / path).read_text(), \
            f'{path}: no link to the exit status table ({pointer})'


def test_no_other_document_keeps_a_table_of_statuses():
    '''A second table would drift from the first: only ci/README.md has
    a table headed ``| status |`` (the in-tree C programs' own, in
    src/, are theirs, not a run's).'''
    for path in sorted(PROJECT_DIR.rglob('*.md')):
        parts = set(path.relative_to(PROJECT_DIR).parts)
        if path == TABLE_DOC or {'.venv', 'node_modules', 'var',
                                 '.spack', 'bench', 'src'} & parts:
            continue
        assert not re.search(r'^\| (exit )?status \|', path.read_text(),
                             re.MULTILINE | re.IGNORECASE), path
