'''*Like with like*: nodes whose hardware differs only by the jitter real
nodes report (MemTotal tens of MB apart on identical nodes, across any
rounding boundary) are one group, whichever node comes first; nodes of
different hardware are never one group.'''

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from helpers import generated_runs as gen
from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.fleet import fingerprint
from hpc_acceptance.tools.fleet.model import node_of
from hpc_acceptance.tools.results.runs import final_testcases

pytestmark = pytest.mark.usefixtures('empty_results_database')


def _generations(made):
    return {frozenset(made.group(i)) for i in range(len(made.generations))
            if made.group(i)}


#: Found on the code before: two nodes of one generation 1 kB apart across
#: 94.5 GiB were "94 GiB" and "95 GiB", two groups.
ACROSS_A_ROUNDING_BOUNDARY = gen.example(
    [gen.generation(66060288), gen.generation(99090432)], [0] * 6 + [1, 1],
    [66060288] * 6 + [99090432, 99090433])


@examples(60)
@given(gen.fleets(degraded=False, troubles=False))
@example(ACROSS_A_ROUNDING_BOUNDARY)
def test_like_with_like_fingerprints_group_each_generation(made):
    '''The fingerprints of a partition's nodes (up to 300) as the fleet
    comparison reads them from the run's test cases.'''
    by_node = {}
    for case in final_testcases(gen.report(made)):
        by_node.setdefault(node_of(case), []).append(case)

    groups = fingerprint.groups(fingerprint.of_nodes(by_node))
    assert {frozenset(g.nodes) for g in groups} == _generations(made)


@examples(30)
@given(gen.fleets(nodes=st.integers(4, 40), degraded=False, troubles=False))
@example(ACROSS_A_ROUNDING_BOUNDARY)
def test_like_with_like_no_node_differs_from_its_own_generation(made):
    (partition,) = comparison.compare(final_testcases(gen.report(made)))
    assert {frozenset(g.nodes) for g in partition.groups} == \
        _generations(made)
    judged = {n for g in partition.judged_groups for n in g.nodes}
    assert not [s.node for s in partition.suspects
                if s.differs and s.node in judged]


#: Found on the code before: the first node of the report lost a DIMM; the
#: memory of the others was matched against its size, and a good node was
#: named beside it.
FIRST_NODE_LOST_A_DIMM = gen.example(
    [gen.generation(196608000)], [0] * 6,
    [196608000 + 20000, 196608000 - 20000, 196608000 + 31000,
     196608000 - 9000, 196608000 + 2000, 196608000 + 1000])


@examples(40)
@given(gen.fleets(nodes=st.integers(4, 40), degraded=False, troubles=False),
       st.lists(st.tuples(gen.INDEX, st.sampled_from((8, 16))), max_size=2))
@example(FIRST_NODE_LOST_A_DIMM, [(0, 8)])
@example(ACROSS_A_ROUNDING_BOUNDARY, [])
def test_like_with_like_a_node_that_lost_a_dimm_stands_alone(made, dimms):
    '''A node that lost a DIMM (an eighth or a sixteenth of its memory)
    is a group of its own, named for it; its siblings are one group
    whichever node comes first.'''
    lost = {gen.pick(made.nodes, index): share for index, share in dimms}
    for node, share in lost.items():
        made.memory_kb[node] -= (
            made.generations[made.generation_of[node]].memory_kb // share)

    (partition,) = comparison.compare(final_testcases(gen.report(made)))
    expected = {}
    for node in made.nodes:
        expected.setdefault((made.generation_of[node], lost.get(node)),
                            set()).add(node)
    assert {frozenset(g.nodes) for g in partition.groups} == \
        {frozenset(nodes) for nodes in expected.values()}
    judged = {n for g in partition.judged_groups for n in g.nodes}
    assert not [s.node for s in partition.suspects
                if s.differs and s.node in judged]
