'''Saying when checks take their binaries from elsewhere than the runs
before (hpc_acceptance.tools.outcome.dependency_drift).'''

import pytest

from hpc_acceptance.tools.outcome import binary_sources as drift

ENV = '/opt/acceptance/spack-envs/local'
DAY = 86400.0


def case(check, source, when, session, system='local'):
    return {'display_name': f'{check} %isa=native %threads=single',
            'system': system, 'fixture': False, 'result': 'pass',
            'dependency_source': source, 'job_completion_time_unix': when,
            'session_uuid': session}


def spack(check, when, session):
    return case(check, f'spack:{ENV} (hpc-acceptance-kernels target=zen2)',
                when, session)


def in_tree(check, when, session):
    return case(check, 'in-tree:/opt/acceptance/var/stage/build', when,
                session)


def test_a_run_from_the_same_source_says_nothing():
    history = [spack('MemoryLatencyCheck', 1 * DAY, 's1')]
    current = [spack('MemoryLatencyCheck', 2 * DAY, 's2')]
    assert drift.describe(drift.changes(current, history)) == []


def test_the_first_run_without_spack_names_the_environment_and_checks():
    history = [spack('MemoryLatencyCheck', 1 * DAY, 's1'),
               spack('StreamCheck', 1 * DAY + 60, 's1')]
    current = [in_tree('MemoryLatencyCheck', 2 * DAY, 's2'),
               in_tree('StreamCheck', 2 * DAY + 60, 's2')]
    [line] = drift.describe(drift.changes(current, history))
    assert line.startswith(
        f'Spack environment {ENV} missing since 1970-01-03 00:00 UTC '
        f'(last used 1970-01-02 00:01 UTC on local); checks fell back to '
        f'in-tree: MemoryLatencyCheck, StreamCheck.')


def test_a_missing_environment_is_reported_until_it_is_back():
    history = [spack('MemoryLatencyCheck', 1 * DAY, 's1'),
               in_tree('MemoryLatencyCheck', 2 * DAY, 's2')]
    later = [in_tree('MemoryLatencyCheck', 3 * DAY, 's3')]
    [line] = drift.describe(drift.changes(later, history))
    # since the first run without it, not since this one
    assert 'missing since 1970-01-03 00:00 UTC' in line

    # back: said once, as a change like any other
    back = [spack('MemoryLatencyCheck', 3 * DAY, 's3')]
    [line] = drift.describe(drift.changes(back, history))
    assert line.startswith('dependency source changed from in-tree')
    assert drift.changes([spack('MemoryLatencyCheck', 4 * DAY, 's4')],
                         history + back) == {}


def test_other_changes_are_said_on_the_run_that_sees_them():
    path = case('MemoryLatencyCheck', 'path:/usr/local/bin/mem_latency',
                3 * DAY, 's3')
    history = [in_tree('MemoryLatencyCheck', 1 * DAY, 's1')]
    [line] = drift.describe(drift.changes([path], history))
    assert line == ('dependency source changed from in-tree (last used '
                    '1970-01-02 00:00 UTC on local) to path: '
                    'MemoryLatencyCheck')
    later = dict(path, session_uuid='s2', job_completion_time_unix=2 * DAY)
    assert drift.changes([path], history + [later]) == {}


def test_runs_of_other_systems_and_this_run_itself_are_not_compared():
    history = [case('MemoryLatencyCheck', f'spack:{ENV} (x)', 1 * DAY, 's1',
                    system='cluster'),
               spack('MemoryLatencyCheck', 2 * DAY, 's2')]
    current = [in_tree('MemoryLatencyCheck', 2 * DAY, 's2')]
    assert drift.changes(current, history) == {}


@pytest.fixture
def spack_used_before(monkeypatch):
    monkeypatch.delenv('HPC_ACCEPTANCE_SPACK', raising=False)
    return [spack('MemoryLatencyCheck', 1 * DAY, 's1')]


def test_before_a_run_a_usable_setup_record_says_nothing(spack_used_before):
    record = {'environment': ENV}
    assert drift.before_run(record, spack_used_before, 2 * DAY) == []


def test_before_a_run_the_setup_problem_is_the_reason(spack_used_before):
    record = {'environment': ENV, 'problem': 'SPACK_ROOT=/opt/spack '
                                             'cannot be used'}
    [line] = drift.before_run(record, spack_used_before, 2 * DAY)
    assert line.startswith(
        f'Spack environment {ENV} missing since 1970-01-03 00:00 UTC (last '
        f'used 1970-01-02 00:00 UTC; SPACK_ROOT=/opt/spack cannot be used)')


def test_before_a_run_switching_spack_off_is_the_reason(spack_used_before,
                                                        monkeypatch):
    monkeypatch.setenv('HPC_ACCEPTANCE_SPACK', 'off')
    [line] = drift.before_run({'environment': ENV}, spack_used_before,
                              2 * DAY)
    assert '; HPC_ACCEPTANCE_SPACK=off)' in line


def test_before_a_run_a_missing_record_is_the_reason(spack_used_before):
    [line] = drift.before_run(None, spack_used_before, 2 * DAY)
    assert 'no Spack prepared (' in line and 'setup.json is missing' in line
