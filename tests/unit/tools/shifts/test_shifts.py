'''Shifts across nights (hpc_acceptance.tools.shifts): the detection on
generated series, the rule that fails a run, what changed around that
night, acknowledgements, and the summary, verdict and export that carry
them.'''

import json
import random

import pytest

from hpc_acceptance.tools import cli
from hpc_acceptance.tools.outcome import acceptance_verdict, summary_text
from hpc_acceptance.tools.shifts import (acknowledged, detect, limit,
                                         night_facts, nightly)
from hpc_acceptance.tools.shifts import shift_samples as samples
from helpers.shift_nights import DAY, case, nights


def series(rng, nights, noise=0.01, shift=0.0, since=None, level=100.0):
    '''``nights`` values of ``noise`` (relative), ``shift`` from night
    ``since`` on.'''
    return [level * (1 + noise * rng.gauss(0, 1)) *
            (1 + shift if since is not None and night >= since else 1)
            for night in range(nights)]


@pytest.mark.parametrize('size', [-0.05, -0.10, -0.20, 0.10])
@pytest.mark.parametrize('seed', range(5))
def test_a_shift_on_1_percent_noise_is_reported_within_3_nights(seed, size):
    values = series(random.Random(seed), 33, shift=size, since=30)
    found = detect.latest_shift(values)
    assert found is not None
    assert found.left == 30 and found.after == 3
    assert found.size == pytest.approx(size, abs=0.02)
    assert found.errors >= detect.Z_OPEN


def test_ten_nights_tell_a_5_percent_step_at_3_percent_noise():
    reported = sum(
        detect.latest_shift(series(random.Random(seed), 40, noise=0.03,
                                   shift=-0.05, since=30)) is not None
        for seed in range(20))
    # 11 of these 20 (ci/bench/README.md: 57 % of seeds within 10 nights
    # at the thresholds that keep false alarms under 1 in 1000 nights)
    assert reported >= 9


def test_quiet_series_raise_at_most_one_alarm_per_thousand_nights():
    rng = random.Random(39)
    alarms = nights = 0
    for _ in range(20):
        values = series(rng, 60, noise=0.03)
        for night in range(10, 60):
            nights += 1
            alarms += detect.latest_shift(values[:night + 1]) is not None

    assert nights == 1000 and alarms <= 1


def test_one_odd_night_is_no_shift():
    values = series(random.Random(1), 20)
    values[-1] *= 0.8
    assert detect.judge(values) is None
    assert detect.judge(values + [100.0]) is None
    # an outlier amid the nights neither
    values = series(random.Random(2), 30)
    values[15] *= 1.3
    assert detect.judge(values) is None


def test_a_figure_that_wanders_more_than_the_shift_reports_nothing():
    values = series(random.Random(2), 25, noise=0.10, shift=-0.05, since=20)
    assert detect.latest_shift(values) is None


def test_too_short_a_history_is_not_judged():
    assert detect.judge([100, 100, 90, 90]) is None
    assert detect.judge([]) is None
    # the accepted level needs its nights
    short = [100.0] * (detect.MIN_BEFORE - 1) + [90.0] * 5
    assert detect.judge(short) is None


def test_a_staircase_is_judged_by_its_total_with_each_step_listed():
    rng = random.Random(3)
    values = series(rng, 40, shift=-0.07, since=20)
    values[30:] = [v * 0.93 for v in values[30:]]
    found = detect.latest_shift(values)
    assert found.size == pytest.approx(1 - 0.93 ** 2 * -1 - 2, abs=0.02) \
        or found.size == pytest.approx(0.93 ** 2 - 1, abs=0.02)
    assert found.left == 20 and found.index == 30
    assert [p.index for p in found.points] == [20, 30]
    assert all(p.size == pytest.approx(-0.07, abs=0.02)
               for p in found.points)
    # the first night of the second step is reported too (it was -7 %)
    assert detect.latest_shift(values[:31]) is not None


def test_a_slow_drift_is_judged_from_its_first_level():
    rng = random.Random(4)
    values = [v * (1 - 0.005 * max(0, night - 20))
              for night, v in enumerate(series(rng, 40))]
    found = detect.latest_shift(values)
    assert found is not None and found.size < -0.06


