'''*Contended*: a node is named contended only where its repetitions'
ratio departs from its fleet's on two of its figures (on its one, where
it has one), each by more than the rule's least drop; and which nodes are
named does not depend on the order the nodes' test cases come in
(hpc_acceptance.tools.fleet.contention).'''

import random

from hypothesis import given
from hypothesis import strategies as st

from helpers import fleet_cases
from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools.fleet import comparison, contention


@st.composite
def fleets(draw):
    '''``{node: [ratio of each figure]}``: most nodes steady, some with
    dips on some of their figures.'''
    nodes = draw(st.integers(4, 16))
    figures = draw(st.integers(1, 4))
    ratio = st.floats(0.85, 1.0)
    dip = st.floats(0.2, 0.84)
    made = {}
    for number in range(1, nodes + 1):
        dipped = draw(st.sets(st.integers(0, figures - 1))) \
            if draw(st.booleans()) and number > nodes // 2 else set()
        made[f'n{number}'] = [draw(dip if f in dipped else ratio)
                              for f in range(figures)]
    return made


def _cases(made):
    return [fleet_cases.case(node, 'MemoryReadBandwidthCheck', {
        **{f'bandwidth_l{f}': (50000.0, 'MB/s') for f in range(len(r))},
        **{f'best_to_median_l{f}': (v, 'ratio') for f, v in enumerate(r)}})
        for node, r in made.items()]


def _named(cases):
    fleet, = comparison.compare(cases)
    return fleet, contention.of_partition(fleet)


@examples(40)
@given(fleets(), st.integers(0, 2 ** 32))
def test_a_contended_node_departs_on_two_figures_whatever_the_order(
        made, seed):
    cases = _cases(made)
    fleet, named = _named(cases)
    medians = {s.figure.variable: s.median for s in fleet.spreads
               if s.figure.variable.startswith(contention.PREFIX)}
    for found in named:
        ratios = made[found.node]
        departing = [v for f, v in enumerate(ratios)
                     if 1 - v / medians[f'best_to_median_l{f}'] >
                     contention.MIN_DROP]
        # the rule's bar is the least drop or the fleet's spread, higher
        assert min(contention.MIN_FIGURES, len(ratios)) <= found.departed \
            <= len(departing)
        assert found.figures == len(ratios)
        assert 1 - found.ratio / found.fleet > contention.MIN_DROP

    shuffled = random.Random(seed).sample(cases, len(cases))
    _, again = _named(shuffled)
    assert again == named
