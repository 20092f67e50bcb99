'''The node x figure heat map (hpc_acceptance.tools.page.heat_map).'''

import math

import matplotlib.image

from helpers import fleet_cases
from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.page import heat_map


def _partition(nodes, **kwargs):
    (partition,) = comparison.compare(fleet_cases.fleet(nodes, **kwargs))
    return partition


def test_rows_are_nodes_in_name_order_and_cells_their_change():
    partition = _partition(12, slow={'n10': (0.5, ('StreamCheck',))})
    nodes, spreads, changes, marked = heat_map.matrix(partition)
    assert nodes == [f'n{i}' for i in range(1, 13)]
    assert changes.shape == (12, len(spreads))
    row = nodes.index('n10')
    for column, spread in enumerate(spreads):
        expected = math.expm1(spread.gain('n10'))
        assert changes[row, column] == expected
        slow = spread.figure.key[0] == 'StreamCheck'
        assert (expected < -0.4) == slow
        assert ((row, column) in marked) == slow


def test_a_figure_a_node_lacks_is_left_empty():
    cases = fleet_cases.fleet(6)
    cases = [c for c in cases if not (c['node'] == 'n2' and
                                      c['display_name'].startswith('Stream'))]
    (partition,) = comparison.compare(cases)
    nodes, spreads, changes, _ = heat_map.matrix(partition)
    stream = [i for i, s in enumerate(spreads)
              if s.figure.key[0] == 'StreamCheck']
    assert all(math.isnan(changes[nodes.index('n2'), i]) for i in stream)


def test_column_titles_are_short():
    partition = _partition(4)
    titles = {heat_map.column_label(s.figure) for s in partition.spreads}
    assert 'Stream single triad' in titles
    assert 'MemoryLatency single latency_memory' in titles


def test_the_picture_grows_with_the_fleet_and_stays_bounded(tmp_path):
    sizes = {}
    for nodes in (4, 1000):
        path = tmp_path / f'{nodes}.png'
        heat_map.draw(_partition(nodes, slow={'n3': (0.5, ('StreamCheck',))}),
                      path)
        sizes[nodes] = matplotlib.image.imread(path).shape[:2]

    assert sizes[4][0] < sizes[1000][0] <= 2400
    assert max(sizes[4][1], sizes[1000][1]) <= 2000
