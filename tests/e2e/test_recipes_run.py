'''Each nightly recipe of ci/ run by the tool that runs it at a site, on a
checkout that never ran (tests/helpers/fresh_checkout.py), against a real
VictoriaMetrics named by the site directory's export.yaml, as the
unprivileged account a site runs the night as (ci/README.md, "The night's
account"), never root:

- the checkout of cron and systemd root's, set up once by an
  administrator as root (ci/setup.sh --night-account: .venv/, var/ the
  account's own, the code checked), outside pytest's folders so that the
  account can read it; the account made for the test
  (tests/helpers/night_account.py);
- cron: Debian's cron daemon runs the cron.d line
  (tests/helpers/cron_daemon.py) as the account;
- systemd: the service as installed checked by ``systemd-analyze verify``
  (tests/ci/test_schedule_recipes.py verifies the units as shipped and
  rates their exposure), and its ExecStart run as systemd runs it, in its
  sandbox (tests/helpers/systemd_unit.py: the account, no capability, no
  new privileges, umask 0027, everything read-only but var/ and the
  account's home), on the same checkout the next "night" (a node has one
  recipe or the other);
- GitLab: gitlab-ci-local (npm, ci/npm/) runs the pipeline with its shell
  executor as the runner's unprivileged user, twice, the runner's clean
  before each run as GitLab's runner does it (``git clean`` with the
  recipe's GIT_CLEAN_FLAGS; gitlab-ci-local runs a shell job in the
  checkout itself and cleans nothing): the first run by hand with
  HPC_ACCEPTANCE_SETUP=install (the setup), the second the schedule's,
  which installs nothing.

Each ends with the summary in its log, the report page written and the
run's figures in the store; the nights of cron and systemd wrote nothing
but var/, and nothing there that others may read. A site sets its system,
site directory and check selection in the recipe's variables; so do these
tests (the system ``local``, one memory check's one-thread variant with
one timed run, no Spack: the setup would otherwise clone and build one),
and the checkout's path and the account's name where the recipe says to
change them. Nothing else of the recipes changes.
'''

import json
import os
import pwd
import re
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

from conftest import PROJECT_DIR
from helpers import (cron_daemon, exported, fresh_checkout, night_account,
                     systemd_unit, victoria_metrics)

RECIPES = PROJECT_DIR / 'ci'
INSTALL_DIR = '/opt/hpc-acceptance'
#: The recipes' account, which a site may name otherwise.
ACCOUNT = 'hpc-acceptance'
#: Root's PATH on Debian (login shells, sudo's secure_path).
ROOT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
#: What a site sets in each recipe, as these runs set it.
SETTINGS = {
    'HPC_ACCEPTANCE_SYSTEM': 'local',
    'ACCEPTANCE_ARGS': '-n MemoryDaxpyCheck.*single -S repeats=1 '
                       '-S span_ms=1',
    'HPC_ACCEPTANCE_SPACK': 'off',
}
#: The verdict of a passing run of the selection on ``local``.
PASSED = 'acceptance passed — not judged against references'
#: The unprivileged user the GitLab runner runs its jobs as.
RUNNER_USER = 'nobody'
GITLAB_CI_LOCAL = RECIPES / 'npm' / 'node_modules' / 'gitlab-ci-local'


@pytest.fixture(scope='module')
def store(tmp_path_factory):
    with victoria_metrics.running(tmp_path_factory.mktemp('store')) as up:
        yield up


def site_dir(path, store):
    '''A site directory whose export.yaml names the store.'''
    path.mkdir(parents=True)
    (path / 'export.yaml').write_text(f'url: {store.url}\ntimeout_s: 5\n')
    return path


def assigned(text, pattern, settings):
    '''``(text, names)``: ``text`` with each assignment ``pattern`` finds
    (groups ``name``, ``value``) of a name in ``settings`` set to its value
    there, and the names it found (the caller adds the others).'''
    found = set()

    def assign(match):
        name = match['name']
        if name not in settings:
            return match[0]
        found.add(name)
        return match[0][:match.start('value') - match.start()] + \
            settings[name] + match[0][match.end('value') - match.start():]

    return re.sub(pattern, assign, text, flags=re.MULTILINE), found


def night(log, checkout):
    '''What a recipe's run left, read from its log at once (a GitLab
    runner's clean removes it before the next night): ``{log, page, report}``
    (the page's path where it was written, the run's JSON report).'''
    text = ' '.join(log.split())
    page = re.search(r'acceptance: report page (\S+)', text)
    output = re.search(r"ReFrame's output goes to (\S+)\.log", text)
    written = page and Path(page[1]).is_file() and \
        Path(page[1]).is_relative_to(checkout)
    return {'log': log, 'page': page[1] if written else None,
            'report': json.loads(Path(f'{output[1]}.json').read_text())
            if output else None}


