'''Slurm clusters on the test machine, started and torn down by the tests.

Debian's slurm-wlm and munge, started by hand (no systemd here); on a host
with a Slurm of its own (not Debian's package) no cluster starts:

- :func:`one_node`: this machine as one Slurm node;
- :func:`namespaced_nodes`: several nodes on this one machine, each a
  network namespace with its own host name (a UTS namespace), its own
  address on a bridge the test makes, and its own ``slurmd``; ``slurmctld``
  and ``munged`` run on the host side. All share this machine's file
  system, as the nodes of a cluster share theirs, so a stage directory
  made on the host is the job's working directory on every node.

Both write their ``slurm.conf`` from tests/fixtures/data/slurm/
slurm.conf.in and yield the environment (``SLURM_CONF``) that reaches them.
Everything they start is stopped, and every interface and namespace they
make removed, when the caller's ``with`` block ends, failed or not. One
cluster runs on the machine at a time (:mod:`machine_lock`): Slurm's ports
and the bridge are the machine's.
'''

import contextlib
import ipaddress
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from conftest import DATA_DIR
from helpers import machine_lock

DAEMONS = ('munged', 'slurmctld', 'slurmd')

#: Private network of the namespaced nodes: RFC 2544's benchmarking range,
#: routed nowhere. The host side (slurmctld) has the first address.
SUBNET = ipaddress.ip_network('198.18.213.0/24')
BRIDGE = 'rfmacc-br0'
NAMESPACE_PREFIX = 'rfmacc-'


class ClusterUnavailable(Exception):
    '''The cluster cannot be started here; the message says why.'''


def sbin(name):
    return shutil.which(name) or shutil.which(name, path='/usr/sbin')


def site_slurm():
    '''The ``sinfo`` on PATH when it is not Debian's package (a site's own
    Slurm), else ``None``.'''
    sinfo = shutil.which('sinfo')
    if sinfo is None:
        return None

    if shutil.which('dpkg-query') is None:
        return sinfo

    owner = subprocess.run(['dpkg-query', '-S', os.path.realpath(sinfo)],
                           capture_output=True)
    return sinfo if owner.returncode != 0 else None


