'''One small PNG per :class:`~.trends.Trend`.

The band is shaded (blue: the reference; grey: the noise of earlier runs),
earlier runs are a thin line of dots and this run a large marker coloured by
its verdict. The x axis counts runs, labelled with the first and last dates,
so 1 run and 100 runs read the same way.
'''

import datetime

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

VERDICT_COLOURS = {'pass': '#2e7d32', 'fail': '#c62828', 'drift': '#ef6c00'}
BAND_COLOURS = {'reference': '#90caf9', 'noise': '#cfd8dc'}


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
        ax.set_title(f'{trend.variable} = {values[-1]:.4g} {trend.unit}',
                     fontsize=9)
        ax.legend(fontsize=6, loc='best', frameon=False)
        ax.grid(alpha=0.3)
        # fixed margins, room for 7-digit tick labels and the unit: a
        # tight layout drew every plot twice (40 % of a page's plotting)
        fig.subplots_adjust(left=0.19, right=0.91, bottom=0.14, top=0.82)
        fig.savefig(path)
    finally:
        plt.close(fig)
