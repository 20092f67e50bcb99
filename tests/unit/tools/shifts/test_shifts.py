'''Shifts across nights (hpc_acceptance.tools.shifts): the detection on
generated series, the rule that fails a run, what changed that night, and
the summary, verdict and export that carry them.'''

import random

import pytest

from hpc_acceptance.tools.outcome import summary, verdict
from hpc_acceptance.tools.shifts import detect, limit, night_facts, nightly
from hpc_acceptance.tools.shifts import samples

DAY = 86400.0


def series(rng, nights, noise=0.01, shift=0.0, since=None, level=100.0):
    '''``nights`` values of ``noise`` (relative), ``shift`` from night
    ``since`` on.'''
    return [level * (1 + noise * rng.gauss(0, 1)) *
            (1 + shift if since is not None and night >= since else 1)
            for night in range(nights)]


@pytest.mark.parametrize('size', [-0.05, -0.10, -0.20, 0.10])
@pytest.mark.parametrize('seed', range(5))
def test_a_shift_on_1_percent_noise_is_reported_within_3_nights(seed, size):
    rng = random.Random(seed)
    values = series(rng, 23, shift=size, since=20)
    found = detect.latest_shift(values)
    assert found is not None
    assert found.index == 20 and found.after == 3
    assert found.size == pytest.approx(size, abs=0.025)
    assert found.confidence > 0.999


def test_quiet_series_raise_at_most_one_alarm_per_thousand_nights():
    rng = random.Random(39)
    alarms = nights = 0
    for _ in range(20):
        values = series(rng, 60)
        for night in range(10, 60):
            nights += 1
            alarms += detect.latest_shift(values[:night + 1]) is not None

    assert nights == 1000 and alarms <= 1


def test_one_odd_night_is_no_persistent_shift():
    values = series(random.Random(1), 20)
    values[-1] *= 0.8
    assert detect.latest_shift(values) is None
    # the night after, back at its level: still none
    assert detect.latest_shift(values + [100.0]) is None


def test_a_figure_that_wanders_more_than_the_shift_reports_nothing():
    rng = random.Random(2)
    values = series(rng, 25, noise=0.10, shift=-0.05, since=20)
    assert detect.latest_shift(values) is None


def test_too_short_a_history_is_not_searched():
    assert detect.latest_shift([100, 100, 90, 90]) is None
    assert detect.latest_shift([]) is None


def test_the_site_limit_reads_every_family_and_one_family():
    assert limit.site_limits('0.05') == (0.05, {})
    assert limit.site_limits('0.05 Memory=0.03') == (0.05, {'Memory': 0.03})
    for bad in ('lots', '1.5', 'Memroy=0.1'):
        with pytest.raises(limit.LimitError,
                           match=rf'HPC_ACCEPTANCE_SHIFT_LIMIT=.{bad}'):
            limit.site_limits(bad)


def test_a_loss_is_of_performance_whichever_the_unit():
    assert limit.loss(-0.07, 'MB/s') == pytest.approx(0.07)
    assert limit.loss(0.10, 'ns') == pytest.approx(1 - 1 / 1.1)
    assert limit.loss(0.10, 'MB/s') < 0


def test_the_limit_is_the_smaller_of_reference_and_site():
    perf = [90.0, 100.0, -0.10, None, 'MB/s', 'pass']
    assert limit.limit_of('StreamCheck', perf, (None, {})) == \
        (0.10, 'its reference tolerance')
    assert limit.limit_of('StreamCheck', perf, (0.05, {}))[0] == 0.05
    assert limit.limit_of('StreamCheck', perf, (0.5, {'Stream': 0.2}))[0] \
        == 0.10
    unbounded = [90.0, None, None, None, 'MB/s', 'pass']
    assert limit.limit_of('StreamCheck', unbounded, (None, {})) == \
        (None, None)
    time = [1.1, 1.0, None, 0.25, 's', 'pass']
    assert limit.limit_of('NpbCgCheck', time, (None, {}))[0] == \
        pytest.approx(0.2)


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


def case(night, value, node=None, kernel='6.1.0-25', unit='MB/s',
         ref=(None, None, None), display='StreamCheck %threads=single'):
    if node:
        display += f' %.nid={node}'

    found = {'display_name': display, 'system': 'local',
             'partition': 'default', 'environ': 'gnu', 'result': 'pass',
             'session_uuid': f'night-{night}', 'fixture': False,
             'job_completion_time_unix': 1.8e9 + night * DAY,
             'node_software': f'kernel={kernel}',
             'perfvalues': {'local:default:triad': [value, *ref, unit,
                                                    'pass']}}
    if node:
        found['node'] = node

    return found


