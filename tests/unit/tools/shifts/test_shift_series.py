'''Which runs make a figure's series of nights, and what a series is judged
with (hpc_acceptance.tools.shifts.nightly): the sessions, nodes, fixtures
and nights that count, the figure's last night for its unit and limit, an
acknowledged level, in ``find`` (tonight against the database) and in
``standing`` (what ``hpc-acceptance shifts`` lists), called in this
process (the mutants ci/bench/mutation.sh left alive: the command's own
tests start it as a process).'''

import random

from hpc_acceptance.tools.references import calibration
from hpc_acceptance.tools.shifts import acknowledged, detect, limit, nightly

from helpers.shift_nights import DAY, case, nights

SITE_LIMIT = limit.Limits(0.05)
NO_DATABASE = '/nonexistent/results.db'
TRIAD = 'StreamCheck %threads=single @local:default+gnu: triad'


def _fleet(shifted='n3', size=-0.10):
    '''22 nights of a fleet of 4 nodes, ``shifted`` stepping by ``size``
    from night 19.'''
    return [c for node in ('n1', 'n2', 'n3', 'n4')
            for c in nights(22, 19, size if node == shifted else 0.0,
                            node=node, seed=int(node[1:]))]


def _fixture(night, value, display='StreamBuild'):
    '''A fixture's test case (a build) that happens to carry a figure.'''
    found = case(night, value, display=display)
    found['fixture'] = True
    return found


def _builds():
    '''22 nights of a build fixture whose figure halves from night 15, at
    1 % noise: a shift, were it a series.'''
    rng = random.Random(5)
    return [_fixture(n, (100.0 if n < 15 else 50.0) *
                     (1 + 0.01 * rng.gauss(0, 1))) for n in range(22)]


def test_standing_judges_with_the_limits_given_and_no_site_limit_else():
    history = nights(22, 19, -0.07)
    shift, = nightly.standing(history, SITE_LIMIT, {})
    assert shift.failing and shift.limit == 0.05
    # no limits, no acknowledgements given: the noise floor (STREAM 25 %)
    shift, = nightly.standing(history)
    assert not shift.failing and shift.limit == 0.25


def test_standing_judges_a_fleet_night_node_by_node():
    shifts = nightly.standing(_fleet(), SITE_LIMIT, {})
    assert [(s.node, s.figure) for s in shifts] == [
        ('n3', 'StreamCheck %threads=single @local:default+gnu on n3: '
               'triad')]
    # a run of one node a night is one series, whatever node it ran on
    single = [dict(c, node=f'n{c["job_completion_time_unix"] % 3:.0f}')
              for c in nights(22, 19, -0.07)]
    shift, = nightly.standing(single, SITE_LIMIT, {})
    assert shift.node is None and shift.figure == TRIAD
    # a node's shift is acknowledged by its own name
    shift, = nightly.standing(_fleet(), SITE_LIMIT, {})
    level, count = shift.level
    ack = acknowledged.Acknowledged(
        shift.figure, level, count, shift.nights[shift.point.index].when,
        1.8e9 + 30 * DAY, 'alice', 'known')
    assert nightly.standing(_fleet(), SITE_LIMIT, {shift.figure: ack}) == []


def test_fixtures_make_no_series_and_stop_nothing():
    history = nights(22, 19, -0.07)
    builds = _builds()
    # stored first, a fixture neither makes a series nor ends the reading
    shifts = nightly.standing(builds + history, SITE_LIMIT, {})
    assert [s.figure for s in shifts] == [TRIAD]
    # nor is it a night of a series, stored or tonight's, even one of the
    # same name as the check's
    tonight, before = history[-1:], history[:-1]
    twin = _fixture(21, 1000.0, display='StreamCheck %threads=single')
    found = nightly.find(tonight + [twin], builds + before, SITE_LIMIT, {},
                         db_path=NO_DATABASE)
    assert [s.figure for s in found] == [TRIAD]
    assert len(found[0].nights) == 22
    assert found[0].nights[-1].value == \
        tonight[0]['perfvalues']['local:default:triad'][0]
    assert found[0].nights[-1].runs == 1
    # a stored fixture of the check's name is no night of its series
    stored_twin = _fixture(10, 1000.0, display='StreamCheck %threads=single')
    again, = nightly.find(tonight, before + [stored_twin], SITE_LIMIT, {},
                          db_path=NO_DATABASE)
    assert [n.value for n in again.nights] == [n.value for n in
                                               found[0].nights]


def test_a_figure_the_last_night_no_longer_has_is_not_listed():
    history = nights(22, 19, -0.07)
    retired = nights(21, 15, -0.20, display='StreamCheck %threads=single')
    for night in retired:
        night['perfvalues'] = {'local:default:copy': night['perfvalues'][
            'local:default:triad']}
    for mine, theirs in zip(history, retired):
        mine['perfvalues'].update(theirs['perfvalues'])
    assert [s.variable for s in nightly.standing(history, SITE_LIMIT, {})] \
        == ['triad']


