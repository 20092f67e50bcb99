'''A snapshot of this host, taken as checks/README.md tells a site to take
one (``tar`` of /sys/devices/system/cpu and node, /proc/cpuinfo copied
first), replays as the host itself does: the same node, the same test
cases, the same decisions. The snapshot's path goes through ReFrame's
detection in a mount namespace and the host's through the embedded
default's own detection; what they decide comes from the same hooks.

The two replays run side by side: 7 s on the busy 2-core CI machine.
'''

import socket
import subprocess

import pytest

from helpers.replay import SNAPSHOT_RECIPE, namespace_refused, replay_all

REFUSED = namespace_refused()
pytestmark = pytest.mark.skipif(REFUSED is not None, reason=REFUSED or '')


def test_a_snapshot_of_this_host_decides_as_this_host(tmp_path):
    done = subprocess.run(['sh', '-c', SNAPSHOT_RECIPE], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    host_name = socket.gethostname().split('.')[0]
    tarball = tmp_path / f'{host_name}-topology.tar.gz'
    reports = replay_all({'host': None, 'snapshot': tarball})
    host, snapshot = reports['host'], reports['snapshot']
    for node in (host['node'], snapshot['node']):
        node.pop('source')
        for state in ('turbo', 'smt'):
            # where the probe read /sys: the host's or the snapshot's
            node[state]['detail'] = node[state]['detail'].split(' (')[0]
    assert snapshot['node'] == host['node']
    assert snapshot['partition'] == host['partition']
    for mode in ('nightly', 'post-upgrade'):
        assert [(d['name'], d['decided']) for d in snapshot['modes'][mode]] \
            == [(d['name'], d['decided']) for d in host['modes'][mode]]
        assert [d['skip'] is None for d in snapshot['modes'][mode]] == \
            [d['skip'] is None for d in host['modes'][mode]]