def test_a_reported_shift_stays_reported_every_night_after():
    '''The flapping case: a 10 % step at 3 % noise, judged night by
    night.'''
    for seed in range(5):
        values = series(random.Random(seed), 45, noise=0.03, shift=-0.10,
                        since=25)
        said = [detect.latest_shift(values[:night + 1]) is not None
                for night in range(25, 45)]
        first = said.index(True)
        assert all(said[first:]), (seed, said)


def test_a_fix_is_a_recovery_not_a_shift():
    rng = random.Random(5)
    values = series(rng, 40, shift=-0.10, since=20)
    values[30:] = [v / 0.9 for v in values[30:]]
    found = detect.judge(values)
    assert found.recovered and found.index == 30 and found.left == 20
    assert found.size == pytest.approx(-0.10, abs=0.02)
    assert detect.latest_shift(values) is None


def test_an_acknowledged_level_ends_the_shift_and_measures_the_next():
    values = series(random.Random(6), 35, shift=-0.10, since=20)
    level = sum(values[20:]) / 15
    assert detect.judge(values, accepted=(level, 15, 20)) is None
    more = values + [v * 0.92 for v in series(random.Random(7), 6,
                                                level=values[-1])]
    found = detect.latest_shift(more, accepted=(level, 15, 20))
    assert found.accepted == 'acknowledged'
    assert found.size == pytest.approx(-0.08, abs=0.02)


def test_the_site_limit_reads_every_family_and_one_family_in_any_case():
    assert limit.site_limits('0.05') == limit.Limits(0.05, {})
    assert limit.site_limits('0.05 Memory=0.03') == \
        limit.Limits(0.05, {'Memory': 0.03})
    assert limit.site_limits('memory=0.03 STREAM=0.1') == \
        limit.Limits(None, {'Memory': 0.03, 'Stream': 0.1})
    # where the noise floors are read, as the command's settings say
    assert limit.site_limits('', ['/site/ref']) == \
        limit.Limits(reference_dirs=('/site/ref',))
    for bad in ('lots', '1.5', 'Memroy=0.1'):
        with pytest.raises(limit.LimitError,
                           match=rf'HPC_ACCEPTANCE_SHIFT_LIMIT=.{bad}'):
            limit.site_limits(bad)


def test_a_loss_is_of_performance_whichever_the_unit():
    assert limit.loss(-0.07, 'MB/s') == pytest.approx(0.07)
    assert limit.loss(0.10, 'ns') == pytest.approx(1 - 1 / 1.1)
    assert limit.loss(0.10, 'MB/s') < 0


def test_the_limit_is_the_smaller_of_reference_and_site_or_noise_floor():
    perf = [90.0, 100.0, -0.10, None, 'MB/s', 'pass']
    assert limit.limit_of('StreamCheck', perf, LOOSE_LIMIT) == \
        (0.10, 'its reference tolerance')
    assert limit.limit_of('StreamCheck', perf, SITE_LIMIT)[0] == 0.05
    assert limit.limit_of('StreamCheck', perf,
                          limit.Limits(0.5, {'Stream': 0.2}))[0] \
        == 0.10
    # no site limit: the noise floor, the system's own where measured
    unbounded = [90.0, None, None, None, 'MB/s', 'pass']
    assert limit.limit_of('StreamCheck', unbounded, NO_SITE_LIMIT) == \
        (0.25, 'its noise floor (built-in)')
    assert limit.limit_of('StreamCheck', unbounded, NO_SITE_LIMIT,
                          {'Stream': 0.04}, 'the system\'s own')[0] == 0.04
    assert limit.limit_of('StreamCheck', perf, NO_SITE_LIMIT,
                          {'Stream': 0.04})[0] == 0.04
    time = [1.1, 1.0, None, 0.25, 's', 'pass']
    assert limit.limit_of('NpbCgCheck', time, NO_SITE_LIMIT)[0] == \
        pytest.approx(0.1)


