'''The site's limits on a fleet night's node jobs, read from Slurm
(hpc_acceptance.tools.node_jobs.site_limits), on the test cluster's own
answers (tests/fixtures/data/slurm/) and on the limits a site sets.'''

import pytest

from conftest import DATA_DIR
from hpc_acceptance.tools.node_jobs import site_limits

SLURM = DATA_DIR / 'slurm'
#: The reservation's start, as the captured answer gives it (local time).
RESERVED = site_limits.stamp('2026-11-28T19:57:18')


def answers(config=None, partition=None, accounting=None, jobs=0,
            reservation=None):
    '''A Slurm that answers as the test cluster did, with the changes
    given.'''
    shown = {
        ('scontrol', 'show', 'config'): config or
        (SLURM / 'scontrol-show-config.txt').read_text(),
        ('scontrol', '-o', 'show', 'partition'): partition or
        (SLURM / 'scontrol-show-partition.txt').read_text(),
        ('scontrol', '-o', 'show', 'reservation', 'maint'): reservation or
        (SLURM / 'scontrol-show-reservation.maint.txt').read_text(),
    }

    def ask(*args):
        if args[0] == 'squeue':
            return '\n'.join(str(i) for i in range(jobs))
        if args[0] == 'sacctmgr':
            if accounting is None:
                raise site_limits.SlurmUnavailable('sacctmgr: no slurmdbd')
            return accounting.get(args[3], '')
        if args not in shown:
            raise site_limits.SlurmUnavailable(f'{args}: not found')
        return shown[args]

    return ask


def test_the_test_cluster_s_answers_are_read():
    conf = site_limits.settings((SLURM / 'scontrol-show-config.txt')
                                .read_text())
    assert conf['MaxJobCount'] == '10000'
    assert conf['MaxArraySize'] == '1001'
    (part,) = map(site_limits.fields, (SLURM / 'scontrol-show-partition.txt')
                  .read_text().splitlines())
    assert (part['PartitionName'], part['State'], part['MaxTime']) == \
        ('compute', 'UP', 'UNLIMITED')


@pytest.mark.parametrize('text, minutes', [
    ('UNLIMITED', None), ('INFINITE', None), ('NONE', None), ('30', 30),
    ('45:30', 46), ('2:00:00', 120), ('1-00:00:00', 1440),
    ('1-12', 2160), ('0:00:30', 1)])
def test_slurm_s_times_in_minutes(text, minutes):
    assert site_limits.minutes(text) == minutes


def test_a_small_night_on_an_unbounded_cluster_is_bound_by_nothing():
    limits = site_limits.read(4, 'compute', ask=answers())
    assert limits.problem is None and limits.bounds == []
    assert limits.queued is None
    assert limits.minutes == site_limits.DEFAULT_MINUTES
    assert 'no accounting database' in limits.notes[0]


def test_the_jobs_slurm_holds_bound_the_queue():
    config = (SLURM / 'scontrol-show-config.txt').read_text().replace(
        '10000', '300')
    limits = site_limits.read(1000, 'compute', ask=answers(config, jobs=100))
    assert limits.queued == 200
    assert limits.bounds == ['at most 200 node job(s) queued at once of '
                             '1000: MaxJobCount 300 (Slurm holds 100 job(s) '
                             'now)']


def test_the_user_s_and_the_qos_s_submit_limits_bound_the_queue():
    limits = site_limits.read(
        4000, 'compute', user='ops',
        ask=answers(jobs=10, accounting={
            'assoc': '500|normal\n',
            'qos': 'normal|400|02:00:00\n'}))
    assert limits.queued == 390
    assert limits.bounds[0].endswith('MaxSubmitJobsPerUser 400 of QOS '
                                     'normal (ops has 10 job(s) now)')
    assert limits.minutes == 120
    assert 'MaxWall 02:00:00 of QOS normal' in limits.bounds[1]


def test_max_jobs_asked_bounds_the_queue_and_a_time_limit_is_kept():
    limits = site_limits.read(4, 'compute', asked_queued=1,
                              asked_minutes=30, ask=answers())
    assert (limits.queued, limits.minutes) == (1, 30)
    assert limits.bounds == ['at most 1 node job(s) queued at once of 4: '
                             '--max-jobs 1']


def test_a_partition_s_max_time_bounds_the_time_limit_asked():
    partition = (SLURM / 'scontrol-show-partition.txt').read_text() \
        .replace('MaxTime=UNLIMITED', 'MaxTime=00:45:00')
    limits = site_limits.read(4, 'compute', asked_minutes=90,
                              ask=answers(partition=partition))
    assert limits.minutes == 45
    assert limits.bounds == ["a node job's time limit 45 min: MaxTime "
                             "00:45:00 of partition compute (asked: 90 min)"]


def test_a_reservation_ends_the_node_jobs_a_minute_before_it_does():
    limits = site_limits.read(2, 'compute', reservation='maint',
                              now=RESERVED + 600, ask=answers())
    assert limits.minutes == 60 - 10 - site_limits.RESERVATION_MARGIN_MIN
    assert limits.bounds[0].endswith('reservation maint ends at '
                                     '2026-11-28T20:57:18')


@pytest.mark.parametrize('change, problem', [
    (dict(now=RESERVED + 3600, reservation='maint'),
     'reservation maint ends at 2026-11-28T20:57:18: no time left'),
    (dict(reservation='gone'), 'reservation gone cannot be read'),
    (dict(partition='gpu'), 'Slurm has no partition gpu'),
])
def test_a_night_that_cannot_run_says_why(change, problem):
    partition = change.pop('partition', 'compute')
    limits = site_limits.read(4, partition, ask=answers(), **change)
    assert limits.problem.startswith(problem)


def test_a_partition_that_is_down_stops_the_night():
    down = (SLURM / 'scontrol-show-partition.txt').read_text().replace(
        'State=UP', 'State=DOWN')
    limits = site_limits.read(4, None, ask=answers(partition=down))
    assert limits.problem == 'partition compute is DOWN'
