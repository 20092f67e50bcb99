'''A snapshot is input from elsewhere (hpc_acceptance.tools.topology.
snapshot_files): links are not followed out of it, link members of a
tarball neither write outside it nor stop the replay with a traceback,
nothing is written with its members' owners or modes, a decompression bomb
is refused before it fills the disk; the layouts the docs promise (members
under ``./``, one top folder) are read.'''

import bz2
import io
import os
import stat
import tarfile

import pytest

from helpers import sysfs_tree
from hpc_acceptance.tools.topology import snapshot, snapshot_files

CPUINFO = b'processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Xeon\n'
MASK = 'sys/devices/system/cpu/cpu0/topology/core_cpus'


@pytest.fixture
def secret(tmp_path):
    '''A root-only file outside any snapshot.'''
    path = tmp_path / 'secret'
    path.write_text('model name\t: SECRET-CONTENT\n')
    path.chmod(0o600)
    return path


def links_leaving(root):
    '''The links under ``root`` whose target is outside it.'''
    real = os.path.realpath(root)
    found = []
    for top, folders, files in os.walk(root):
        for name in folders + files:
            path = os.path.join(top, name)
            if os.path.islink(path) and not os.path.realpath(
                    path).startswith(real + os.sep):
                found.append(path)
    return found


def test_a_directory_s_links_out_are_not_followed(tmp_path, secret):
    made = tmp_path / 'snap'
    (made / 'proc').mkdir(parents=True)
    (made / 'proc' / 'cpuinfo').symlink_to(secret)
    cpu = made / MASK
    cpu.parent.mkdir(parents=True)
    cpu.symlink_to(secret)
    (made / 'sys/devices/system/node').mkdir(parents=True)
    (made / 'sys/devices/system/node/node0').symlink_to('/etc')
    # before: the copy kept the links and read the secret through them
    with pytest.raises(snapshot.SnapshotError,
                       match='proc/cpuinfo is empty'):
        with snapshot.opened(made):
            pass

    # the mask read through its link is refused, naming it
    (made / 'proc' / 'cpuinfo').unlink()
    (made / 'proc' / 'cpuinfo').write_bytes(CPUINFO)
    with pytest.raises(snapshot.SnapshotError,
                       match=f'snap:{MASK}: is empty .* a link that led out'):
        with snapshot.opened(made):
            pass

    copied = tmp_path / 'copied'
    copied.mkdir()
    snapshot_files.copy(made, copied)
    assert (copied / MASK).read_bytes() == b''
    assert not links_leaving(copied)
    assert not (copied / 'sys/devices/system/node/node0/passwd').exists()


def test_a_link_climbing_out_of_sys_through_another_link_is_cut(tmp_path):
    # each link alone stays in the snapshot; once sys/ is bound over
    # /sys, the second leads to the host's /
    made = tmp_path / 'snap'
    (made / 'proc').mkdir(parents=True)
    (made / 'proc' / 'cpuinfo').write_bytes(CPUINFO)
    (made / 'sys/devices/system/cpu').mkdir(parents=True)
    deep = made / 'sys/devices/system/node/node0'
    deep.mkdir(parents=True)
    (deep / 'w').symlink_to('../../../../x')   # sys/x
    (deep / 'up').symlink_to('w/../..')        # sys/x/../.. = the root
    copied = tmp_path / 'copied'
    copied.mkdir()
    snapshot_files.copy(made, copied)
    kept = copied / 'sys/devices/system/node/node0'
    assert (kept / 'w').is_symlink()
    assert not (kept / 'up').is_symlink()
    assert not links_leaving(copied / 'sys')


def tarball(path, members, compress='gz'):
    '''A tarball of ``members``: ``(TarInfo, bytes or None)`` each.'''
    with tarfile.open(path, f'w:{compress}') as tar:
        for member, data in members:
            if data is not None:
                member.size = len(data)
            tar.addfile(member, io.BytesIO(data) if data is not None
                        else None)
    return path


def member(name, kind=tarfile.REGTYPE, linkname='', mode=0o644, uid=0):
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode, info.uid = kind, linkname, mode, uid
    return info


