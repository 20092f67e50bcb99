'''*Shell lines*: the drain, resume and comment lines the tools print for a
shell run exactly the ``scontrol`` commands they mean, whatever a report
or Slurm wrote into them.

A suspect's figure names and kernel string, and the reason an
administrator or NHC left on a node, are drawn from hostile text
(``$(...)``, backticks, quotes, ``;``, newlines, terminal escapes, any
Unicode); node names from Slurm's form. The lines ``suspects --format
slurm`` prints (:func:`..fleet.suspect_drains.slurm_lines`: a drain line per
suspect it would drain, comment lines for those it leaves out) and a
resume line per node are piped to ``sh`` with a recording ``scontrol``
first on ``PATH``: the commands it records are exactly the intended
argument lists, one each, and nothing else ran (the folder ``sh`` ran in
stays empty). A node name of another form never makes a line.
'''

import os
import subprocess

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools.common import identifiers, shell_line
from hpc_acceptance.tools.fleet import drain, suspect_drains
from hpc_acceptance.tools.fleet.model import (Figure, Outlier,
                                              PartitionFleet, Suspect)

#: What a shell would run, or what would end a line or a comment.
FRAGMENTS = ['$(id>F)', '`id>F`', '${IFS}', '"', "'", ';', '|', '&', '\\',
             '#', '\n', '\r', '\x1b[2K', '\x00', '\u202e', '>F', '*', '~',
             'State=RESUME', ' Reason=hpc-acceptance: x', '%s']

hostile = st.lists(st.one_of(st.sampled_from(FRAGMENTS),
                             st.text(max_size=6)),
                   min_size=1, max_size=8).map(''.join)
nodes = st.from_regex(identifiers.NODE, fullmatch=True).filter(
    lambda n: len(n) <= 40)

#: Records each call's arguments, NUL-separated, a call a record.
RECORDER = '''#!/bin/sh
printf '%s\\0' "$@" >> "$SCONTROL_LOG"
printf 'END\\0' >> "$SCONTROL_LOG"
'''


@pytest.fixture(scope='module')
def recording_scontrol(tmp_path_factory):
    '''A folder with a recording ``scontrol``.'''
    folder = tmp_path_factory.mktemp('bin')
    script = folder / 'scontrol'
    script.write_text(RECORDER)
    script.chmod(0o755)
    return folder


def _run(lines, bin_dir, work):
    '''The ``scontrol`` calls ``sh`` makes of ``lines``, each an argument
    list.'''
    log = work.parent / f'{work.name}.log'
    log.write_bytes(b'')
    done = subprocess.run(
        ['sh'], input='\n'.join(lines) + '\n', text=True, cwd=work,
        capture_output=True,
        env={'PATH': f'{bin_dir}:/usr/bin:/bin', 'SCONTROL_LOG': str(log),
             'HOME': str(work)})
    assert done.returncode == 0, done.stderr
    calls, current = [], []
    for word in log.read_bytes().split(b'\0')[:-1]:
        if word == b'END':
            calls.append(current)
            current = []
        else:
            current.append(word.decode('utf-8', 'surrogateescape'))

    return calls


def _fleet(suspect_nodes, figure, kernel):
    '''A partition whose suspects are named for another kernel, a slow
    figure (of a hostile name) and a failure of it.'''
    key = (f'Stream{figure}Check', 'cluster:compute', 'gnu',
           (('threads', figure),), '')
    slow = Outlier(Figure(key, figure, 'MB/s'), 1.0, 2.0, 0.1, 0.7)
    made = []
    for number, node in enumerate(suspect_nodes):
        kind = number % 3
        made.append(Suspect('cluster:compute', node,
                            outliers=[slow] if kind == 0 else [],
                            differs=[f'kernel {kernel} (fleet: 6.1.0)']
                            if kind == 1 else [],
                            failures=[(f'StreamCheck {figure}', kernel)]
                            if kind == 2 else []))

    return PartitionFleet('cluster:compute', sorted(suspect_nodes),
                          suspects=made)


@examples(60)
@given(suspect_nodes=st.lists(nodes, min_size=1, max_size=4, unique=True),
       figure=hostile, kernel=hostile, reason=hostile, other=st.text())
@example(suspect_nodes=['n1', 'n2', 'n3'], figure='$(id>F)',
         kernel='6.1`id>F`\nscontrol update NodeName=n9 State=RESUME',
         reason='NHC: "x" Reason=hpc-acceptance: 1 $(id>F)', other='n1\nid')
def test_shell_lines_run_exactly_the_intended_scontrol_commands(
        suspect_nodes, figure, kernel, reason, other, recording_scontrol,
        tmp_path_factory):
    # the last suspect is drained already, with someone else's reason: a
    # comment line of the suspects left out
    *fresh, taken = suspect_nodes
    states = {n: drain.NodeState(n, frozenset({'IDLE'}), '')
              for n in fresh}
    states[taken] = drain.NodeState(taken, frozenset({'IDLE', 'DRAIN'}),
                                    reason)
    fleets = [_fleet(suspect_nodes, figure, kernel)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(drain, 'node_states', lambda: states)
        lines, note = suspect_drains.slurm_lines(fleets, '2026-11-24', None,
                                                 max_share=1.0)
        plan = suspect_drains.drain_plan(fleets, '2026-11-24', None, 1.0,
                                         states)

    assert note is None
    intended = [drain.drain_command(node, why)[1:]
                for node, why in plan.drain]
    assert [node for node, _ in plan.left_alone] == [taken]
    lines += [shell_line.quoted(drain.resume_command(node))
              for node in suspect_nodes]
    intended += [['update', f'NodeName={node}', 'State=RESUME']
                 for node in suspect_nodes]
    lines.append(shell_line.comment(f'{reason} {figure} {kernel}'))

    work = tmp_path_factory.mktemp('sh')
    assert _run(lines, recording_scontrol, work) == intended
    assert list(work.iterdir()) == []
    for call in intended:
        assert not any(console_control(word) for word in call)

    if not identifiers.is_node(other):
        with pytest.raises(identifiers.BadIdentifier):
            drain.drain_command(other, reason)
        with pytest.raises(identifiers.BadIdentifier):
            drain.resume_command(other)


def console_control(word):
    '''Whether ``word`` holds a character that would end a line or drive
    a terminal.'''
    return any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in word)


def test_the_recorder_sees_what_sh_would_run(recording_scontrol,
                                             tmp_path_factory):
    # the stand-in itself, on lines that are not quoted: a command
    # substitution runs and a newline makes a second call, as it would
    # have before the lines were quoted
    work = tmp_path_factory.mktemp('unquoted')
    calls = _run(['scontrol update NodeName=n1 Reason="x $(echo y>F)"',
                  'scontrol update NodeName=n1\nscontrol x'],
                 recording_scontrol, work)
    assert calls == [['update', 'NodeName=n1', 'Reason=x '],
                     ['update', 'NodeName=n1'], ['x']]
    assert [p.name for p in work.iterdir()] == ['F']
    os.remove(work / 'F')
