'''*Order*: any permutation of the nodes, the test cases or the runs of a
report gives the same verdict, suspects and drain lines.

ReFrame lists a fleet run's test cases in its ``--distribute`` order, not in
the nodes' order, and the results database gives a session's attempts in
the order SQLite finds them; neither is an order of the nodes that may
decide which of them is drained. The report is read as the verdict reads
its file (:func:`finished_run.read`).'''

import json
import random

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from helpers import generated_runs as gen
from helpers.fleet_verdicts import outcome
from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools.outcome import finished_run

pytestmark = pytest.mark.usefixtures('empty_results_database')


def _permuted(report, seed):
    '''``report`` with its runs and each run's test cases shuffled.'''
    rng = random.Random(seed)
    made = dict(report, runs=[dict(run, testcases=rng.sample(
        run['testcases'], len(run['testcases']))) for run in report['runs']])
    rng.shuffle(made['runs'])
    return made


def _read(report, path, db_path):
    path.write_text(json.dumps(report))
    return outcome(finished_run.read([(str(path), 0)],
                                     db_path=db_path).report)


#: Found on the code before: two generations whose memory was matched
#: against the first node's (the other generation's), then rounded; a
#: retried test case whose runs came the other way round.
TWO_GENERATIONS = gen.example(
    [gen.generation(66060288), gen.generation(99090432)],
    [1, 0, 0, 0, 0, 1, 1, 1], [99090432, 66060288, 66060288, 66060288,
                               66060288, 99090433, 99090431, 99090432])
RETRIED = gen.example([gen.generation(66060288)], [0] * 12,
                      retried=frozenset({('n0', 'MemoryDaxpyCheck')}))


@examples(40)
@given(gen.fleets(nodes=st.integers(4, 40)), st.integers(0, 2 ** 32))
@example(made=TWO_GENERATIONS, seed=1)
@example(made=RETRIED, seed=0)
def test_order_of_nodes_cases_and_runs_changes_nothing(
        tmp_path, empty_results_database, made, seed):
    report = gen.report(made)
    first = _read(report, tmp_path / 'report.json', empty_results_database)
    again = _read(_permuted(report, seed), tmp_path / 'permuted.json',
                  empty_results_database)
    assert again.status == first.status
    assert again.message == first.message
    assert again.suspects == first.suspects
    assert again.drains == first.drains
    assert again.lines == first.lines


@examples(10)
@given(gen.fleets(nodes=st.integers(40, 300), troubles=False),
       st.integers(0, 2 ** 32))
def test_order_of_a_large_fleet_changes_nothing(
        tmp_path, empty_results_database, made, seed):
    report = gen.report(made)
    first = _read(report, tmp_path / 'report.json', empty_results_database)
    again = _read(_permuted(report, seed), tmp_path / 'permuted.json',
                  empty_results_database)
    assert (again.status, again.message, again.drains) == \
        (first.status, first.message, first.drains)