def test_what_changed_names_node_software_and_binary():
    before = {'node_software': 'kernel=6.1.0-25; microcode=0xa0011d1',
              'spack_spec': 'stream@5.10/abc'}
    after = {'node_software': 'kernel=6.1.0-26; microcode=0xa0011d1',
             'spack_spec': 'stream@5.10/def'}
    changed = night_facts.changes(before, after)
    assert night_facts.describe(changed) == (
        'the kernel went from 6.1.0-25 to 6.1.0-26 and the Spack spec from '
        'stream@5.10/abc to stream@5.10/def')
    assert night_facts.changes({}, after) == []


def test_what_changed_is_searched_around_the_estimated_night():
    cases = [{'node_software': 'kernel=a'}] * 5 + \
        [{'node_software': 'kernel=b'}] * 5
    assert night_facts.around(cases, 5, 2) == (5, [('kernel', 'a', 'b')])
    # the estimate a night late, or two early: the same night named
    assert night_facts.around(cases, 6, 2)[0] == 5
    assert night_facts.around(cases, 3, 2)[0] == 5
    assert night_facts.around(cases, 8, 2) is None


NO_ACKS = {}

#: The site's shift limit: 5 % for every family; 50 %; none.
SITE_LIMIT = limit.Limits(0.05)
LOOSE_LIMIT = limit.Limits(0.5)
NO_SITE_LIMIT = limit.Limits()

#: The results database: none, where nothing here is read from one (the
#: acknowledgements and the fleet comparison are given).
NO_DATABASE = '/nonexistent/results.db'


def test_a_runs_shift_is_named_dated_and_fails_beyond_the_site_limit():
    history = nights(22, 19, -0.07)
    tonight, history = history[-1:], history[:-1]
    shifts = nightly.find(tonight, history, limits=SITE_LIMIT, acks=NO_ACKS,
                          db_path=NO_DATABASE)
    assert len(shifts) == 1
    shift = shifts[0]
    assert shift.failing and shift.since == 1.8e9 + 19 * DAY
    text = shift.describe()
    assert 'triad -7.' in text and 'since 2027-02-03 from its first 19 ' \
        'nights' in text and '3 nights at this level' in text
    assert 'confidence' not in text and 'standard errors' in text
    assert ('the kernel went from 6.1.0-25 to 6.1.0-26 the night of '
            '2027-02-03') in text
    assert 'more than the site\'s shift limit' in text
    # no site limit and no reference: the noise floor (25 % for STREAM)
    quiet = nightly.find(tonight, history, limits=NO_SITE_LIMIT, acks=NO_ACKS,
                         db_path=NO_DATABASE)
    assert not quiet[0].failing
    assert quiet[0].limit_source.startswith('its noise floor')
    # an improvement never fails
    better = nights(22, 19, 0.07)
    shift, = nightly.find(better[-1:], better[:-1], limits=SITE_LIMIT,
                          acks=NO_ACKS, db_path=NO_DATABASE)
    assert not shift.worse and not shift.failing


def test_without_a_site_limit_a_loss_beyond_the_noise_floor_fails():
    history = nights(24, 19, -0.30)
    shift, = nightly.find(history[-1:], history[:-1], limits=NO_SITE_LIMIT,
                          acks=NO_ACKS, db_path=NO_DATABASE)
    assert shift.failing and shift.limit == 0.25


def test_same_day_sessions_are_one_night_and_the_runs_are_counted():
    history = nights(22, 19, -0.07)
    # a rerun the afternoon of the last night
    rerun = case(21, history[-1]['perfvalues']['local:default:triad'][0],
                 kernel='6.1.0-26', session='rerun-21', hour=14)
    shift, = nightly.find([rerun], history, limits=SITE_LIMIT, acks=NO_ACKS,
                          db_path=NO_DATABASE)
    assert len(shift.nights) == 22 and shift.nights[-1].runs == 2
    assert '2 runs tonight' in shift.describe()


def test_a_reference_tolerance_fails_a_larger_shift():
    history = nights(22, 19, -0.07, ref=(40000, -0.05, None))
    shift, = nightly.find(history[-1:], history[:-1], limits=NO_SITE_LIMIT,
                          acks=NO_ACKS, db_path=NO_DATABASE)
    assert shift.failing and shift.limit == 0.05
    assert shift.limit_source == 'its reference tolerance'