def assert_a_night(ran, store):
    '''What every recipe's run ends with, in its log: the summary, the
    report page, the verdict; and the run's figures in the store.'''
    log = ran['log']
    text = ' '.join(log.split())
    # the summary: the one memory check passed
    assert '== acceptance summary ==' in text, log[-3000:]
    assert re.search(r'^memory +1 +0 +0$', log, re.MULTILINE), log[-3000:]
    assert ran['page'], log[-3000:]
    assert text.rstrip().endswith(f'{PASSED} (1 pass)'), log[-3000:]
    values = len(exported.expected_samples(ran['report']))
    assert (f"export: this run's {values} value(s): {values} taken by the "
            f'store {store.url}') in text, log[-3000:]
    exported.assert_stored_as_reported(store, ran['report'])
    # the night's last lines, for the record of the run (pytest -rP)
    print('\n'.join(log.rstrip().splitlines()[-8:]))


@pytest.fixture(scope='module')
def node(tmp_path_factory):
    '''A node's checkout that never ran (a clone, root's), and the
    night's account, whose home is the systemd unit's state directory;
    outside pytest's folders, which only root may enter.'''
    base = Path(tempfile.mkdtemp(prefix='hpc-acceptance-node-',
                                 dir='/var/lib'))
    base.chmod(0o755)
    try:
        with night_account.made(base / 'state' / 'hpc-acceptance') as \
                account:
            yield {'checkout': fresh_checkout.clone(base / 'hpc-acceptance'),
                   'account': account, 'state': base / 'state',
                   'base': base}
    finally:
        shutil.rmtree(base)


@pytest.fixture(scope='module')
def set_up(node):
    '''What the administrator does once, as root: ci/setup.sh with var/
    given to the night's account; its output.'''
    checkout = node['checkout']
    assert not (checkout / 'var').exists()
    # root's PATH as Debian gives it (a login shell, sudo), not the
    # tests': a python3 under root's home (pyenv's) is not the account's
    # to run, and the setup would say so; nor the tests' empty Spack
    # directory (conftest.py), root's alone, which the night never sees
    env = {name: value for name, value in os.environ.items()
           if name != 'HPC_ACCEPTANCE_SPACK_DIR'}
    done = subprocess.run(
        ['ci/setup.sh', '--night-account', node['account'].pw_name],
        cwd=checkout, env=dict(env, PATH=ROOT_PATH,
                               HPC_ACCEPTANCE_SPACK='off'),
        text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:]
    return done.stdout


def assert_the_night_kept_to_var(node):
    '''The account wrote nothing in the checkout but var/, and nothing
    there that others may read.'''
    checkout = node['checkout']
    assert night_account.owned_outside(checkout, node['account'],
                                       checkout / 'var') == []
    assert night_account.open_to_others(checkout / 'var') == []


@pytest.fixture(scope='module')
def cron_night(node, set_up, store, tmp_path_factory):
    '''The cron line run by cron, as the night's account, on the checkout
    the administrator set up: ``(its log, the cron.d file as installed)``.'''
    checkout = node['checkout']
    site = site_dir(node['base'] / 'cron-site', store)
    text = (RECIPES / 'cron' / 'hpc-acceptance').read_text()
    text = text.replace(INSTALL_DIR, str(checkout)).replace(
        f' {ACCOUNT} cd ', f' {node["account"].pw_name} cd ')
    settings = dict(SETTINGS, HPC_ACCEPTANCE_SITE_DIR=str(site))
    text, found = assigned(text, r'^(?P<name>\w+)="(?P<value>[^"]*)"$',
                           settings)
    text = '\n'.join(f'{name}="{value}"' for name, value in
                     settings.items() if name not in found) + '\n' + text
    daemon = tmp_path_factory.mktemp('cron-daemon')
    cron_daemon.run(text, daemon)
    log = checkout / 'var' / 'nightly.log'
    assert log.exists(), (daemon / 'cron.log').read_text()
    return log.read_text(), text


def test_the_administrator_sets_the_node_up_once_as_root(node, set_up):
    assert 'setup: creating .venv with the pinned ReFrame' in set_up
    # the account's own check of the code it runs read everything
    assert 'Permission denied' not in set_up, set_up
    account = node['account']
    assert (f"setup: var/ is {account.pw_name}'s (group "
            f"{account.pw_name}, 0750)") in set_up
    var = (node['checkout'] / 'var').stat()
    assert (var.st_uid, var.st_mode & 0o777) == (account.pw_uid, 0o750)
    # the code is root's alone
    assert night_account.owned_outside(node['checkout'], account,
                                       node['checkout'] / 'var') == []


