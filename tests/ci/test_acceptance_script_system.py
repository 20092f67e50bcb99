'''ci/acceptance.sh before ReFrame: the system a site names is the one it
validates (``--system NAME``, else ``HPC_ACCEPTANCE_SYSTEM``, as
ci/nightly.sh and ci/post-upgrade.sh), an unknown one refused before
anything runs; a second run's refusal names what works. The runs
themselves are tests/e2e/test_acceptance_script.py's; here the command
the script ends with is a stand-in that prints what it was given, in a
copy of the checkout whose setup has nothing to do.'''

import os
import subprocess

import pytest

from helpers import echo_checkout


@pytest.fixture(scope='module')
def checkout(tmp_path_factory):
    '''A copy of the checkout whose ci/setup.sh does nothing and whose
    ``.venv/bin/hpc-acceptance`` prints its arguments, one a line.'''
    return echo_checkout.make(tmp_path_factory.mktemp('acceptance'))


def acceptance(checkout, *args, **env):
    environ = {k: v for k, v in os.environ.items()
               if k not in ('HPC_ACCEPTANCE_SYSTEM', 'HPC_ACCEPTANCE_SITE_DIR',
                            'HPC_ACCEPTANCE_WAIT')}
    environ['HPC_ACCEPTANCE_LOCK_FILE'] = str(checkout / 'run.lock')
    return subprocess.run([str(checkout / 'ci' / 'acceptance.sh'), *args],
                          env={**environ, **env}, text=True,
                          capture_output=True, timeout=120)


def refused(done, message):
    '''``done`` refused before anything ran, with the one line
    ``message``.'''
    assert (done.returncode, done.stderr, done.stdout) == (
        2, message + '\n', '')


def test_the_named_system_is_passed_on(checkout):
    done = acceptance(checkout, '--fleet', '-n', 'StreamCheck',
                      HPC_ACCEPTANCE_SYSTEM='example-cluster')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split('\n') == [
        'run', '--fleet', '-n', 'StreamCheck', '--system', 'example-cluster',
        '']


def test_a_system_given_wins_over_the_variable(checkout):
    done = acceptance(checkout, '--system', 'local:default',
                      HPC_ACCEPTANCE_SYSTEM='example-cluster')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split('\n') == ['run', '--system', 'local:default',
                                       '']


def test_no_system_named_lets_reframe_pick_by_host_name(checkout):
    done = acceptance(checkout, '-n', 'StreamCheck')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split('\n') == ['run', '-n', 'StreamCheck', '']


@pytest.mark.parametrize('args, env, shown', [
    (['--system', 'nowhere'], {}, '--system nowhere'),
    (['--system=nowhere:compute'], {}, '--system nowhere:compute'),
    ([], {'HPC_ACCEPTANCE_SYSTEM': 'nowhere'},
     'HPC_ACCEPTANCE_SYSTEM=nowhere'),
])
def test_an_unknown_system_is_refused_before_anything_runs(checkout, args,
                                                          env, shown):
    refused(acceptance(checkout, *args, **env),
            f'acceptance: {shown} is no system of config/systems/ (known: '
            'example-cluster local). Nothing was run.')


@pytest.mark.parametrize('name, quoted', [
    ('n1\nscontrol update NodeName=n2 State=RESUME',
     "$'n1\\nscontrol update NodeName=n2 State=RESUME'"),
    ('\x1b[2Jall checks PASSED', "$'\\E[2Jall checks PASSED'"),
    ('local local', 'local\\ local'),
])
def test_a_system_that_is_no_name_is_refused_quoted(checkout, name, quoted):
    for args, env, how in (
            (['--system', name], {}, '--system'),
            ([], {'HPC_ACCEPTANCE_SYSTEM': name}, 'HPC_ACCEPTANCE_SYSTEM')):
        refused(acceptance(checkout, *args, **env),
                f'acceptance: {how} {quoted} is no system name (a letter or '
                '_, then letters, digits, _ and -). Nothing was run.')


@pytest.mark.parametrize('layer', [['-C', 'overlay.py'],
                                   ['--config-file=overlay.py']])
def test_a_system_of_a_layered_configuration_is_reframe_s_to_judge(
        checkout, layer):
    # the namespaced test clusters' system lives in a file layered with -C
    done = acceptance(checkout, *layer, '--system', 'slurm-nodes')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split('\n') == ['run', *layer, '--system',
                                       'slurm-nodes', '']


def test_a_site_directory_that_is_none_is_refused(checkout, tmp_path):
    done = acceptance(checkout, HPC_ACCEPTANCE_SITE_DIR=str(tmp_path / 'no'))
    assert done.returncode == 2
    assert 'is no directory' in done.stderr and done.stdout == ''


def test_a_second_run_is_told_what_waits(checkout):
    '''The refusal names the variable that works (there is no --wait).'''
    lock = checkout / 'run.lock'
    lock.unlink(missing_ok=True)    # the earlier tests' runs wrote theirs
    holder = subprocess.Popen(
        ['python3', '-m', 'hpc_acceptance.tools.launch.lock', '--lock-file',
         str(lock), '--', 'sleep', '30'],
        env=dict(os.environ, PYTHONPATH=str(checkout / 'checks')))
    try:
        for _ in range(300):
            if lock.exists() and f'"pid": {holder.pid}' in lock.read_text():
                break
            subprocess.run(['sleep', '0.1'])
        done = acceptance(checkout)
    finally:
        holder.terminate()
        holder.wait()

    assert done.returncode == 4
    assert 'run again with HPC_ACCEPTANCE_WAIT=1' in done.stderr
    assert '--wait' not in done.stderr


def test_each_nights_log_is_kept(checkout):
    '''A cron line's ``--log var/nightly.log``: the night before's log is
    renamed with its time, not overwritten by the next night's.'''
    log = checkout / 'var' / 'logs' / 'nightly.log'
    nights = []
    for night in range(2):
        done = subprocess.run(
            [str(checkout / 'ci' / 'nightly.sh'), '--log', str(log)],
            env={**os.environ, 'HPC_ACCEPTANCE_SYSTEM': 'example-cluster',
                 'HPC_ACCEPTANCE_SITE_DIR': '',
                 'HPC_ACCEPTANCE_NIGHT_AS_ROOT': '1',
                 'HPC_ACCEPTANCE_LOCK_FILE': str(checkout / 'night.lock')},
            text=True, capture_output=True, timeout=120)
        assert done.returncode == 0, log.read_text()
        nights.append(log.read_text())
        os.utime(log, (0, 0))    # the first night, at the epoch

    assert sorted(p.name for p in log.parent.iterdir()) == [
        'nightly-19700101T000000Z.log', 'nightly.log']
    assert (log.parent / 'nightly-19700101T000000Z.log').read_text() == \
        nights[0]
    assert '--system\nexample-cluster' in nights[1]