def test_no_measurement_is_no_night_and_a_retyped_reference_no_bound():
    history = nights(24, 19, -0.07)
    for night, raw in zip(history[:6], [float('nan'), float('inf'), None,
                                         -1.0, 'n/a', {'v': 1}]):
        night['perfvalues']['local:default:triad'][0] = raw
    shift, = nightly.find(history[-1:], history[:-1], limits=SITE_LIMIT,
                          acks=NO_ACKS, db_path=NO_DATABASE)
    assert shift.failing and len(shift.nights) == 18
    retyped = [90.0, '100', '-0.1', None, 'MB/s', 'pass']
    assert limit.reference_tolerance(retyped) is None
    assert limit.reference_tolerance([90.0, 100.0, -0.1, None, 7]) is None


def test_a_fleet_run_has_one_series_per_node():
    runs = [c for node in ('n1', 'n2', 'n3', 'n4')
            for c in nights(22, 19, -0.10 if node == 'n3' else 0.0,
                            node=node, seed=int(node[1:]))]
    tonight = [c for c in runs if c['session_uuid'] == 'night-21']
    history = [c for c in runs if c['session_uuid'] != 'night-21']
    shifts = nightly.find(tonight, history, limits=SITE_LIMIT, acks=NO_ACKS,
                          db_path=NO_DATABASE)
    assert [s.node for s in shifts] == ['n3']
    assert 'on n3: triad' in shifts[0].describe()


def test_a_fixed_figure_is_said_recovered_and_fails_nothing():
    history = nights(32, 19, -0.10)
    for night in history[26:]:
        perf = night['perfvalues']['local:default:triad']
        perf[0] = perf[0] / 0.9
    shift, = nightly.find(history[-1:], history[:-1], limits=SITE_LIMIT,
                          acks=NO_ACKS, db_path=NO_DATABASE)
    assert shift.recovered and not shift.failing and not shift.worse
    assert shift.describe().startswith(
        'StreamCheck %threads=single @local:default+gnu: triad recovered '
        'since 2027-02-10')
    report = {'runs': [{'testcases': history[-1:]}]}
    assert acceptance_verdict.judge(report, [], shifts=[shift],
                                    db_path=NO_DATABASE)[0] == 0
    assert samples.lines([shift], {}) == []


def test_the_verdict_fails_on_a_failing_shift_and_names_it():
    history = nights(22, 19, -0.07)
    shifts = nightly.find(history[-1:], history[:-1], limits=SITE_LIMIT,
                          acks=NO_ACKS, db_path=NO_DATABASE)
    report = {'runs': [{'testcases': history[-1:]}]}
    status, message = acceptance_verdict.judge(report, [], shifts=shifts,
                                               db_path=NO_DATABASE)
    assert status == 1
    assert 'shift across nights: StreamCheck' in message
    assert message.splitlines()[-1].endswith(
        '1 figure(s) shifted across nights')
    quiet = nightly.find(history[-1:], history[:-1], limits=LOOSE_LIMIT,
                         acks=NO_ACKS, db_path=NO_DATABASE)
    assert acceptance_verdict.judge(report, [], shifts=quiet,
                                    db_path=NO_DATABASE)[0] == 0


def test_the_summary_ranks_shifts_by_size_and_hides_only_smaller_ones():
    small = nights(22, 19, -0.04, display='StreamCheck %threads=all')
    large = nights(22, 19, -0.18, display='StreamCheck %threads=single')
    history = small[:-1] + large[:-1]
    shifts = nightly.find([small[-1], large[-1]], history,
                          limits=LOOSE_LIMIT, acks=NO_ACKS,
                          db_path=NO_DATABASE)
    assert [round(s.point.size, 1) for s in shifts] == [-0.2, -0.0] or \
        abs(shifts[0].point.size) > abs(shifts[1].point.size)
    lines = summary_text.render([small[-1], large[-1]], [], shifts=shifts,
                                width=100)
    text = ' '.join(' '.join(lines).split())
    assert 'largest first' in text
    assert '%threads=single @local:default+gnu: triad -1' in text


