'''The node x figure heat map of a partition's fleet run: one PNG.

Rows are the nodes (in name order, so that a rack or a chassis shows as a
band), columns the figures (:class:`..fleet.model.Spread`), and a cell's
colour is the node's change from the fleet median, as performance: red slower,
blue faster, white at the median, the colour full at :data:`CLIP` and beyond;
grey where the node has no value (the check failed or did not run there).
Suspect figures (worse than their band) are marked with a black dot, and the
suspects' names are written beside their rows: a fleet of 1000 nodes stays one
picture, its odd nodes named. Where a partition's nodes of other hardware or
software were judged apart, a cell is the change from the median of the node's
own group. A value of 0, and no measurement (NaN, null and the like:
:mod:`..results.measurement`), are as red as it gets.
'''

import math

import matplotlib
import numpy

from hpc_acceptance.tools.fleet.model import natural_order

matplotlib.use('Agg')
# labels are node, check and figure names as a report wrote them, shown as
# they are: with mathtext a "$" in one starts a formula, and one that does
# not parse stops the page
matplotlib.rcParams['text.parse_math'] = False
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

#: The change (as a fraction of performance) at which a cell is full red or
#: full blue.
CLIP = 0.3

#: Node names written on the left axis at most; beyond, only the suspects'.
ALL_NAMES_UP_TO = 60

_DPI = 100


def column_label(figure):
    '''A figure's column title, short: ``MemoryLatency latency_l3``.'''
    check, _, _, params, _ = figure.key
    shown = [v for p, v in params
             if (p, v) not in {('isa', 'native'), ('turbo', 'as-configured'),
                               ('smt', 'as-configured')}]
    return ' '.join([check.replace('Check', '')] + [str(v) for v in shown] +
                    [figure.variable])


def matrix(partition):
    '''``(nodes, spreads, changes, suspect cells)``: ``changes`` is a
    nodes x figures array of the change in performance from the median of
    the node's group (NaN without a value); ``spreads`` one per column
    (the first group's, where groups of other hardware were judged
    apart); suspect cells are ``(row, column)``.'''
    nodes = sorted(partition.nodes, key=natural_order)
    row = {node: number for number, node in enumerate(nodes)}
    columns = {}
    for spread in sorted(partition.spreads,
                         key=lambda s: column_label(s.figure)):
        columns.setdefault((spread.figure.key, spread.figure.variable),
                           []).append(spread)

    changes = numpy.full((len(nodes), len(columns)), numpy.nan)
    marked = []
    for column, spreads in enumerate(columns.values()):
        for spread in spreads:
            for node in spread.values:
                changes[row[node], column] = math.expm1(spread.gain(node))
                if spread.is_worse(node):
                    marked.append((row[node], column))
            for node in spread.unmeasured:
                changes[row[node], column] = -1.0
                marked.append((row[node], column))

    return nodes, [group[0] for group in columns.values()], changes, marked


def _inches(count, low, high, room):
    '''Size of one cell: ``room`` inches shared by ``count`` cells, kept
    within ``low`` and ``high``.'''
    return max(low, min(high, room / max(count, 1)))


def draw(partition, path):
    '''Write the heat map of ``partition`` (a
    :class:`..fleet.model.PartitionFleet` with figures compared) to
    ``path``.'''
    nodes, spreads, changes, marked = matrix(partition)
    suspects = {s.node for s in partition.suspects}
    labels = [column_label(s.figure) for s in spreads]
    cell_w = _inches(len(spreads), 0.12, 0.3, 14.0)
    cell_h = _inches(len(nodes), 0.016, 0.22, 16.0)
    grid_w, grid_h = cell_w * len(spreads), cell_h * len(nodes)
    left = 0.3 + 0.075 * max(map(len, nodes), default=4)
    top = 0.55 + 0.055 * max(map(len, labels), default=10)
    bottom = 0.85
    width = max(left + grid_w + 0.4, 5.0)
    height = bottom + grid_h + top
    fig = plt.figure(figsize=(width, height), dpi=_DPI)
    try:
        ax = fig.add_axes([left / width, bottom / height,
                           grid_w / width, grid_h / height])
        bar_ax = fig.add_axes([left / width, 0.45 / height,
                               min(grid_w, 4.0) / width, 0.12 / height])
        colours = matplotlib.colormaps['RdBu'].with_extremes(bad='#b0bec5')
        image = ax.imshow(numpy.ma.masked_invalid(changes), cmap=colours,
                          vmin=-CLIP, vmax=CLIP, aspect='auto',
                          interpolation='nearest')
        if marked:
            rows, columns = zip(*marked)
            size = max(3.0, min(30.0, (72 * min(cell_h, cell_w)) ** 2 / 3))
            ax.scatter(columns, rows, s=size, c='black', marker='o',
                       linewidths=0)

        ax.set_xticks(range(len(spreads)))
        ax.set_xticklabels(labels, rotation=90, fontsize=6)
        ax.xaxis.tick_top()
        shown = [r for r, node in enumerate(nodes)
                 if len(nodes) <= ALL_NAMES_UP_TO or node in suspects]
        ax.set_yticks(shown)
        ax.set_yticklabels([nodes[r] for r in shown], fontsize=7)
        for tick, label, r in zip(ax.yaxis.get_major_ticks(),
                                  ax.get_yticklabels(), shown):
            if nodes[r] in suspects:
                label.set_color('#c62828')
                label.set_fontweight('bold')
                label.set_fontsize(10)
                tick.tick1line.set_color('#c62828')
                tick.tick1line.set_markersize(8)

        colour_bar = fig.colorbar(image, cax=bar_ax, orientation='horizontal',
                                  format=lambda v, _: f'{100 * v:+.0f}%')
        colour_bar.ax.tick_params(labelsize=7)
        colour_bar.set_label('change from the fleet median (red: slower; '
                             'dot: beyond its band; grey: no value)',
                             fontsize=7)
        fig.text(0.1 / width, 1 - 0.1 / height,
                 f'{partition.name}: {len(nodes)} nodes x {len(spreads)} '
                 f'figures, {len(suspects)} suspect (named in red)',
                 fontsize=9, va='top')
        fig.savefig(path)
    finally:
        plt.close(fig)