def test_the_last_night_gives_the_unit_and_the_reference_tolerance():
    history = nights(22, 19, -0.07)
    # the reference entry set before the last night only
    history[-1]['perfvalues']['local:default:triad'][1:4] = [
        40000, -0.03, None]
    shift, = nightly.find(history[-1:], history[:-1], limit.Limits(),
                          {}, db_path=NO_DATABASE)
    assert shift.unit == 'MB/s'
    assert (shift.limit, shift.limit_source) == (
        0.03, 'its reference tolerance')
    assert shift.failing
    # one run tonight: no count said
    assert shift.describe() == (
        f'{TRIAD} -7.3 % since 2027-02-03 from its first 19 nights from '
        f'2027-01-15 (3 nights at this level, 9.8 standard errors; change '
        f'points -7.3 % 2027-02-03), the kernel went from 6.1.0-25 to '
        f'6.1.0-26 the night of 2027-02-03; more than its reference '
        f'tolerance, 3 %')


def test_the_runs_of_tonight_and_those_after_it_are_not_its_history():
    history = nights(24, 19, -0.07)
    tonight = history[21:22]
    # tonight's session stored already, and two nights stored after it
    found, = nightly.find(tonight, history, SITE_LIMIT, {},
                          db_path=NO_DATABASE)
    assert len(found.nights) == 22
    assert found.nights[-1].when == tonight[0]['job_completion_time_unix']
    # tonight's case once, not again from the store
    assert found.nights[-1].runs == 1
    # a stored run of tonight's exact time, of another session, counts
    twin = dict(history[20], session_uuid='twin',
                job_completion_time_unix=tonight[0][
                    'job_completion_time_unix'])
    found, = nightly.find(tonight, history[:21] + [twin], SITE_LIMIT, {},
                          db_path=NO_DATABASE)
    assert found.nights[-1].runs == 2


def test_tonight_without_a_time_is_judged_against_every_stored_night():
    history = nights(22, 19, -0.07)
    tonight = dict(history[-1], session_uuid='untimed')
    del tonight['job_completion_time_unix']
    found, = nightly.find([tonight], history[:-1], SITE_LIMIT, {},
                          db_path=NO_DATABASE)
    assert found.failing


def test_find_reads_the_acknowledgements_beside_the_database(tmp_path):
    history = nights(30, 19, -0.07)
    shift, = nightly.find(history[-1:], history[:-1], SITE_LIMIT, {},
                          db_path=NO_DATABASE)
    level, count = shift.level
    db = tmp_path / 'results.db'
    acknowledged.add(acknowledged.path_of(db), TRIAD, level, count,
                     shift.nights[shift.point.index].when, 'alice',
                     'a new BIOS profile', at=1.8e9 + 30 * DAY)
    # no acknowledgements given: the file beside the database
    assert nightly.find(history[-1:], history[:-1], SITE_LIMIT,
                        db_path=db) == []


def _ack(level, since, nights=10):
    return {TRIAD: acknowledged.Acknowledged(TRIAD, level, nights, since,
                                             since, 'alice', 'known')}


def _quiet(*values):
    '''One night a value, within a few per mille: an acknowledged level
    needs few nights to tell from them.'''
    return [case(night, value) for night, value in enumerate(values)]


def test_an_acknowledged_level_judges_a_series_of_four_nights():
    four = _quiet(36000, 36050, 35980, 36020)
    assert len(four) == detect.MIN_AFTER + 2
    start = four[0]['job_completion_time_unix']
    shift, = nightly.standing(four, SITE_LIMIT, _ack(40000.0, start))
    assert shift.worse and shift.ack is not None
    assert nightly.standing(four[:-1], SITE_LIMIT,
                            _ack(40000.0, start)) == []
    # tonight, the fourth night, judged against the three stored
    shift, = nightly.find(four[-1:], four[:-1], SITE_LIMIT,
                          _ack(40000.0, start), db_path=NO_DATABASE)
    assert shift.worse and len(shift.nights) == 4
    assert nightly.find(four[-1:], four[1:-1], SITE_LIMIT,
                        _ack(40000.0, start), db_path=NO_DATABASE) == []


def test_an_acknowledgement_counts_from_the_night_it_names():
    history = _quiet(40000, 40050, 39980, 40020, 40010, 39990, 40030, 40000,
                     36000, 36050, 35980, 36020, 36010, 35990, 36030, 36000)
    at = history[8]['job_completion_time_unix']
    # acknowledged at 40000 the night the step came: measured from it
    shift, = nightly.standing(history, SITE_LIMIT, _ack(40000.0, at))
    assert shift.point.left == 8
    # ... a second later: from the night after
    shift, = nightly.standing(history, SITE_LIMIT, _ack(40000.0, at + 1))
    assert shift.point.left == 9
    # after every night: nothing after it to judge, not even the last two
    assert nightly.standing(history, SITE_LIMIT,
                            _ack(40000.0, at + 30 * DAY)) == []


