'''What the setup installs: the acceptance run only what its checks run
with, the tests their tools too, and never a service started or enabled.'''

import os
import re
import shutil
import subprocess

from conftest import PROJECT_DIR
from helpers import slurm_cluster
import pytest

CI = PROJECT_DIR / 'ci'
SETUP = CI / 'setup.sh'
INSTALL = CI / 'install-packages.sh'
#: What only the tests use (ci/setup.sh --test): a debugger, a Slurm
#: cluster, network namespaces, a browser, a time-series store, the nightly
#: recipes' tools (cron, systemd's systemd-analyze, rsync for
#: gitlab-ci-local), and npm where no Node.js brings it.
TEST_ONLY = {'gdb', 'slurm-wlm', 'munge', 'iproute2', 'chromium',
             'victoria-metrics', 'cron', 'systemd', 'rsync'} | (
    set() if shutil.which('npm') else {'npm'})
#: What the checks run with.
RUNTIME = {'gcc', 'g++', 'gfortran', 'make', 'libopenmpi-dev',
           'openmpi-bin', 'hpcc', 'libopenblas-dev', 'python3',
           'python3-venv'}
#: Files by which a package brings a system service.
SERVICE_FILE = re.compile(r'^(/usr)?/lib/systemd/system/[^/]+\.'
                          r'(service|socket|timer|path)$|^/etc/init\.d/')


def listed(*options, env=None):
    done = subprocess.run([str(SETUP), *options, '--list-packages'],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split()), done.stderr


def test_acceptance_installs_only_what_the_checks_run_with():
    packages, _ = listed()
    assert packages == RUNTIME


def test_the_tests_add_their_tools_and_slurm_unless_the_host_has_its_own():
    packages, _ = listed('--test')
    expected = RUNTIME | TEST_ONLY
    if slurm_cluster.site_slurm():
        expected -= {'slurm-wlm', 'munge'}

    assert packages == expected


def test_a_site_slurm_is_kept_and_debians_not_installed(tmp_path):
    sinfo = tmp_path / 'sinfo'
    sinfo.write_text('#!/bin/sh\n')
    sinfo.chmod(0o755)
    env = dict(os.environ, PATH=f'{tmp_path}:{os.environ["PATH"]}')
    packages, messages = listed('--test', env=env)
    assert packages == RUNTIME | TEST_ONLY - {'slurm-wlm', 'munge'}
    assert f"has a Slurm that is not Debian's ({sinfo})" in messages


def test_the_slurm_tests_start_no_cluster_beside_a_site_slurm(
        tmp_path, monkeypatch):
    sinfo = tmp_path / 'sinfo'
    sinfo.write_text('#!/bin/sh\n')
    sinfo.chmod(0o755)
    monkeypatch.setenv('PATH', f'{tmp_path}:{os.environ["PATH"]}')
    with pytest.raises(slurm_cluster.ClusterUnavailable,
                       match=f'its own Slurm \\({sinfo}'):
        slurm_cluster.check_prerequisites()


@pytest.mark.parametrize('script, options', [
    # the run's own: --verify for the night (HPC_ACCEPTANCE_SETUP=verify)
    ('acceptance.sh', ' "${setup_options[@]}"'), ('post-upgrade.sh', ''),
    ('test.sh', ' --test'),
])
def test_only_the_tests_set_up_the_test_tools(script, options):
    calls = re.findall(r'^\s*ci/setup\.sh(.*)$',
                       (CI / script).read_text(), re.MULTILINE)
    assert calls == [options]


def _apt_closure(packages):
    '''``packages`` and every package they depend on, recursively.'''
    done = subprocess.run(
        ['apt-cache', 'depends', '--recurse', '--no-recommends',
         '--no-suggests', '--no-conflicts', '--no-breaks', '--no-replaces',
         '--no-enhances', *packages],
        capture_output=True, text=True, check=True)
    return {line for line in done.stdout.splitlines()
            if line and not line.startswith((' ', '<'))}


def test_no_runtime_package_brings_a_service():
    if shutil.which('apt-cache') is None:
        pytest.skip('not a Debian system: no apt-cache')

    shown = subprocess.run(
        ['dpkg-query', '-W', '-f',
         '${Package} ${Essential} ${Priority} ${Status}\n',
         *_apt_closure(sorted(RUNTIME))],
        capture_output=True, text=True)
    # Essential and required packages are on every Debian system (dpkg has
    # a timer, libpam-modules a unit): the setup installs none of them.
    # Files are known of installed packages only.
    installed = [name for name, essential, priority, *status in
                 (line.split() for line in shown.stdout.splitlines())
                 if essential != 'yes' and priority != 'required' and
                 status[-1] == 'installed']
    if not RUNTIME <= set(installed):
        pytest.skip(f'not all installed (ci/setup.sh): '
                    f'{sorted(RUNTIME - set(installed))}')

    files = subprocess.run(['dpkg-query', '-L', *installed],
                           capture_output=True, text=True, check=True)
    services = [path for path in files.stdout.splitlines()
                if SERVICE_FILE.match(path)]
    assert services == []


