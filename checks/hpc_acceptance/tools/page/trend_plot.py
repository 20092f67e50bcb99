'''One small PNG per :class:`~.trends.Trend`.

The band is shaded (blue: the reference; grey: the noise of earlier runs),
earlier runs are a thin line of dots and this run a large marker coloured by
its verdict. A persistent shift across nights is a purple dashed line at its
first night, the nights after it at their new level (a purple line) and
its size and date in the title. The x axis counts runs, labelled with
the first and last dates, so 1 run and 100 runs read the same way.
'''

import datetime

import matplotlib

matplotlib.use('Agg')
# labels are node, check and figure names as a report wrote them, shown as
# they are: with mathtext a "$" in one starts a formula, and one that does
# not parse stops the page
matplotlib.rcParams['text.parse_math'] = False
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

VERDICT_COLOURS = {'pass': '#2e7d32', 'fail': '#c62828', 'drift': '#ef6c00'}
BAND_COLOURS = {'reference': '#90caf9', 'noise': '#cfd8dc'}
SHIFT_COLOUR = '#6a1b9a'


def _date(when):
    if not when:
        return '?'

    return datetime.datetime.fromtimestamp(
        when, datetime.timezone.utc).strftime('%m-%d %H:%M')


def _limits(values, band):
    bounded = values + [b for b in band if b is not None]
    low, high = min(bounded), max(bounded)
    pad = (high - low) * 0.15 or abs(high) * 0.1 or 1.0
    return low - pad, high + pad


def _first_night(trend):
    '''The run number of the first night of ``trend``'s shift: the point
    completed at that night's time, else the nearest.'''
    since = trend.shift.since
    return 1 + min(range(len(trend.points)),
                   key=lambda i: abs(trend.points[i][0] - since))


def _mark_shift(ax, trend, runs, values):
    '''The shift's first night and its new level.'''
    first = _first_night(trend)
    level = sorted(values[first - 1:])[(len(values) - first) // 2]
    ax.axvline(first - 0.5, color=SHIFT_COLOUR, ls='--', lw=1.4)
    ax.plot([first - 0.5, runs[-1] + 0.3], [level, level], '-',
            color=SHIFT_COLOUR, lw=2,
            label=f'shift {100 * trend.shift.point.size:+.1f} % since '
                  f'{_date(trend.shift.since)[:5]}')


def draw(trend, path):
    '''Write ``trend``'s plot to ``path`` (PNG).'''
    values = [v for _, v in trend.points]
    runs = list(range(1, len(values) + 1))
    fig, ax = plt.subplots(figsize=(4.0, 2.1), dpi=90)
    try:
        ylow, yhigh = _limits(values, trend.band)
        low, high = trend.band
        ax.axhspan(ylow if low is None else low,
                   yhigh if high is None else high,
                   color=BAND_COLOURS[trend.band_kind], alpha=0.6, lw=0,
                   label=f'{trend.band_kind} band')
        if len(values) > 1:
            ax.plot(runs[:-1], values[:-1], '-o', color='#455a64', lw=1,
                    ms=4 if len(values) <= 30 else 2, label='earlier runs')
            ax.plot(runs[-2:], values[-2:], '-', color='#455a64', lw=1)

        if trend.shift:
            _mark_shift(ax, trend, runs, values)

        ax.plot(runs[-1:], values[-1:], 'o', ms=9,
                color=VERDICT_COLOURS[trend.verdict],
                label=f'this run: {trend.verdict}')
        ax.set_ylim(ylow, yhigh)
        ax.set_xlim(0.5, len(values) + 0.5)
        ticks = sorted({1, len(values)})
        ax.set_xticks(ticks)
        ax.set_xticklabels([_date(trend.points[t - 1][0]) for t in ticks],
                           fontsize=7)
        ax.tick_params(axis='y', labelsize=7)
        ax.set_ylabel(trend.unit, fontsize=8)
        title = f'{trend.variable} = {values[-1]:.4g} {trend.unit}'
        if trend.shift:
            title += (f'\n{100 * trend.shift.point.size:+.1f} % since '
                      f'{_date(trend.shift.since)[:5]}')
        ax.set_title(title, fontsize=9,
                     color=SHIFT_COLOUR if trend.shift else 'black')
        ax.legend(fontsize=6, loc='best', frameon=False)
        ax.grid(alpha=0.3)
        # fixed margins, room for 7-digit tick labels and the unit: a
        # tight layout drew every plot twice (40 % of a page's plotting)
        fig.subplots_adjust(left=0.19, right=0.91, bottom=0.14,
                            top=0.74 if trend.shift else 0.82)
        fig.savefig(path)
    finally:
        plt.close(fig)
