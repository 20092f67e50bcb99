'''*Plausible*: a figure beyond what a node could deliver is no
measurement, as +inf is: a rate or a clock 10^20 times or more its own
(above any bound of :mod:`..results.plausible`, whatever the node), a
time 10^20 times or more shorter, or a figure 10^4 times or more better
than its siblings' median gives, in a fleet run, the verdict of the same
figure recorded as NaN (the node named, "implausible" said); after an
upgrade it is "no measurement", fails the run and changes no other
row.'''

import copy

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from helpers import generated_runs as gen
from helpers import upgrade_runs as runs
from helpers.fleet_verdicts import outcome
from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results.runs import figures_of, final_testcases
from hpc_acceptance.tools.upgrade import baseline
from hpc_acceptance.tools.upgrade.judgement import (NO_MEASUREMENT,
                                                    exit_status, judge)

pytestmark = pytest.mark.usefixtures('empty_results_database')


def _better(value, unit, factor):
    '''``value`` ``factor`` times better: a rate times it, a time divided
    by it.'''
    return value * factor if noise.higher_is_better(unit) else value / factor


def _set(report, node, check, figure, value):
    '''``report`` with ``figure`` of ``check`` on ``node`` (every attempt
    that recorded it) made ``value(recorded, unit)``.'''
    report = copy.deepcopy(report)
    for case in gen.node_cases(report, node, check):
        perf = case['perfvalues'].get(f'{gen.PARTITION_NAME}:{figure}')
        if perf is not None and isinstance(perf[0], float):
            perf[0] = value(perf[0], perf[4])

    return report


def _judged(result):
    return result.named, result.drained, result.status


def _pick(made, report, node, check, figure):
    node, check = gen.pick(made.nodes, node), gen.pick(made.checks, check)
    assume(gen.passed(report, node, check))
    return node, check, gen.pick([f for f, _, _ in made.checks[check]],
                                 figure)


@examples(40)
@given(gen.fleets(nodes=st.integers(4, 40)), gen.INDEX, gen.INDEX,
       gen.INDEX, st.integers(20, 300))
# found on the code before: 1e300 MB/s and a time of 1e-300 ns were the
# best figures of the fleet (no suspect, "acceptance passed")
@example(gen.four_nodes(checks=('StreamCheck',)), 0, 0, 3, 296)
@example(gen.four_nodes(checks=('MemoryLatencyCheck',)), 0, 0, 2, 300)
# shrunk by Hypothesis on the code before (c02ff62)
@example(gen.example([gen.generation(196608000, cores=96,
         bios='American Megatrends International, LLC. 1.3 03/02/2023',
         kernel='4.18.0-553.el8_10.x86_64', speed=1.7618616812207515)], [0, 0,
         0, 0, 0, 0, 0, 0, 0], memory_kb=[196608003, 196608003, 196608000,
         196608001, 196608000, 196608000, 196608000, 196608000, 196608000],
         checks=('MemoryDaxpyCheck', 'StreamCheck'),
         noise=0.011847563475200724, seed=19862, names=['nid00000', 'nid00001',
         'nid00002', 'nid00003', 'nid00004', 'nid00005', 'nid00006',
         'nid00008', 'nid00007'], degraded={'nid00002': (0.9425611819391275,
         ('MemoryDaxpyCheck',)), 'nid00007': (0.9425611819391275,
         ('MemoryDaxpyCheck',)), 'nid00000': (0.9425611819391275,
         ('MemoryDaxpyCheck',)), 'nid00005': (0.9425611819391275,
         ('MemoryDaxpyCheck',))}, retried=frozenset({('nid00002',
         'StreamCheck')})), 0, 0, 0, 20)
@example(gen.example([gen.generation(66060288)], [0, 0, 0, 0],
         checks=('MemoryDaxpyCheck',)), 0, 0, 0, 20)
