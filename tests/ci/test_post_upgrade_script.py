'''ci/post-upgrade.sh before ReFrame: the system named, not guessed (as
ci/nightly.sh), and its own options handed to ``hpc-acceptance
post-upgrade``, not to reframe. The runs themselves are
tests/e2e/test_post_upgrade.py's; here the command the script ends with
is a stand-in that prints what it was given, in a copy of the checkout
whose setup has nothing to do.'''

import os
import subprocess

import pytest

from helpers import echo_checkout


@pytest.fixture(scope='module')
def checkout(tmp_path_factory):
    '''A copy of the checkout whose ci/setup.sh does nothing and whose
    ``.venv/bin/hpc-acceptance`` prints its arguments, one a line.'''
    return echo_checkout.make(tmp_path_factory.mktemp('post-upgrade'))


def post_upgrade(checkout, *args, **env):
    environ = {k: v for k, v in os.environ.items()
               if k not in ('HPC_ACCEPTANCE_SYSTEM', 'HPC_ACCEPTANCE_SITE_DIR',
                            'POST_UPGRADE_BASELINE', 'NOISE_FLOORS')}
    environ['HPC_ACCEPTANCE_LOCK_FILE'] = str(checkout / 'run.lock')
    return subprocess.run([str(checkout / 'ci' / 'post-upgrade.sh'), *args],
                          env={**environ, **env}, text=True,
                          capture_output=True, timeout=120)


def test_without_a_named_system_nothing_runs(checkout):
    done = post_upgrade(checkout, '--before', '-n', 'StreamCheck')
    assert done.returncode == 2
    assert done.stderr == (
        'post-upgrade: no system named: give --system NAME (or set '
        'HPC_ACCEPTANCE_SYSTEM) (example-cluster local; reference/README.md, '
        '"Post-upgrade verdict"). Nothing was run.\n')
    assert done.stdout == ''


@pytest.mark.parametrize('args, env, shown', [
    (['--system', 'nowhere'], {}, '--system nowhere'),
    (['--system=nowhere'], {}, '--system nowhere'),
    ([], {'HPC_ACCEPTANCE_SYSTEM': 'nowhere'},
     'HPC_ACCEPTANCE_SYSTEM=nowhere'),
])
def test_an_unknown_system_is_refused_naming_the_known(checkout, args, env,
                                                       shown):
    done = post_upgrade(checkout, '--before', *args, **env)
    assert done.returncode == 2
    assert done.stderr == (f'post-upgrade: {shown} is no system of '
                           f'config/systems/ (known: example-cluster local). '
                           f'Nothing was run.\n')


def test_a_site_directory_that_is_none_is_refused(checkout, tmp_path):
    done = post_upgrade(checkout, '--system', 'local',
                        HPC_ACCEPTANCE_SITE_DIR=str(tmp_path / 'nowhere'))
    assert done.returncode == 2
    assert f'HPC_ACCEPTANCE_SITE_DIR={tmp_path}/nowhere is no directory' in \
        done.stderr


def test_its_own_options_go_to_post_upgrade_and_the_rest_to_reframe(
        checkout, tmp_path):
    (tmp_path / 'site').mkdir()
    done = post_upgrade(
        checkout, '--min-runs', '2', '--baseline', 'now-7d:now',
        '--floor=Memory=0.4', '--no-confirm', '--max-jobs', '3', '-n',
        'StreamCheck', HPC_ACCEPTANCE_SYSTEM='local',
        HPC_ACCEPTANCE_SITE_DIR=str(tmp_path / 'site'),
        POST_UPGRADE_BASELINE='now-30d:now', NOISE_FLOORS='Memory=0.5')
    assert done.returncode == 0, done.stderr
    # the environment's settings first, so that the options given win
    assert done.stdout.split('\n') == [
        'post-upgrade', '--baseline', 'now-30d:now', '--floor', 'Memory=0.5',
        '--min-runs=2', '--baseline=now-7d:now', '--floor=Memory=0.4',
        '--no-confirm', '--max-jobs=3', '--', '-n', 'StreamCheck',
        '--system', 'local', '']
    assert (f'post-upgrade: site directory {tmp_path}/site; no export.yaml '
            f'there: no figures exported') in done.stderr
