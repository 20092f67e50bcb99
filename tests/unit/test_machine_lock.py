'''The machine-wide lock of the cores the tests take
(helpers/machine_lock.py): a quiet test holds them alone, and lets others
beside it only for a step that reads no figure. On a lock folder of the
test's own: the session's tests hold the real one.'''

import fcntl

import pytest

from helpers import machine_lock


@pytest.fixture
def lock_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(machine_lock, 'LOCK_DIR', str(tmp_path))
    return tmp_path


def others_may_run(lock_dir):
    '''Whether another test could take the cores beside, now.'''
    with open(lock_dir / 'hpc-acceptance-tests-cores.lock', 'a') as other:
        try:
            fcntl.flock(other, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return False

        return True


def test_alone_keeps_others_out_but_for_a_shared_step(lock_dir):
    with machine_lock.alone() as cores:
        assert not others_may_run(lock_dir)
        with cores.shared():
            assert others_may_run(lock_dir)
        assert not others_may_run(lock_dir)

    assert others_may_run(lock_dir)


def test_tests_beside_others_run_together(lock_dir):
    with machine_lock.beside_others():
        assert others_may_run(lock_dir)