def test_cron_runs_the_nightly_as_the_night_s_account(cron_night, node,
                                                      store):
    log, installed = cron_night
    checkout = node['checkout']
    # what the site would have set, and nothing else changed
    assert 'HPC_ACCEPTANCE_SYSTEM="local"' in installed
    assert (f'30 2 * * * {node["account"].pw_name} cd {checkout} && '
            f'ci/nightly.sh --log var/nightly.log') in installed
    # the night installed nothing
    assert 'setup: creating .venv' not in log
    assert 'nightly: site directory ' in log
    assert_a_night(night(log, checkout), store)
    assert_the_night_kept_to_var(node)


def test_the_systemd_service_runs_the_nightly_as_systemd_runs_it(
        cron_night, node, store, tmp_path):
    if shutil.which('systemd-path') is None:
        pytest.skip('systemd is not installed (ci/setup.sh --test does)')
    checkout = node['checkout']
    site = site_dir(node['base'] / 'systemd-site', store)
    name = node['account'].pw_name
    text = (RECIPES / 'systemd' / 'hpc-acceptance-nightly.service') \
        .read_text().replace(INSTALL_DIR, str(checkout)).replace(
            f'User={ACCOUNT}\n', f'User={name}\n').replace(
            f'Group={ACCOUNT}\n', f'Group={name}\n')
    settings = dict(SETTINGS, HPC_ACCEPTANCE_SITE_DIR=str(site))
    # a value with blanks quoted whole, as systemd wants it
    text, found = assigned(
        text, r'^Environment=(?P<value>(?P<name>\w+)=.*)$',
        {name: f'"{name}={value}"' for name, value in settings.items()})
    text = text.replace('\nExecStart=', ''.join(
        f'\nEnvironment="{name}={value}"'
        for name, value in settings.items() if name not in found) +
        '\nExecStart=')
    unit = tmp_path / 'hpc-acceptance-nightly.service'
    unit.write_text(text)
    verified = subprocess.run(['systemd-analyze', 'verify', str(unit)],
                              capture_output=True, text=True)
    assert verified.returncode == 0 and verified.stderr == '', \
        verified.stderr

    done = systemd_unit.run(text, tmp_path / 'journal',
                            state_root=node['state'])
    journal = (tmp_path / 'journal').read_text()
    assert done.returncode == 0, journal[-3000:]
    assert 'setup: creating .venv' not in journal
    assert_a_night(night(journal, checkout), store)
    assert_the_night_kept_to_var(node)


def _as_runner(command, cwd, home, **kwargs):
    '''``command`` as the runner's user, with the environment of a runner
    service: its home, a plain PATH and nothing of the tests'.'''
    env = {'PATH': '/usr/local/bin:/usr/bin:/bin', 'HOME': str(home),
           'LANG': 'C.UTF-8', 'USER': RUNNER_USER}
    # --preserve-environment: nobody's home in passwd is /nonexistent; a
    # runner's user has one
    return subprocess.run([shutil.which('runuser'), '--preserve-environment',
                           '-u', RUNNER_USER, '--', *command],
                          cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          **kwargs)


@pytest.fixture(scope='module')
def runner(store):
    '''A GitLab runner's world for the unprivileged user: its home, the
    project's checkout (a fresh clone with the project's .gitlab-ci.yml
    including the recipe, as the site's repository holds it) and
    gitlab-ci-local.'''
    if os.geteuid() != 0 or shutil.which('runuser') is None:
        pytest.skip('running as the runner\'s user needs root and runuser')
    if shutil.which('node') is None or not GITLAB_CI_LOCAL.is_dir():
        pytest.skip(f'no gitlab-ci-local in {GITLAB_CI_LOCAL} (ci/setup.sh '
                    f'--test installs it)')
    user = pwd.getpwnam(RUNNER_USER)
    # outside pytest's folders, which only root may enter
    base = Path(tempfile.mkdtemp(prefix='hpc-acceptance-runner-'))
    try:
        checkout = fresh_checkout.clone(base / 'builds' / 'project')
        (checkout / '.gitlab-ci.yml').write_text(yaml.safe_dump(
            {'include': [{'local': 'ci/gitlab/acceptance.gitlab-ci.yml'}]}))
        fresh_checkout.commit(checkout, "the site's pipeline")
        shutil.copytree(GITLAB_CI_LOCAL.parent, base / 'node_modules',
                        symlinks=True)
        site = site_dir(base / 'site', store)
        (base / 'home').mkdir()
        for path in [base, *base.rglob('*')]:
            os.lchown(path, user.pw_uid, user.pw_gid)
        yield {'base': base, 'checkout': checkout, 'home': base / 'home',
               'site': site}
    finally:
        shutil.rmtree(base)


