'''*Cap*: the drain cap counts every node the tool has drained and not yet
resumed, across calls and nights; ``--format slurm`` honours it and says
how many suspects it leaves out.

Slurm is stood in for at the tool's boundary with it
(:func:`..fleet.drain.node_states` and :func:`..fleet.drain.drain`): the
node states are ``scontrol -o show node`` lines as Slurm 22.05 prints them
(tests/fixtures/data/slurm/), changed as Slurm changes them when a node is
drained or resumed. The fleet runs are generated (every node's check
failed where it passed on most: a suspect each).'''

import json
import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conftest import DATA_DIR
from helpers import generated_runs as gen
from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.fleet import drain

pytestmark = pytest.mark.usefixtures('empty_results_database')

_REAL = (DATA_DIR / 'slurm' / 'scontrol-show-node.n1.txt').read_text() \
    .splitlines()[0]
SHARES = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0)


class Slurm:
    '''The nodes' states, as ``scontrol`` shows and changes them.'''

    def __init__(self, nodes):
        #: ``{node: (state, reason)}``
        self.nodes = {n: ('IDLE', '') for n in nodes}

    def show(self):
        lines = []
        for node, (state, reason) in self.nodes.items():
            line = _REAL.replace('NodeName=n1 ', f'NodeName={node} ') \
                .replace('NodeHostName=n1 ', f'NodeHostName={node} ') \
                .replace('State=IDLE ', f'State={state} ')
            if reason:
                line += f' Reason={reason} [root@2026-11-24T07:05:34]'
            lines.append(line)

        return drain.parse_nodes('\n'.join(lines))

    def drain(self, node, reason):
        text = reason if reason.startswith(drain.PREFIX) else \
            f'{drain.PREFIX} {reason}'
        self.nodes[node] = ('IDLE+DRAIN', text)

    def ours(self):
        return {n for n, (state, reason) in self.nodes.items()
                if 'DRAIN' in state and reason.startswith(drain.PREFIX)}


#: Slurm states of a node out of service: drained by this tool on an
#: earlier night, by an administrator, down.
OUT = (('IDLE+DRAIN', f'{drain.PREFIX} 2026-11-20 failed StreamCheck'),
       ('IDLE+DRAIN', 'DIMM errors'), ('DOWN', 'Not responding'))

#: A partition and its nights: ``(nodes, [(node, state of OUT)], nights,
#: resumed)``, nodes as indices: those out of service before the first
#: night, the nodes failing a check each night, those repaired and
#: resumed between nights.
SITES = st.tuples(
    st.integers(4, 120),
    st.lists(st.tuples(gen.INDEX, st.integers(0, len(OUT) - 1))),
    st.lists(st.lists(gen.INDEX), min_size=1, max_size=4),
    st.lists(gen.INDEX))


def _site(count, out, nights, resumed):
    '''``(nodes, Slurm, nights, resumed)`` of a :data:`SITES`.'''
    nodes = [f'n{i}' for i in range(count)]
    slurm = Slurm(nodes)
    for index, state in out[:count // 3]:
        slurm.nodes[gen.pick(nodes, index)] = OUT[state]

    def named(indices):
        return list(dict.fromkeys(gen.pick(nodes, i) for i in indices))

    return nodes, slurm, [named(night) for night in nights], named(resumed)


def _report(tmp_path, nodes, failing):
    '''A fleet run of ``nodes`` in which ``failing`` failed a check.'''
    failing = failing[:(len(nodes) - 1) // 2]
    made = gen.example([gen.generation(66060288)], [0] * len(nodes),
                       names=nodes, noise=0.005,
                       failed=frozenset((n, 'MemoryDaxpyCheck')
                                        for n in failing))
    path = tmp_path / 'fleet.json'
    path.write_text(json.dumps(gen.report(made)))
    return str(path)


def _run(args, capsys):
    capsys.readouterr()
    status = cli.main(['suspects', *args])
    out, err = capsys.readouterr()
    return status, out, err


#: Found on the code before: 5 nodes, one drained by this tool the night
#: before, another failing tonight: the cap of one node drained a second.
ONE_DRAINED_BEFORE = (5, [(1, 0)], [[0]], [])


@examples(30)
@given(SITES, st.sampled_from(SHARES))
@example(site=ONE_DRAINED_BEFORE, share=0.01)
def test_cap_holds_across_calls_and_nights(tmp_path, monkeypatch, capsys,
                                           site, share):
    nodes, slurm, nights, resumed = _site(*site)
    monkeypatch.setattr(drain, 'node_states', slurm.show)
    monkeypatch.setattr(drain, 'drain', slurm.drain)
    cap = max(1, math.floor(share * len(nodes)))
    for night, failing in enumerate(nights):
        # the nodes that are in service run the night's fleet run
        running = [n for n in nodes if slurm.nodes[n][0] == 'IDLE']
        if len(running) < 4:
            break

        report = _report(tmp_path, running,
                         [n for n in failing if n in running])
        before = slurm.ours()
        _run(['--run-report', report, '--drain', '--max-drain-share',
              str(share)], capsys)
        assert len(slurm.ours() - before) <= max(0, cap - len(before))
        assert len(slurm.ours()) <= max(cap, len(before))
        # the repaired nodes are back in service before the next night
        for node in resumed[night::len(nights)]:
            if node in slurm.ours():
                slurm.nodes[node] = ('IDLE', '')


@examples(30)
@given(SITES, st.sampled_from(SHARES))
@example(site=ONE_DRAINED_BEFORE, share=0.01)
def test_cap_slurm_format_honours_it_and_says_what_it_leaves_out(
        tmp_path, monkeypatch, capsys, site, share):
    nodes, slurm, nights, _ = _site(*site)
    monkeypatch.setattr(drain, 'node_states', slurm.show)
    running = [n for n in nodes if slurm.nodes[n][0] == 'IDLE']
    if len(running) < 4:
        return

    failing = [n for n in nights[0] if n in running]
    failing = failing[:(len(running) - 1) // 2]

    cap = max(1, math.floor(share * len(nodes)))
    room = max(0, cap - len(slurm.ours()))
    status, out, err = _run(['--run-report', _report(tmp_path, running,
                                                     failing),
                             '--format', 'slurm', '--max-drain-share',
                             str(share)], capsys)
    lines = [line for line in out.splitlines()
             if line.startswith('scontrol ')]
    assert len(lines) <= room
    named = {line.split()[2][len('NodeName='):] for line in lines}
    left = len(set(failing) - named)
    if left:
        assert f'{left} suspect(s) left out' in out + err
