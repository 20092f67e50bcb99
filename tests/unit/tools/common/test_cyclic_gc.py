'''The cyclic garbage collector paused for a block
(hpc_acceptance.tools.common.cyclic_gc), and as it was after it.'''

import gc

import pytest

from hpc_acceptance.tools.common import cyclic_gc


@pytest.fixture(autouse=True)
def restored():
    was_on = gc.isenabled()
    yield
    (gc.enable if was_on else gc.disable)()


def test_paused_in_the_block_on_after_it_even_when_it_raises():
    gc.enable()
    with cyclic_gc.paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), cyclic_gc.paused():
        raise KeyError('x')
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    with cyclic_gc.paused():
        pass
    assert not gc.isenabled()



def test_what_the_block_made_and_kept_is_old_to_the_collector():
    '''Not walked again by the collector's next young collection: a
    night's records were a tenth of collecting it, walked once more.'''
    gc.enable()
    with cyclic_gc.paused():
        made = [[] for _ in range(1000)]
    young = {id(o) for o in gc.get_objects(generation=0)}
    assert not any(id(o) in young for o in made)
    assert any(o is made[0] for o in gc.get_objects(generation=2))