def pipeline(runner, source='schedule', **variables):
    '''One pipeline (scheduled, or ``web``: run by hand, with
    ``variables``): the runner's clean of the build directory
    (GIT_STRATEGY fetch: the same checkout, cleaned with GIT_CLEAN_FLAGS),
    then the job by gitlab-ci-local. The finished process, output merged.'''
    recipe = yaml.safe_load(
        (RECIPES / 'gitlab' / 'acceptance.gitlab-ci.yml').read_text())
    assert recipe['variables']['GIT_STRATEGY'] == 'fetch'
    cleaned = _as_runner(['git', 'clean',
                          *recipe['variables']['GIT_CLEAN_FLAGS'].split()],
                         runner['checkout'], runner['home'])
    assert cleaned.returncode == 0, cleaned.stdout
    settings = dict(SETTINGS, **variables,
                    HPC_ACCEPTANCE_SITE_DIR=str(runner['site']))
    command = ['node', str(runner['base'] / 'node_modules' /
                           'gitlab-ci-local' / 'src' / 'index.js'),
               '--no-color', '--variable', f'CI_PIPELINE_SOURCE={source}',
               '--ignore-predefined-vars', 'CI_PIPELINE_SOURCE',
               *[arg for name, value in settings.items()
                 for arg in ('--variable', f'{name}={value}')]]
    return _as_runner(command, runner['checkout'], runner['home'],
                      timeout=1800)


def job_log(done):
    '''The job's own output in gitlab-ci-local's output.'''
    return '\n'.join(line.split(' > ', 1)[1] for line in
                     done.stdout.splitlines() if ' > ' in line)


def sessions(database):
    with sqlite3.connect(database) as conn:
        return conn.execute('SELECT COUNT(*) FROM sessions').fetchone()[0]


@pytest.fixture(scope='module')
def first_pipeline(runner):
    '''The first pipeline, run by hand with the setup (the administrator's,
    once): the finished process, what it left (:func:`night`) and the
    artifacts it left.'''
    done = pipeline(runner, 'web', HPC_ACCEPTANCE_SETUP='install')
    checkout = runner['checkout']
    return done, night(job_log(done), checkout), {
        name: (checkout / name).is_file()
        for name in ('var/results.db', 'var/reports/junit.xml')}


@pytest.fixture(scope='module')
def second_pipeline(first_pipeline, runner):
    '''The next night, the schedule's, after the runner's clean: the
    finished process, what it left, and the Python environment's stamp
    before it.'''
    checkout = runner['checkout']
    stamps = sorted(path.name for path in (checkout / '.venv').glob(
        '.installed-*'))
    done = pipeline(runner)
    return done, night(job_log(done), checkout), stamps


def test_gitlab_runs_the_job_as_an_unprivileged_user(first_pipeline, runner,
                                                     store):
    done, ran, artifacts = first_pipeline
    assert done.returncode == 0, done.stdout[-3000:]
    assert 'PASS  acceptance' in done.stdout, done.stdout[-3000:]
    assert 'setup: creating .venv with the pinned ReFrame' in ran['log']
    assert_a_night(ran, store)
    # the database outside the build directory, in the user's home; its
    # copy and the JUnit report among the artifacts
    assert sessions(runner['home'] / 'hpc-acceptance' / 'results.db') >= 1
    assert artifacts == {'var/results.db': True,
                         'var/reports/junit.xml': True}


def test_the_next_gitlab_night_keeps_the_setup_and_the_database(
        second_pipeline, runner, store):
    done, ran, stamps = second_pipeline
    assert done.returncode == 0, done.stdout[-3000:]
    # the clean kept the Python environment and the Spack directory ...
    assert stamps and 'setup: creating .venv' not in ran['log']
    assert (runner['checkout'] / '.spack').is_dir()
    # ... and removed the rest: the first night's report is gone
    assert len(list((runner['checkout'] / 'var' / 'reports').glob(
        'acceptance-*.json'))) == 1
    assert_a_night(ran, store)
    # both nights are in the database, the trends' source
    assert sessions(runner['home'] / 'hpc-acceptance' / 'results.db') == 2
    # with its backups and the spool, the runner's user's alone
    assert night_account.open_to_others(runner['home'] /
                                        'hpc-acceptance') == []