def test_plausible_beyond_any_node_is_no_measurement(made, node, check,
                                                     figure, orders):
    report = gen.report(made)
    node, check, figure = _pick(made, report, node, check, figure)
    implausible = _set(report, node, check, figure, lambda value, unit:
                       _better(value, unit, 10.0 ** orders))
    result = outcome(implausible)
    assert _judged(result) == _judged(outcome(_set(
        report, node, check, figure, lambda *_: float('nan'))))
    assert node in result.drained
    assert 'implausible' in '\n'.join(result.lines)


@examples(30)
@given(gen.fleets(nodes=st.integers(5, 40), generation_count=1,
                  troubles=False),
       gen.INDEX, gen.INDEX, gen.INDEX, st.floats(1.001e4, 1e12))
# found on the code before: a node's flops 10^4 times its siblings'
# passed as the fleet's best
@example(gen.example([gen.generation(66060288)], [0] * 5), 0, 0, 0, 1.5e4)
# shrunk by Hypothesis on the code before (c02ff62)
@example(gen.example([gen.generation(66060288)], [0, 0, 0, 0, 0],
         checks=('MemoryDaxpyCheck',)), 0, 0, 0, 10010.0)
def test_plausible_ten_thousand_times_the_siblings_is_no_measurement(
        made, node, check, figure, factor):
    report = gen.report(made)
    node, check, figure = _pick(made, report, node, check, figure)
    others = sorted(figures_of(case)[figure][0]
                    for case in final_testcases(report)
                    if case['display_name'].startswith(check + ' ') and
                    not case['display_name'].endswith(f'%.nid={node}') and
                    figure in figures_of(case))
    assume(len(others) >= 4)
    # the best of the others is at least as good as any median of them
    unit = dict((f, u) for f, u, _ in made.checks[check])[figure]
    best = others[-1] if noise.higher_is_better(unit) else others[0]
    high = _set(report, node, check, figure, lambda value, unit:
                _better(best, unit, factor))
    assert _judged(outcome(high)) == _judged(outcome(_set(
        report, node, check, figure, lambda *_: float('nan'))))


STREAM = ('StreamCheck %isa=native %turbo=as-configured %smt=as-configured '
          '%threads=all_cores')
FIGURES = (('triad', 'MB/s', 36000.0), ('copy', 'MB/s', 30000.0),
           ('latency', 'ns', 95.0), ('clock', 'GHz', 2.9))
NAMES = [name for name, _, _ in FIGURES]
RUN = st.tuples(*(st.floats(0.5, 1.5) for _ in FIGURES))
SAME = (1.0,) * len(FIGURES)


def _case(factors, figure=None, orders=0):
    made = runs.case(STREAM, {name: (level * f, unit) for (name, unit, level),
                              f in zip(FIGURES, factors)},
                     identity='array_elements=80000000;ntimes=10')
    if figure is not None:
        perf = made['perfvalues'][f'local:default:{figure}']
        perf[0] = _better(perf[0], perf[4], 10.0 ** orders)
    return made


@examples(40)
@given(st.lists(RUN, min_size=1, max_size=5), RUN, gen.INDEX,
       st.integers(20, 300))
# found on the code before: "improved", exit 0
@example([SAME], SAME, 0, 300)
# shrunk by Hypothesis on the code before (c02ff62)
@example([(1.0, 1.0, 1.0, 1.0)], (1.0, 1.0, 1.0, 1.0), 0, 20)
def test_plausible_after_the_upgrade_beyond_a_node_is_no_measurement(
        before, after, figure, orders):
    figure = gen.pick(NAMES, figure)
    stored = [baseline.collect('before', [_case(v) for v in before]),
              baseline.collect('nightly', [])]
    rows = judge([_case(after, figure, orders)], stored)
    (row,) = [r for r in rows if r['figure'] == figure]
    assert row['verdict'] == NO_MEASUREMENT
    assert row['note'].startswith('implausible')
    assert exit_status(rows, []) == 1
    whole = judge([_case(after)], stored)
    assert [r for r in rows if r['figure'] != figure] == \
        [r for r in whole if r['figure'] != figure]