def nights(count, shift_from, size, node=None, seed=0, **kwargs):
    rng = random.Random(seed)
    return [case(n, 40000 * (1 + 0.01 * rng.gauss(0, 1)) *
                 (1 + size if n >= shift_from else 1), node=node,
                 kernel='6.1.0-26' if n >= shift_from else '6.1.0-25',
                 **kwargs)
            for n in range(count)]


def test_a_runs_shift_is_named_dated_and_fails_beyond_the_site_limit():
    history = nights(22, 19, -0.07)
    tonight, history = history[-1:], history[:-1]
    shifts = nightly.find(tonight, history, limits=(0.05, {}))
    assert len(shifts) == 1
    shift = shifts[0]
    assert shift.failing and shift.since == 1.8e9 + 19 * DAY
    text = shift.describe()
    assert 'triad -7.' in text and 'since 2027-02-03 (3 nights' in text
    assert 'the night the kernel went from 6.1.0-25 to 6.1.0-26' in text
    assert 'more than the site\'s shift limit' in text
    # no limit and no reference: reported, not failing
    assert not nightly.find(tonight, history, limits=(None, {}))[0].failing
    # an improvement never fails
    better = nights(22, 19, 0.07)
    shift, = nightly.find(better[-1:], better[:-1], limits=(0.05, {}))
    assert not shift.worse and not shift.failing


def test_a_reference_tolerance_fails_a_larger_shift():
    history = nights(22, 19, -0.07, ref=(40000, -0.05, None))
    shift, = nightly.find(history[-1:], history[:-1], limits=(None, {}))
    assert shift.failing and shift.limit == 0.05
    assert shift.limit_source == 'its reference tolerance'


def test_no_measurement_is_no_night_and_a_retyped_reference_no_bound():
    history = nights(22, 19, -0.07)
    for night, raw in zip(history[:6], [float('nan'), float('inf'), None,
                                         -1.0, 'n/a', {'v': 1}]):
        night['perfvalues']['local:default:triad'][0] = raw
    shift, = nightly.find(history[-1:], history[:-1], limits=(0.05, {}))
    assert shift.failing and len(shift.nights) == 16
    retyped = [90.0, '100', '-0.1', None, 'MB/s', 'pass']
    assert limit.reference_tolerance(retyped) is None
    assert limit.reference_tolerance([90.0, 100.0, -0.1, None, 7]) is None


def test_a_fleet_run_has_one_series_per_node():
    runs = [c for node in ('n1', 'n2', 'n3', 'n4')
            for c in nights(22, 19, -0.10 if node == 'n3' else 0.0,
                            node=node, seed=int(node[1:]))]
    tonight = [c for c in runs if c['session_uuid'] == 'night-21']
    history = [c for c in runs if c['session_uuid'] != 'night-21']
    shifts = nightly.find(tonight, history, limits=(0.05, {}))
    assert [s.node for s in shifts] == ['n3']
    assert 'on n3: triad' in shifts[0].describe()


def test_the_verdict_fails_on_a_failing_shift_and_names_it():
    history = nights(22, 19, -0.07)
    shifts = nightly.find(history[-1:], history[:-1], limits=(0.05, {}))
    report = {'runs': [{'testcases': history[-1:]}]}
    status, message = verdict.judge(report, [], shifts=shifts)
    assert status == 1
    assert 'shift across nights: StreamCheck' in message
    assert message.splitlines()[-1].endswith(
        '1 figure(s) shifted across nights')
    # one that does not fail is no failure
    quiet = nightly.find(history[-1:], history[:-1], limits=(None, {}))
    assert verdict.judge(report, [], shifts=quiet)[0] == 0


def test_the_summary_lists_shifts_with_what_changed():
    history = nights(22, 19, -0.07)
    shifts = nightly.find(history[-1:], history[:-1], limits=(0.05, {}))
    lines = summary.render(history[-1:], [], shifts=shifts, width=200)
    text = '\n'.join(lines)
    assert 'shifts across nights (1; 1 beyond their tolerance' in text
    assert 'the kernel went from 6.1.0-25 to 6.1.0-26' in text


def test_the_export_sends_size_confidence_and_failure_beside_the_figure():
    history = nights(22, 19, -0.07)
    shifts = nightly.find(history[-1:], history[:-1], limits=(0.05, {}))
    lines = samples.lines(shifts, {'suite_mode': 'nightly'})
    names = {line['metric']['__name__']: line for line in lines}
    assert set(names) == {samples.SHIFT, samples.SHIFT_CONFIDENCE,
                          samples.SHIFT_FAILED}
    size = names[samples.SHIFT]
    assert size['values'][0] == pytest.approx(shifts[0].point.size)
    assert size['metric']['figure'] == 'triad'
    assert size['metric']['since'] == '2027-02-03'
    assert size['metric']['check'] == 'StreamCheck'
    assert size['timestamps'] == [int((1.8e9 + 21 * DAY) * 1000)]
    assert names[samples.SHIFT_FAILED]['values'] == [1]