def test_link_members_neither_write_outside_nor_stop_the_replay(
        tmp_path, secret):
    outside = tmp_path / 'outside'
    outside.mkdir()
    victim = outside / 'victim'
    victim.write_text('untouched')
    made = tarball(tmp_path / 'links.tgz', [
        (member('proc/cpuinfo'), CPUINFO),
        # a link out, then a file written through it
        (member('sys/devices/system/cpu/cpu0/topology', tarfile.SYMTYPE,
                str(outside)), None),
        (member('sys/devices/system/cpu/cpu0/topology/victim'), b'x'),
        # a hard link to a file outside (before: a KeyError traceback)
        (member(MASK, tarfile.LNKTYPE, str(secret)), None),
        (member('sys/devices/system/cpu/cpu1/topology/core_cpus',
                tarfile.LNKTYPE, 'etc/shadow'), None),
        # a relative link climbing out
        (member('sys/devices/system/node/node0', tarfile.SYMTYPE,
                '../../../../../../..'), None),
        # set-user-ID and another owner's file, a device
        (member('proc/meminfo', mode=0o4755, uid=1234),
         b'MemTotal:       1024 kB\n'),
        (member('sys/devices/system/cpu/cpu0/online', tarfile.CHRTYPE),
         None),
    ])
    unpacked = tmp_path / 'unpacked'
    unpacked.mkdir()
    snapshot_files.unpack(made, unpacked)
    assert not links_leaving(unpacked)
    meminfo = (unpacked / 'proc/meminfo').stat()
    assert stat.S_IMODE(meminfo.st_mode) == 0o644
    assert meminfo.st_uid == os.geteuid()
    assert not (unpacked / 'sys/devices/system/cpu/cpu0/online').exists()
    assert victim.read_text() == 'untouched'
    assert sorted(os.listdir(outside)) == ['victim']
    # cpu0/topology is an empty file, its members dropped; the hard
    # links are empty files: the replay names the first
    with pytest.raises(snapshot.SnapshotError,
                       match='links.tgz:sys/devices/system/cpu/cpu1/'
                             'topology/core_cpus: is empty'):
        with snapshot.opened(made):
            pass


def bomb(path, mib):
    '''A bzip2 tarball of a few KB holding one member of ``mib`` MiB of
    zeros (bzip2 streams concatenated: 64 MiB of zeros is 45 bytes).'''
    header = member('sys/devices/system/cpu/cpu0/cache/index0/size')
    header.size = mib << 20
    chunk = bz2.compress(bytes(64 << 20))
    with open(path, 'wb') as fp:
        fp.write(bz2.compress(header.tobuf(format=tarfile.GNU_FORMAT)))
        for _ in range(mib // 64):
            fp.write(chunk)
    return path


@pytest.mark.parametrize('mib, refusal', [
    (8 << 10, 'unpacks to more than 1 GiB'),
    (64, 'sys/devices/system/cpu/cpu0/cache/index0/size is more than '
         '16 MiB')])
def test_a_bz2_bomb_is_refused_before_it_is_unpacked(tmp_path, mib,
                                                     refusal):
    # before: 8 GiB written to the temporary directory
    made = bomb(tmp_path / 'bomb.tar.bz2', mib)
    assert made.stat().st_size < 16_000
    with pytest.raises(snapshot.SnapshotError,
                       match=f'bomb.tar.bz2: {refusal}'):
        with snapshot.opened(made):
            pass


def test_a_stream_longer_than_any_snapshot_is_refused(tmp_path,
                                                      monkeypatch):
    # members the replay does not read: the stream is bounded all the same
    monkeypatch.setattr(snapshot_files, 'MAX_SCANNED_BYTES', 1 << 20)
    made = tarball(tmp_path / 'long.tgz', [
        (member(f'sys/bus/x{n}'), bytes(64 << 10)) for n in range(32)])
    with pytest.raises(snapshot.SnapshotError,
                       match=r'long.tgz: unpacks to more than'):
        with snapshot.opened(made):
            pass


def test_too_many_files_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot_files, 'MAX_FILES', 3)
    made = tarball(tmp_path / 'many.tgz', [
        (member(f'proc/f{n}'), b'x') for n in range(5)])
    with pytest.raises(snapshot.SnapshotError, match='more than 3 files'):
        with snapshot.opened(made):
            pass


@pytest.mark.parametrize('prefix', ['./', './node42/', 'node42/'])
def test_the_documented_layouts_are_read(tmp_path, prefix):
    # tar -C dir . writes ./sys/...; hwloc-gather-topology a top folder
    made = tmp_path / 'made.tar.gz'
    root = sysfs_tree.extract('8em64t-2s2ca2c', tmp_path / 'x')
    with tarfile.open(made, 'w:gz') as tar:
        tar.add(root, arcname=prefix.rstrip('/') or '.')
    with snapshot.opened(made) as snap:
        assert (snap.root / 'sys/devices/system/cpu/cpu7/topology' /
                'core_siblings').is_file()
        assert snap.cpuinfo_text().startswith('processor')
