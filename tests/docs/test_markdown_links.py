'''Every relative link in the project's Markdown files leads somewhere.

The documentation is spread over a README per folder, each linking to the
others' sections: a heading renamed or a file moved breaks a link that no
reader notices until they follow it. For every tracked ``*.md`` file, each
relative link ``[text](path)``, ``[text](path#anchor)`` and
``[text](#anchor)`` outside code must name a tracked file or folder, and an
anchor into a Markdown file must be the GitHub anchor of one of its
headings. Links with a scheme (``https:``, ``mailto:``) are not followed.
'''

import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

from conftest import PROJECT_DIR

FENCE = re.compile(r'^\s*(`{3,}|~{3,})')
HEADING = re.compile(r'^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
CODE_SPAN = re.compile(r'(`+)(.+?)\1', re.DOTALL)
LINK = re.compile(r'!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]'
                  r'\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)')
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def tracked_files():
    '''The repository's tracked files, relative to the project.'''
    listed = subprocess.run(['git', 'ls-files', '-z'], cwd=PROJECT_DIR,
                            capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip(f'not a git checkout ({listed.stderr.strip()}): the '
                    'Markdown files to check are the tracked ones')
    return [Path(name) for name in listed.stdout.split('\0') if name]


def without_fences(text):
    '''``text`` with its fenced code blocks blanked, line numbers kept.'''
    lines = []
    fence = None
    for line in text.split('\n'):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            lines.append('')
        elif fence is not None:
            if opened and opened.group(1)[0] == fence[0] and \
                    len(opened.group(1)) >= len(fence):
                fence = None
            lines.append('')
        else:
            lines.append(line)
    return '\n'.join(lines)


def slug(heading):
    '''GitHub's anchor of a heading's text: inline code and links reduced
    to their text, lower case, punctuation other than ``-`` and ``_``
    removed, each space a ``-``.'''
    text = re.sub(r'`+([^`]*)`+', r'\1', heading)
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = text.replace('*', '')
    return re.sub(r'[^\w\- ]', '', text.lower()).replace(' ', '-')


def anchors(headings):
    '''The anchors of a file's headings in order, a repeated one suffixed
    ``-1``, ``-2`` ... as GitHub does.'''
    seen = {}
    for heading in headings:
        base = anchor = slug(heading)
        while anchor in seen:
            seen[base] += 1
            anchor = f'{base}-{seen[base]}'
        seen[anchor] = 0
    return set(seen)


def headings_of(text):
    return [match.group(2) for line in without_fences(text).split('\n')
            if (match := HEADING.match(line))]


def links_of(text):
    '''(line, target) of every link outside code: code spans become a
    word, so that a link's text may hold one.'''
    prose = CODE_SPAN.sub(
        lambda span: 'code' + '\n' * span.group(0).count('\n'),
        without_fences(text))
    for match in LINK.finditer(prose):
        yield prose.count('\n', 0, match.start(2)) + 1, match.group(2)


def problem(md_file, target, files, folders):
    '''What is wrong with link ``target`` of ``md_file``, or ``None``.'''
    path, _, anchor = target.partition('#')
    if path:
        root = Path() if path.startswith('/') else md_file.parent
        resolved = (PROJECT_DIR / root / unquote(path).lstrip('/')).resolve()
        if not resolved.is_relative_to(PROJECT_DIR):
            return 'leads outside the repository'
        goal = resolved.relative_to(PROJECT_DIR)
        if goal not in files and goal not in folders:
            return f'{goal} is not a tracked file or folder'
        if goal in folders:
            goal = goal / 'README.md'
    else:
        goal = md_file
    if not anchor or goal.suffix != '.md' or goal not in files:
        return None
    if anchor not in anchors(headings_of((PROJECT_DIR / goal).read_text())):
        return f'{goal} has no heading with the anchor #{anchor}'
    return None


def test_every_relative_link_and_anchor_resolves():
    files = set(tracked_files())
    folders = {parent for name in files for parent in name.parents}
    markdown = sorted(name for name in files if name.suffix == '.md')
    assert markdown, 'no tracked Markdown file found'
    broken = []
    for md_file in markdown:
        for line, target in links_of((PROJECT_DIR / md_file).read_text()):
            if not target or SCHEME.match(target):
                continue
            found = problem(md_file, target, files, folders)
            if found:
                broken.append(f'{md_file}:{line}: ({target}): {found}')
    assert not broken, 'broken Markdown links:\n' + '\n'.join(broken)


@pytest.mark.parametrize('heading, anchor', [
    ('The two commands', 'the-two-commands'),
    ('Every node: the fleet run', 'every-node-the-fleet-run'),
    ("Bringing up a system's references", 'bringing-up-a-systems-references'),
    ('Spack for the embedded default: `ci/setup-spack.sh`',
     'spack-for-the-embedded-default-cisetup-spacksh'),
    ("The noise model's proof: `quiet_proof.sh`",
     'the-noise-models-proof-quiet_proofsh'),
    ('See [the checks](checks/README.md)', 'see-the-checks'),
])
def test_anchor_of_a_heading(heading, anchor):
    assert slug(heading) == anchor


def test_repeated_headings_are_numbered():
    assert anchors(['Run', 'Run', 'Run 1', 'Run']) == {
        'run', 'run-1', 'run-1-1', 'run-2'}


def test_links_in_code_are_not_links():
    text = ('[a](one.md)\n```sh\n[b](two.md)\n```\n'
            '`[c](three.md)` and [d\nacross](four.md#x)\n')
    assert list(links_of(text)) == [(1, 'one.md'), (6, 'four.md#x')]