def check_prerequisites(namespaces=False):
    '''Raise :class:`ClusterUnavailable` naming what is missing.'''
    # Its daemons may be running: a second Slurm would take the same ports
    # and munge socket. ci/test.sh does not install Debian's beside it.
    site = site_slurm()
    if site:
        raise ClusterUnavailable(
            f'this host has its own Slurm ({site}, not Debian\'s slurm-wlm): '
            f'the tests start no second Slurm beside it')

    if os.geteuid() != 0:
        raise ClusterUnavailable('starting the Slurm daemons needs root')

    missing = [d for d in DAEMONS + ('sbatch', 'squeue', 'scontrol')
               if not sbin(d)]
    if missing:
        raise ClusterUnavailable(
            f'Slurm is not installed ({", ".join(missing)} missing): '
            f'ci/test.sh installs slurm-wlm and munge on Debian')

    if namespaces:
        for tool in ('ip', 'nsenter', 'unshare'):
            if not sbin(tool):
                raise ClusterUnavailable(
                    f'{tool} is missing: the namespaced nodes need iproute2 '
                    f'and util-linux')

        probe = subprocess.run([sbin('ip'), 'netns', 'list'],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            raise ClusterUnavailable(
                f'`ip netns` does not work here: {probe.stderr.strip()}')


def _run(*args):
    done = subprocess.run(list(args), capture_output=True, text=True)
    if done.returncode != 0:
        raise ClusterUnavailable(f'{" ".join(args)} failed: '
                                 f'{done.stderr.strip()}')

    return done.stdout


#: Where Debian's munged writes its pid.
MUNGED_PID = '/run/munge/munged.pid'


def _start_munge():
    '''Start munged unless one answers; whether this started it (and so
    stops it, :func:`_stop_munge`: a test run leaves no daemon behind).'''
    if subprocess.run(['munge', '-n'], capture_output=True).returncode == 0:
        return False

    os.makedirs('/run/munge', exist_ok=True)
    shutil.chown('/run/munge', 'munge', 'munge')
    # slurmd and the job steps find the socket only in a 755 folder
    os.chmod('/run/munge', 0o755)
    subprocess.run(['runuser', '-u', 'munge', '--', sbin('munged')],
                   check=True)
    return True


def _stop_munge(started):
    if started:
        _stop(Path(MUNGED_PID))


def _node_hardware():
    '''This machine's CPUs and memory as ``slurmd -C`` describes them,
    without the ``NodeName=``.'''
    line = _run(sbin('slurmd'), '-C').splitlines()[0]
    return line.split(maxsplit=1)[1]


def _write_conf(root, controller, nodes):
    '''slurm.conf of nodes ``{name: NodeName line}``, and every node's own
    spool and temporary folders (slurm.conf.in's ``%n``). Its paths are
    absolute: the daemons change directory.'''
    root = Path(root).resolve()
    (root / 'state').mkdir(exist_ok=True)
    for name in nodes:
        for folder in ('spool', 'tmp'):
            (root / folder / name).mkdir(parents=True, exist_ok=True)

    conf = root / 'slurm.conf'
    conf.write_text((DATA_DIR / 'slurm' / 'slurm.conf.in').read_text()
                    .replace('@ROOT@', str(root))
                    .replace('@CONTROLLER@', controller)
                    .replace('@NODES@', '\n'.join(nodes.values())))
    return conf


def wait_idle(env, count, timeout=60):
    '''Wait until ``count`` nodes are idle.'''
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = subprocess.run(['sinfo', '-h', '-N', '-o', '%N %t'], env=env,
                              capture_output=True, text=True)
        states = [line.split()[1] for line in done.stdout.splitlines()]
        if states.count('idle') == count:
            return

        time.sleep(0.5)

    # started but not working: a failure, not a reason to skip
    raise RuntimeError(f'{count} Slurm nodes did not become idle: '
                       f'{done.stdout} {done.stderr}')


def _stop(pid_file):
    try:
        os.kill(int(pid_file.read_text()), signal.SIGTERM)
    except (FileNotFoundError, ValueError, ProcessLookupError):
        pass


@contextlib.contextmanager
def one_node(root):
    '''This machine as a one-node cluster; yields its environment.'''
    check_prerequisites()
    with machine_lock.held('slurm'):
        yield from _one_node(root)


def _one_node(root):
    host = socket.gethostname()
    conf = _write_conf(root, host,
                       {host: f'NodeName={host} {_node_hardware()}'})
    env = dict(os.environ, SLURM_CONF=str(conf))
    munge = _start_munge()
    try:
        for daemon in ('slurmctld', 'slurmd'):
            subprocess.run([sbin(daemon), '-f', str(conf)], env=env,
                           check=True)

        wait_idle(env, 1)
        yield {'SLURM_CONF': str(conf)}
    finally:
        subprocess.run(['scancel', '--user', 'root'], env=env)
        _stop(root / f'slurmd-{host}.pid')
        _stop(root / 'slurmctld.pid')
        _stop_munge(munge)


def node_names(count):
    return [f'n{i}' for i in range(1, count + 1)]


def node_address(index):
    '''Address of node ``index`` (1-based) on :data:`SUBNET`.'''
    return str(SUBNET.network_address + 10 + index)


def _make_network(names):
    ip = sbin('ip')
    host_address = f'{SUBNET.network_address + 1}/{SUBNET.prefixlen}'
    _run(ip, 'link', 'add', BRIDGE, 'type', 'bridge')
    _run(ip, 'addr', 'add', host_address, 'dev', BRIDGE)
    _run(ip, 'link', 'set', BRIDGE, 'up')
    for index, name in enumerate(names, start=1):
        namespace = NAMESPACE_PREFIX + name
        veth = f'{NAMESPACE_PREFIX}v{index}'
        _run(ip, 'netns', 'add', namespace)
        _run(ip, 'link', 'add', veth, 'type', 'veth', 'peer', 'name',
             'eth0', 'netns', namespace)
        _run(ip, 'link', 'set', veth, 'master', BRIDGE, 'up')
        _run(ip, '-n', namespace, 'addr', 'add',
             f'{node_address(index)}/{SUBNET.prefixlen}', 'dev', 'eth0')
        _run(ip, '-n', namespace, 'link', 'set', 'eth0', 'up')
        _run(ip, '-n', namespace, 'link', 'set', 'lo', 'up')


def _remove_network(names):
    ip = sbin('ip')
    for name in names:
        namespace = NAMESPACE_PREFIX + name
        # job steps left behind would keep the namespace alive
        pids = subprocess.run([ip, 'netns', 'pids', namespace],
                              capture_output=True, text=True).stdout
        for pid in pids.split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)

        subprocess.run([ip, 'netns', 'delete', namespace],
                       capture_output=True)

    subprocess.run([ip, 'link', 'delete', BRIDGE], capture_output=True)


def _start_slurmd(name, conf, env):
    '''slurmd of node ``name`` in its namespace, under its own host name
    (the name Open MPI and the checks report).

    nsenter enters the network namespace alone: ``ip netns exec`` would
    also remount /sys, where slurmd then finds no cgroup file system.
    '''
    subprocess.run(
        [sbin('nsenter'), f'--net=/run/netns/{NAMESPACE_PREFIX}{name}',
         sbin('unshare'), '--uts', '--', 'sh', '-c',
         'hostname "$1" && exec "$2" -N "$1" -f "$3"', 'sh',
         name, sbin('slurmd'), str(conf)],
        env=env, check=True
    )


@contextlib.contextmanager
def namespaced_nodes(root, count):
    '''``count`` nodes ``n1``... in network namespaces; yields the
    environment of the cluster.'''
    check_prerequisites(namespaces=True)
    with machine_lock.held('slurm'):
        yield from _namespaced_nodes(root, count)


def _namespaced_nodes(root, count):
    names = node_names(count)
    # a run killed before its teardown left these behind
    _remove_network(names)
    hardware = _node_hardware()
    host = socket.gethostname()
    controller = f'{host}({SUBNET.network_address + 1})'
    conf = _write_conf(root, controller, {
        name: f'NodeName={name} NodeAddr={node_address(index)} {hardware}'
        for index, name in enumerate(names, start=1)
    })
    env = dict(os.environ, SLURM_CONF=str(conf))
    munge = _start_munge()
    try:
        _make_network(names)
        subprocess.run([sbin('slurmctld'), '-f', str(conf)], env=env,
                       check=True)
        for name in names:
            _start_slurmd(name, conf, env)

        wait_idle(env, count)
        yield {'SLURM_CONF': str(conf)}
    finally:
        subprocess.run(['scancel', '--user', 'root'], env=env)
        for name in names:
            _stop(root / f'slurmd-{name}.pid')

        _stop(root / 'slurmctld.pid')
        time.sleep(1)
        _remove_network(names)
        _stop_munge(munge)
