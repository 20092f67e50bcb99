'''*No measurement is a finding*, after an upgrade: a figure of a
``--before`` run that is no measurement (NaN, +-inf, null, missing,
negative, non-numeric) is left out of the baseline, whatever it was, and
said so; one of the run after the upgrade is "no measurement", which
fails it, and changes no other figure's verdict
(``hpc-acceptance post-upgrade``'s judgement, :func:`judgement.judge`
on :func:`baseline.collect`, as the command makes them).'''

from hypothesis import example, given
from hypothesis import strategies as st

from helpers import generated_runs as gen
from helpers import upgrade_runs as runs
from helpers.hypothesis_profiles import examples
from hpc_acceptance.tools.upgrade import baseline
from hpc_acceptance.tools.upgrade.judgement import (NO_MEASUREMENT,
                                                    exit_status, judge)

MISSING, KINDS = gen.MISSING, gen.NO_MEASUREMENTS
NAN, INF = float('nan'), float('inf')
STREAM = ('StreamCheck %isa=native %turbo=as-configured %smt=as-configured '
          '%threads=all_cores')
#: The figures of the runs: ``(name, unit, level)``.
FIGURES = (('triad', 'MB/s', 36000.0), ('copy', 'MB/s', 30000.0),
           ('latency', 'ns', 95.0))
NAMES = [name for name, _, _ in FIGURES]
#: A run: each figure's level times a factor.
RUN = st.tuples(*(st.floats(0.5, 1.5) for _ in FIGURES))
SAME = (1.0, 1.0, 1.0)


def _case(factors, broken=None, kind=None):
    '''A test case of the levels times ``factors``, its figure ``broken``
    written as ``kind``.'''
    made = runs.case(STREAM, {name: (level * f, unit) for (name, unit, level),
                              f in zip(FIGURES, factors)},
                     identity='array_elements=80000000;ntimes=10')
    if broken is not None:
        key = f'local:default:{broken}'
        if kind == MISSING:
            del made['perfvalues'][key]
        else:
            made['perfvalues'][key][0] = kind

    return made


def _rows(before, after):
    return judge(after, [baseline.collect('before', before),
                         baseline.collect('nightly', [])], min_runs=3)


@examples(60)
@given(st.lists(RUN, min_size=1, max_size=5), RUN, gen.INDEX, gen.INDEX,
       st.sampled_from(KINDS), st.sampled_from(KINDS))
# found on the code before: a NaN or -1 was a baseline value (a
# traceback for inf, a list, a word)
@example([SAME], SAME, 0, 0, NAN, NAN)
@example([SAME], SAME, 0, 0, -1.0, -1.0)
@example([SAME], SAME, 0, 0, NAN, INF)
@example([SAME], SAME, 0, 0, NAN, 'n/a')
@example([SAME], SAME, 0, 0, NAN, [38500.0])
def test_no_measurement_in_a_baseline_is_left_out_whatever_it_was(
        before, after, run, figure, one, other):
    run, figure = run % len(before), gen.pick(NAMES, figure)

    def judged(kind):
        return _rows([_case(v, *((figure, kind) if i == run else ()))
                      for i, v in enumerate(before)], [_case(after)])

    assert judged(one) == judged(other) == judged(MISSING)
    note = f'{STREAM} {figure} ('
    if one != MISSING:
        assert note in '; '.join(baseline.collect('before', [
            _case(v, figure, one) for v in before[:1]]).notes)


@examples(60)
@given(st.lists(RUN, min_size=1, max_size=5), RUN, gen.INDEX,
       st.sampled_from([k for k in KINDS if k != MISSING]))
# found on the code before: a NaN "regressed", a list or a word a traceback
@example([SAME], SAME, 0, NAN)
@example([SAME], SAME, 0, 'n/a')
@example([SAME], SAME, 0, [38500.0])
def test_no_measurement_after_the_upgrade_is_named_and_fails(
        before, after, figure, kind):
    figure = gen.pick(NAMES, figure)
    cases = [_case(v) for v in before]
    rows = _rows(cases, [_case(after, figure, kind)])
    (row,) = [r for r in rows if r['figure'] == figure]
    assert row['verdict'] == NO_MEASUREMENT
    assert exit_status(rows, []) == 1
    whole = _rows(cases, [_case(after)])
    assert [r for r in rows if r['figure'] != figure] == \
        [r for r in whole if r['figure'] != figure]