def test_a_figure_new_tonight_has_no_series_yet():
    history = nights(22, 19, -0.07)
    tonight = dict(history[-1], display_name='StreamCheck %threads=all')
    assert nightly.find([tonight], history[:-1], SITE_LIMIT, {},
                        db_path=NO_DATABASE) == []


def test_what_changed_is_looked_for_where_the_figure_left_its_level():
    # two steps: the kernel changed at the first, nothing at the second
    history = nights(30, 12, -0.07)
    for night in history[22:]:
        night['perfvalues']['local:default:triad'][0] *= 0.93
    # and a rerun an hour after the last night's run
    rerun = dict(history[-1], session_uuid='rerun',
                 job_completion_time_unix=history[-1][
                     'job_completion_time_unix'] + 3600)
    shift, = nightly.find([rerun], history, SITE_LIMIT, {},
                          db_path=NO_DATABASE)
    assert shift.point.left == 12 and shift.point.index == 22
    assert shift.describe() == (
        f'{TRIAD} -13.3 % since 2027-01-27 from its first 12 nights from '
        f'2027-01-15 (8 nights at this level, 2 runs tonight, 23.4 standard '
        f'errors; change points -6.7 % 2027-01-27; -7.1 % 2027-02-06), the '
        f'kernel went from 6.1.0-25 to 6.1.0-26 the night of 2027-01-27; '
        f'more than the site\'s shift limit (HPC_ACCEPTANCE_SHIFT_LIMIT), '
        f'5 %')


def test_what_changed_at_a_recovery_is_looked_for_where_it_recovered():
    history = nights(32, 19, -0.10)
    for night in history[26:]:
        night['perfvalues']['local:default:triad'][0] /= 0.9
        night['node_software'] = 'kernel=6.1.0-27'
    shift, = nightly.find(history[-1:], history[:-1], SITE_LIMIT, {},
                          db_path=NO_DATABASE)
    assert shift.recovered
    assert shift.describe() == (
        f'{TRIAD} recovered since 2027-02-10 (it was -10.1 % against its '
        f'first 19 nights from 2027-01-15, from 2027-02-03 on), the kernel '
        f'went from 6.1.0-26 to 6.1.0-27 the night of 2027-02-10; not a '
        f'failure')


def test_a_series_is_judged_with_its_system_s_own_noise_floor(tmp_path):
    calibration.write(calibration.path_of('local', [str(tmp_path)]),
                      {'floors': {'Stream': 0.04}})
    history = nights(24, 19, -0.07)
    own = limit.Limits(reference_dirs=(str(tmp_path),))
    shift, = nightly.find(history[-1:], history[:-1], own, {},
                          db_path=NO_DATABASE)
    assert (shift.limit, shift.failing) == (0.04, True)
    assert "the system's own" in shift.limit_source


def test_runs_without_figures_or_with_short_entries_are_no_nights():
    history = nights(24, 19, -0.07)
    history[3]['perfvalues'] = None
    # ReFrame's entry is [value, reference, lower, upper, unit, result]:
    # without its unit it is no measurement
    history[4]['perfvalues']['local:default:triad'] = [40000.0, None, None,
                                                       None]
    # one without its result still is
    history[5]['perfvalues']['local:default:triad'] = history[5][
        'perfvalues']['local:default:triad'][:5]
    shift, = nightly.find(history[-1:], history[:-1], SITE_LIMIT, {},
                          db_path=NO_DATABASE)
    assert len(shift.nights) == 22


def test_failing_shifts_come_first_then_by_size():
    small = nights(24, 19, -0.07, ref=(40000, -0.05, None))
    large = nights(24, 19, -0.12, display='StreamCheck %threads=all')
    found = nightly.find(small[-1:] + large[-1:], small[:-1] + large[:-1],
                         limit.Limits(0.5), {}, db_path=NO_DATABASE)
    # the 7 % loss fails its reference tolerance; the 12 % one passes
    assert [(s.failing, round(s.point.size, 2)) for s in found] == [
        (True, -0.07), (False, -0.12)]


def test_what_a_node_recorded_reaches_the_line_on_one_line_and_inert():
    history = nights(32, 19, -0.10)
    hostile = '$(touch /tmp/x)\x1b[31m`id`\nacceptance passed'
    for night in history[26:]:
        night['perfvalues']['local:default:triad'][0] /= 0.9
        night['node_software'] = f'kernel={hostile}'
    shift, = nightly.find(history[-1:], history[:-1], SITE_LIMIT, {},
                          db_path=NO_DATABASE)
    text = shift.describe()
    assert '\n' not in text and '\x1b' not in text
    assert 'to $(touch /tmp/x)^[[31m`id` acceptance passed the night' in text
