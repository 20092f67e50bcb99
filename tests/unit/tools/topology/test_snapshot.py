'''A node's snapshot (hpc_acceptance.tools.topology.snapshot): opening one,
what is refused and why, and ReFrame's detection on it in a mount namespace, as
root and as a user would run it.'''

import io
import sys
import tarfile

import pytest

from helpers import sysfs_tree
from helpers.replay import namespace_refused
from hpc_acceptance.tools.topology import snapshot

XEON = sysfs_tree.SYSFS_DIR / '8em64t-2s2ca2c.tar.bz2'


def test_the_architecture_and_model_come_from_cpuinfo():
    x86 = 'processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Xeon\n'
    arm = 'processor\t: 0\nCPU implementer\t: 0x48\nCPU part\t: 0xd01\n'
    power = 'processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n'
    assert (snapshot.machine(x86), snapshot.model(x86)) == ('x86_64', 'Xeon')
    assert (snapshot.machine(arm), snapshot.model(arm)) == (
        'aarch64', 'CPU implementer 0x48 part 0xd01')
    assert snapshot.machine(power) == 'ppc64le'
    with pytest.raises(snapshot.SnapshotError, match='no vendor_id'):
        snapshot.machine('processor\t: 0\n')


def test_a_tarball_opens_into_a_directory_removed_afterwards():
    with snapshot.opened(XEON) as snap:
        assert (snap.root / 'sys/devices/system/cpu/cpu7').is_dir()
        assert 'MemTotal:       16468292 kB' in (
            snap.root / 'proc/meminfo').read_text()
        root = snap.root
    assert not root.exists()


def tarball(path, files):
    with tarfile.open(path, 'w:gz') as tar:
        for name, data in files.items():
            member = tarfile.TarInfo(name)
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    return path


def test_what_tar_makes_of_proc_and_sys_is_refused_or_undone(tmp_path):
    mask = 'sys/devices/system/cpu/cpu0/topology/core_cpus'
    padded = b'1\n'.ljust(4096, b'\0')
    # tar reads /proc files as empty
    empty = tarball(tmp_path / 'empty.tgz',
                    {mask: padded, 'proc/cpuinfo': b''})
    with pytest.raises(snapshot.SnapshotError,
                       match='proc/cpuinfo is empty.*copy /proc/cpuinfo'):
        with snapshot.opened(empty):
            pass
    # and pads sysfs files to the 4096 bytes sysfs states
    made = tarball(tmp_path / 'made.tgz', {
        mask: padded, 'proc/cpuinfo': b'vendor_id\t: GenuineIntel\n'})
    with snapshot.opened(made) as snap:
        assert (snap.root / mask).read_bytes() == b'1\n'


def test_a_directory_without_a_snapshot_says_how_to_make_one(tmp_path):
    with pytest.raises(snapshot.SnapshotError,
                       match='holds no sys/devices/system/cpu and no '
                             'proc/cpuinfo.*hwloc-gather-topology'):
        with snapshot.opened(tmp_path):
            pass


def test_a_snapshot_without_cpuinfo_is_said_to_lack_only_that(tmp_path):
    mask = 'node1/sys/devices/system/cpu/cpu0/topology/core_cpus'
    lacking = tarball(tmp_path / 'lacking.tgz', {mask: b'1\n'})
    with pytest.raises(snapshot.SnapshotError,
                       match=r'lacking.tgz: not a snapshot: it holds no '
                             r'proc/cpuinfo \(directly'):
        with snapshot.opened(lacking):
            pass


def test_only_what_the_replay_reads_is_copied(tmp_path):
    cpu = 'sys/devices/system/cpu/cpu0'
    made = tarball(tmp_path / 'made.tgz', {
        f'{cpu}/topology/core_cpus': b'1\n',
        f'{cpu}/topology/core_cpus_list': b'0\n',
        f'{cpu}/cache/index0/size': b'32K\n',
        f'{cpu}/cache/index0/shared_cpu_map': b'1\n',
        f'{cpu}/cpuidle/state0/name': b'POLL\n',
        'sys/devices/system/node/node0/cpulist': b'0\n',
        'sys/bus/pci/devices/x': b'',
        'proc/cpuinfo': b'vendor_id\t: GenuineIntel\n'})
    with snapshot.opened(made) as snap:
        kept = sorted(str(p.relative_to(snap.root))
                      for p in snap.root.rglob('*') if p.is_file())
    assert kept == ['proc/cpuinfo', 'sys/devices/system/cpu/cpu0/cache/'
                    'index0/shared_cpu_map', 'sys/devices/system/cpu/cpu0/'
                    'cache/index0/size', 'sys/devices/system/cpu/cpu0/topology/'
                    'core_cpus', 'sys/devices/system/node/node0/cpulist']


@pytest.mark.skipif(namespace_refused() is not None,
                    reason=namespace_refused() or '')
def test_a_user_detects_in_a_user_namespace_what_root_detects(
        monkeypatch):
    with snapshot.opened(XEON) as snap:
        as_root = snapshot.detect(snap)
        monkeypatch.setattr(snapshot.os, 'geteuid', lambda: 1000)
        assert '--map-root-user' in snapshot.namespace_command(snap)
        as_user = snapshot.detect(snap)
    assert as_user == as_root
    assert (as_root['num_cpus'], as_root['num_sockets']) == (8, 2)
    assert as_root['model'].startswith('Intel(R) Xeon(R) CPU')


def test_a_crash_of_reframe_s_detection_is_said_as_such(monkeypatch):
    # before: "could not run in a private mount namespace"
    failing = [sys.executable, '-c',
               'import sys; print("Traceback ...", file=sys.stderr); '
               'print("ValueError: invalid literal for int()", '
               'file=sys.stderr); sys.exit(3)']
    monkeypatch.setattr(snapshot, 'namespace_command', lambda snap: failing)
    with snapshot.opened(XEON) as snap:
        with pytest.raises(snapshot.SnapshotError,
                           match=r"ReFrame's detection failed on .*: "
                                 r"ValueError: invalid literal for int\(\): "
                                 r"a file it reads holds"):
            snapshot.detect(snap)
