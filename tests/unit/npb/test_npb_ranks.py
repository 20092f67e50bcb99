'''Where an NPB run's ranks go (hpc_acceptance.npb.ranks).'''

import pytest

from hpc_acceptance.core.node_shape import Inapplicable
from hpc_acceptance.npb.ranks import rank_layout


def test_ranks_fill_a_node_before_the_next():
    ranks = rank_layout(64, 24, every_thread=False, one_node=False,
                        oversubscribe=False)
    assert (ranks.num_tasks, ranks.num_tasks_per_node,
            ranks.distribution) == (64, 24, 'block')


def test_smt_on_places_a_rank_per_hardware_thread():
    ranks = rank_layout(16, 16, every_thread=True, one_node=True,
                        oversubscribe=False)
    assert ranks.distribution == 'block_threads'


def test_more_ranks_than_a_local_node_has_cores_skip_unless_asked():
    with pytest.raises(Inapplicable, match='9 ranks exceed the 8 cores of '
                                           'the node'):
        rank_layout(9, 8, every_thread=False, one_node=True,
                    oversubscribe=False)
    ranks = rank_layout(9, 8, every_thread=False, one_node=True,
                        oversubscribe=True)
    assert (ranks.num_tasks_per_node, ranks.distribution) == (
        9, 'oversubscribed')
