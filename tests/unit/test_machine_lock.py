'''The machine-wide lock of the cores the tests take
(helpers/machine_lock.py): a quiet test holds them alone, and lets others
beside it only for a step that reads no figure. On a lock folder of the
test's own: the session's tests hold the real one.'''

import fcntl
import threading
import time

import pytest

from helpers import machine_lock


@pytest.fixture
def lock_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(machine_lock, 'LOCK_DIR', str(tmp_path))
    return tmp_path


def could_take(lock_dir, name, mode):
    '''Whether another test could take the lock ``name`` in ``mode``,
    now.'''
    with open(lock_dir / f'hpc-acceptance-tests-{name}.lock', 'a') as other:
        try:
            fcntl.flock(other, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            return False

        return True


def others_may_run(lock_dir):
    '''Whether another test could take the cores beside, now.'''
    return could_take(lock_dir, 'cores', fcntl.LOCK_SH)


def test_alone_keeps_others_out_but_for_a_shared_step(lock_dir):
    with machine_lock.alone() as cores:
        assert not others_may_run(lock_dir)
        with cores.shared():
            assert others_may_run(lock_dir)
        assert not others_may_run(lock_dir)

    assert others_may_run(lock_dir)


def turnstile_taken(lock_dir):
    return not could_take(lock_dir, 'turnstile', fcntl.LOCK_EX)


def test_a_shared_step_ends_while_another_test_waits_to_be_alone(lock_dir):
    # seen in a full run: the quiet test, back from its shared step, waited
    # for the turnstile holding the cores shared, while the other test
    # held the turnstile waiting for the cores, each for ever
    order = []

    def other_quiet_test():
        with machine_lock.alone():
            order.append('other')

    def quiet_test():
        with machine_lock.alone() as cores:
            with cores.shared():
                threading.Thread(target=other_quiet_test, daemon=True).start()
                deadline = time.monotonic() + 10
                while not turnstile_taken(lock_dir):
                    assert time.monotonic() < deadline
                    time.sleep(0.01)
            order.append('alone again')

    test = threading.Thread(target=quiet_test, daemon=True)
    test.start()
    test.join(timeout=10)
    assert not test.is_alive(), f'stuck after {order}'
    assert order == ['other', 'alone again']


def test_tests_beside_others_run_together(lock_dir):
    with machine_lock.beside_others():
        assert others_may_run(lock_dir)