def test_the_export_sends_size_errors_and_failure_beside_the_figure():
    history = nights(22, 19, -0.07)
    shifts = nightly.find(history[-1:], history[:-1], limits=SITE_LIMIT,
                          acks=NO_ACKS, db_path=NO_DATABASE)
    lines = samples.lines(shifts, {'suite_mode': 'nightly'})
    names = {line['metric']['__name__']: line for line in lines}
    assert set(names) == {samples.SHIFT, samples.SHIFT_ERRORS,
                          samples.SHIFT_FAILED}
    size = names[samples.SHIFT]
    assert size['values'][0] == pytest.approx(shifts[0].point.size)
    assert size['metric']['figure'] == 'triad'
    assert size['metric']['since'] == '2027-02-03'
    assert size['metric']['check'] == 'StreamCheck'
    assert size['timestamps'] == [int((1.8e9 + 21 * DAY) * 1000)]
    assert names[samples.SHIFT_FAILED]['values'] == [1]


def test_an_acknowledgement_is_kept_with_who_and_why(tmp_path):
    path = tmp_path / acknowledged.FILE_NAME
    entry = acknowledged.add(path, 'StreamCheck @local:default+gnu: triad',
                             38000.0, 5, 1.8e9, 'alice', 'new BIOS profile')
    assert acknowledged.read(path) == [entry]
    assert json.loads(path.read_text())['acknowledged'][0]['why'] == \
        'new BIOS profile'
    with pytest.raises(acknowledged.AcknowledgedError, match='--why'):
        acknowledged.add(path, 'x', 1.0, 1, 0.0, 'alice', '  ')
    path.write_text('{"acknowledged": [{"figure": 3}]}')
    with pytest.raises(acknowledged.AcknowledgedError,
                       match=r'acknowledged\[0\]: .figure. missing'):
        acknowledged.read(path)


def test_an_acknowledged_shift_ends_in_the_run_that_follows():
    history = nights(30, 19, -0.07)
    figure = 'StreamCheck %threads=single @local:default+gnu: triad'
    shift, = nightly.find(history[-1:], history[:-1], limits=SITE_LIMIT,
                          acks=NO_ACKS, db_path=NO_DATABASE)
    assert shift.figure == figure
    level, count = shift.level
    ack = acknowledged.Acknowledged(figure, level, count,
                                    shift.nights[shift.point.index].when,
                                    1.8e9 + 30 * DAY, 'alice', 'known')
    assert nightly.find(history[-1:], history[:-1], limits=SITE_LIMIT,
                        acks={figure: ack}, db_path=NO_DATABASE) == []


def test_the_shifts_command_acknowledges_a_standing_shift(
        tmp_path, monkeypatch, capsys):
    history = nights(30, 19, -0.07)
    monkeypatch.setattr('hpc_acceptance.tools.shifts.shifts.'
                        'stored_testcases', lambda query, db_path: history)
    db = str(tmp_path / 'results.db')
    monkeypatch.setenv('HPC_ACCEPTANCE_SHIFT_LIMIT', '0.05')
    assert cli.main(['shifts', '--db', db]) == 0
    listed = capsys.readouterr().out
    assert 'triad -7.' in listed
    figure = 'StreamCheck %threads=single @local:default+gnu: triad'
    with pytest.raises(SystemExit) as exit_:
        cli.main(['shifts', '--db', db, '--ack', figure])
    assert exit_.value.code == 2
    assert 'needs --why' in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(['shifts', '--db', db, '--ack', 'NoSuch: x', '--why', 'y'])
    assert 'no figure of that name has a shift' in capsys.readouterr().err
    assert cli.main(['shifts', '--db', db, '--ack', figure, '--why',
                     'a new BIOS profile', '--by', 'alice']) == 0
    assert 'acknowledged by alice' in capsys.readouterr().out
    assert cli.main(['shifts', '--db', db]) == 0
    assert 'triad -7.' not in capsys.readouterr().out
    assert cli.main(['shifts', '--db', db, '--acknowledged']) == 0
    assert 'alice: ' + figure in capsys.readouterr().out
