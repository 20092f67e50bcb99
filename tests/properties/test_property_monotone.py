'''*Monotone*: making a node worse on a figure never removes it from the
nodes the run names (its suspects, and the slower nodes of a figure that
is not uniform, which fail the run by name); making it better, within
what a node can deliver (*plausible*), never adds it.'''

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from helpers import generated_runs as gen
from helpers.fleet_verdicts import outcome
from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools.results.runs import figures_of

pytestmark = pytest.mark.usefixtures('empty_results_database')


def _changed(made, node, check, figure, factor):
    '''``(before, after)``: the outcomes of the run and of the run whose
    ``figure`` of ``check`` (indices) on ``node`` has ``factor`` times its
    performance.'''
    report = gen.report(made)
    node, check = gen.pick(made.nodes, node), gen.pick(made.checks, check)
    assume(gen.passed(report, node, check))
    figure = gen.pick([f for f, _, _ in made.checks[check]], figure)
    changed = gen.scaled(report, node, check, figure, factor)
    # a figure made better than a node can deliver (a 12 GHz clock) is no
    # measurement: *plausible* holds what it is judged as
    assume(all(figure in figures_of(case) for case, before in zip(
        gen.node_cases(changed, node, check),
        gen.node_cases(report, node, check))
        if figure in figures_of(before)))
    return node, outcome(report), outcome(changed)


@examples(40)
@given(gen.fleets(nodes=st.integers(4, 30)), gen.INDEX, gen.INDEX,
       gen.INDEX, st.floats(0.01, 0.99))
def test_monotone_worse_never_unnames_a_node(made, node, check, figure,
                                             factor):
    node, before, after = _changed(made, node, check, figure, factor)
    if node in before.named:
        assert node in after.named


@examples(40)
@given(gen.fleets(nodes=st.integers(4, 30)), gen.INDEX, gen.INDEX,
       gen.INDEX, st.floats(1.01, 20))
def test_monotone_better_never_names_a_node(made, node, check, figure,
                                            factor):
    node, before, after = _changed(made, node, check, figure, factor)
    if node not in before.named:
        assert node not in after.named