INIT_SCRIPT = '''#!/bin/sh
### BEGIN INIT INFO
# Provides:          exampled
# Required-Start:    $remote_fs
# Required-Stop:     $remote_fs
# Default-Start:     2 3 4 5
# Default-Stop:      0 1 6
# Short-Description: a daemon of a package being installed
### END INIT INFO
exit 0
'''
UNIT = '''[Unit]
Description=a daemon of a package being installed
[Service]
ExecStart=/bin/true
[Install]
WantedBy=multi-user.target
'''


@pytest.fixture
def system(tmp_path):
    '''A scratch root with one unit and one init script enabled before, and
    a stand-in apt-get whose "install" of ``exampled`` does what a daemon
    package's maintainer scripts do (dh_installinit, dh_installsystemd):
    Debian's own update-rc.d and deb-systemd-helper enable it, and it would
    start it if policy-rc.d let it (the answer is kept in ``policy-answer``).
    A real install cannot be made here without changing this machine.'''
    for tool in ('update-rc.d', 'deb-systemd-helper'):
        if shutil.which(tool) is None:
            pytest.skip(f'{tool} is missing (Debian: init-system-helpers)')

    root = tmp_path / 'root'
    for folder in ('etc/init.d', 'lib/systemd/system', 'usr/sbin',
                   'etc/systemd/system/multi-user.target.wants', 'etc/rc2.d'):
        (root / folder).mkdir(parents=True)

    script = root / 'etc/init.d/exampled'
    script.write_text(INIT_SCRIPT)
    script.chmod(0o755)
    (root / 'lib/systemd/system/exampled.service').write_text(UNIT)
    (root / 'etc/systemd/system/multi-user.target.wants/earlier.service'
     ).symlink_to('/lib/systemd/system/earlier.service')
    (root / 'etc/rc2.d/S01earlier').symlink_to('../init.d/earlier')

    bindir = tmp_path / 'bin'
    bindir.mkdir()
    apt_get = bindir / 'apt-get'
    apt_get.write_text(
        '#!/bin/sh\n'
        '[ "$1" = install ] || exit 0\n'
        f'export DPKG_ROOT={root} DPKG_MAINTSCRIPT_PACKAGE=exampled\n'
        f'"$DPKG_ROOT/usr/sbin/policy-rc.d" exampled start\n'
        f'echo $? > {tmp_path}/policy-answer\n'
        'update-rc.d exampled defaults\n'
        'deb-systemd-helper enable exampled.service\n'
        'exit ${APT_STATUS:-0}\n'
    )
    apt_get.chmod(0o755)
    return root, bindir


def install(system, status=0):
    root, bindir = system
    return subprocess.run(
        [str(INSTALL), '--root', str(root), 'exampled'],
        env=dict(os.environ, PATH=f'{bindir}:{os.environ["PATH"]}',
                 APT_STATUS=str(status)),
        capture_output=True, text=True)


def boot_links(root):
    '''``{link: target}`` of every boot-time link under ``root``.'''
    links = list((root / 'etc/systemd/system').glob('*.wants/*'))
    links += root.glob('etc/rc?.d/*')
    return {str(link.relative_to(root)): os.readlink(link) for link in links}


def assert_left_disabled(root):
    links = boot_links(root)
    assert 'etc/systemd/system/multi-user.target.wants/earlier.service' \
        in links
    assert 'etc/rc2.d/S01earlier' in links
    assert not [link for link in links if 'exampled' in link and
                ('.wants/' in link or re.search(r'/S\d\d', link))]
    # the script stays known to init, stopped in the runlevels it would
    # have started in
    assert {f'etc/rc{level}.d/K01exampled' for level in '2345'} <= set(links)
    # and an upgrade re-enables neither (what the maintainer scripts run)
    env = dict(os.environ, DPKG_ROOT=str(root),
               DPKG_MAINTSCRIPT_PACKAGE='exampled')
    was = subprocess.run(['deb-systemd-helper', 'was-enabled',
                          'exampled.service'], env=env)
    assert was.returncode != 0
    subprocess.run(['update-rc.d', 'exampled', 'defaults'], env=env,
                   check=True)
    assert boot_links(root) == links


def test_an_install_starts_and_enables_nothing(system, tmp_path):
    root, _ = system
    done = install(system)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / 'policy-answer').read_text() == '101\n'
    assert not (root / 'usr/sbin/policy-rc.d').exists()
    assert_left_disabled(root)
    assert ('left disabled at boot: exampled (init script) '
            'exampled.service') in done.stderr


def test_a_hosts_own_policy_rc_d_is_kept(system):
    root, _ = system
    policy = root / 'usr/sbin/policy-rc.d'
    policy.write_text('#!/bin/sh\n# the site\'s own\nexit 101\n')
    policy.chmod(0o755)
    done = install(system)
    assert done.returncode == 0, done.stderr
    assert policy.read_text() == '#!/bin/sh\n# the site\'s own\nexit 101\n'
    assert f"keeping this host's {policy}" in done.stderr
    assert_left_disabled(root)


def test_a_failed_install_still_undoes_what_it_enabled(system):
    root, _ = system
    done = install(system, status=100)
    assert done.returncode == 100
    assert not (root / 'usr/sbin/policy-rc.d').exists()
    assert_left_disabled(root)


def test_only_the_guarded_install_calls_apt_get():
    callers = [path.name for path in CI.rglob('*.sh')
               if re.search(r'^[^#]*\bapt-get (install|upgrade)\b',
                            path.read_text(), re.MULTILINE)]
    assert callers == [INSTALL.name]
