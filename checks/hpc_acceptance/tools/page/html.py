'''The static HTML of the report page: plain HTML and CSS, no JavaScript.

Sections, in the order a sysadmin reads them: the verdict (and the noise
floors its bands were drawn with), failures, regressions and shifts
across nights with their reasons, for a fleet run the suspect nodes and the
node x figure heat map of each partition, the trends (checks with a failed
or drifted figure first), skips grouped by reason, and where the binaries
came from.
'''

import html
from collections import OrderedDict

from hpc_acceptance.tools.common.console import printable
from hpc_acceptance.tools.fleet.wording import node_list, number
from hpc_acceptance.tools.fleet.fingerprint import describe
from hpc_acceptance.tools.page.trends import MAX_TREND_PLOTS, by_check
from hpc_acceptance.tools.references.unreferenced import NOT_JUDGED
from hpc_acceptance.tools.results.runs import describe_key, figure_key

_STYLE = '''
body { font-family: DejaVu Sans, sans-serif; margin: 1.2em; color: #212121; }
h1 { margin: 0 0 .3em 0; font-size: 1.4em; }
h2 { border-bottom: 2px solid #90a4ae; margin-top: 1.4em; font-size: 1.15em; }
h3 { font-size: .95em; margin: .9em 0 .3em 0; }
.verdict { padding: .7em 1em; font-size: 1.3em; font-weight: bold;
           color: white; border-radius: 4px; }
.passed { background: #2e7d32; } .failed { background: #c62828; }
.not-validated { background: #ef6c00; }
table { border-collapse: collapse; font-size: .85em; margin: .4em 0; }
td, th { border: 1px solid #cfd8dc; padding: .2em .5em; text-align: left;
         vertical-align: top; }
th { background: #eceff1; }
td.num { text-align: right; }
.fail { color: #c62828; font-weight: bold; }
.drift { color: #ef6c00; font-weight: bold; }
.shift { color: #6a1b9a; font-weight: bold; }
.pass { color: #2e7d32; }
.grid { display: flex; flex-wrap: wrap; gap: 6px; }
.grid img { border: 1px solid #cfd8dc; width: 300px; height: 158px; }
.note { color: #546e7a; font-size: .85em; }
img.heat { max-width: 100%; border: 1px solid #cfd8dc; }
'''

_BANNER = {0: ('passed', 'PASSED'), 1: ('failed', 'FAILED'),
           2: ('not-validated', 'NOT VALIDATED'),
           3: ('not-validated', 'NOT VALIDATED')}


def _e(text):
    # a node's text (a skip reason, a kernel string) with Unicode's
    # bidirectional controls would reorder what the page shows around
    # it: spelled out, as the console spells them
    return html.escape(printable(text))


def _table(header, rows, numeric=()):
    out = ['<table><tr>' + ''.join(f'<th>{_e(h)}</th>' for h in header) +
           '</tr>']
    for row in rows:
        out.append('<tr>' + ''.join(
            f'<td class="num">{_e(c)}</td>' if i in numeric
            else f'<td>{_e(c)}</td>' for i, c in enumerate(row)) + '</tr>')

    return '\n'.join(out + ['</table>'])


def _verdict(page):
    css, word = _BANNER[page.status]
    families = _table(
        ['family', 'passed', 'failed', 'skipped'],
        [[f, c['pass'], c['fail'], c['skip']]
         for f, c in page.families.items()], numeric=(1, 2, 3))
    totals = {c: sum(f[c] for f in page.families.values())
              for c in ('pass', 'fail', 'skip')}
    drifted = sum(t.verdict == 'drift' for t in page.trends)
    regressed = sum(t.verdict == 'fail' for t in page.trends)
    shifted = len(page.shifts)
    suspects = sum(len(f.suspects) for f in page.fleets or [])
    fleet = (f'; {suspects} suspect node(s) of '
             f'{sum(len(f.nodes) for f in page.fleets)}'
             if page.fleets is not None else '')
    # the verdict's own words when nothing was validated say why
    why = (f' ({page.message.split(": ", 1)[-1].split(" (")[0]})'
           if page.status >= 2 else
           f' — {NOT_JUDGED}' if NOT_JUDGED in page.message else '')
    return (f'<h1>Acceptance run {_e(page.session)}</h1>'
            f'<p class="note">system {_e(page.system)}, '
            f'{_e(page.when)}</p>'
            f'<div class="verdict {css}">{word}{_e(why)}: '
            f'{totals["pass"]} passed, {totals["fail"]} failed, '
            f'{totals["skip"]} skipped; {regressed} figure(s) out of '
            f'their reference band, {drifted} drifted out of their '
            f'noise band, {shifted} shifted across nights{fleet}</div>'
            f'<p class="note">{_e(page.floors_note)}</p>' +
            _contents(page) + families)


def _contents(page):
    '''Links to the sections further down: a long page of trends comes
    between the verdict and the skips.'''
    skipped = sum(sum(c.values()) for c in page.skips.values())
    links = [('problems', f'failures and regressions '
                          f'({len(page.failures)})')]
    if page.shifts:
        links.append(('problems', f'shifts across nights '
                                  f'({len(page.shifts)})'))
    if page.fleets is not None:
        suspects = sum(len(f.suspects) for f in page.fleets)
        links.append(('fleet', f'suspect nodes ({suspects})'))

    links += [('trends', f'trends ({len(page.trends)} figures)'),
              ('skips', f'skipped ({skipped}, {len(page.skips)} '
                        f'reasons)'),
              ('binaries', 'where the binaries came from')]
    return ('<p>' + ' &middot; '.join(f'<a href="#{anchor}">{_e(text)}</a>'
                                      for anchor, text in links) + '</p>')


def _problems(page):
    rows = [[case, 'failed', reason] for case, reason in page.failures]
    rows += [[describe_key(t.key), f'{t.variable} regressed',
              f'{t.current:.4g} {t.unit} outside the reference band']
             for t in page.trends if t.verdict == 'fail']
    # one row per test case: a loaded node drifts in many figures at once
    drifted = OrderedDict()
    for trend in page.trends:
        if trend.verdict == 'drift':
            drifted.setdefault(trend.key, []).append(trend)

    # every shift with its change points; a recovery said, no failure
    rows += [[describe_key(shift.key) + (f' on {shift.node}'
                                         if shift.node else ''),
              f'{shift.variable} ' +
              ('recovered' if shift.recovered else
               'shifted across nights' +
               (' (fails the run)' if shift.failing else '')) +
              f'; {len(shift.nights)} nights, '
              f'{sum(n.runs for n in shift.nights)} runs',
              shift.describe()] for shift in page.shifts]
    for key, trends in drifted.items():
        first = trends[0]
        low, high = first.band     # a time's band can have no upper end
        rows.append([describe_key(key),
                     'drifted: ' + ', '.join(t.variable for t in trends),
                     f'{len(trends)} figure(s) outside the noise band of '
                     f'earlier runs, e.g. {first.variable} '
                     f'{first.current:.4g} {first.unit} against '
                     f'{low:.4g}..{"" if high is None else f"{high:.4g}"}'])
    body = (_table(['test case', 'what', 'reason'], rows) if rows
            else '<p class="pass">No failure, no regression, no drift, no '
                 'shift across nights.</p>')
    return '<h2 id="problems">Failures and regressions</h2>' + body


#: Figures listed per suspect node; the heat map shows the rest.
_SUSPECT_FIGURES = 5


def _suspects_table(suspects):
    rows = []
    for suspect in suspects:
        why = suspect.reasons(_SUSPECT_FIGURES, bands=True)
        more = len(suspect.outliers) - _SUSPECT_FIGURES
        if more > 0:
            why.append(f'and {more} more figure(s): see the heat map')

        again = ('<br><span class="fail">a suspect in the previous fleet '
                 'run too</span>' if suspect.again else '')
        rows.append(f'<tr><td class="fail">{_e(suspect.node)}{again}</td>'
                    f'<td>{"<br>".join(_e(line) for line in why)}</td></tr>')

    return ('<table><tr><th>node</th><th>why (worst first)</th></tr>\n' +
            '\n'.join(rows) + '</table>')


def _fleet(page, images):
    if page.fleets is None:
        return ''

    out = ['<h2 id="fleet">Suspect nodes: every node against its '
           'partition\'s other nodes</h2>',
           '<p class="note">Nodes are compared with the nodes of their '
           'partition that have the same hardware and software. A node is '
           'a suspect when a figure is worse than their median by more '
           'than the band (4 or more robust standard deviations of the '
           'nodes, more for large fleets, at least the family\'s '
           'minimum) on its first run and its rerun, when it alone failed '
           'a check the other nodes passed, or when few nodes share its '
           'hardware or software. The fleet\'s median is compared with '
           'the references, else with earlier fleet runs. Drain them with '
           '<code>hpc-acceptance suspects --drain</code>.</p>']
    if page.fleet_note:
        out.append(f'<p class="note">{_e(page.fleet_note)}</p>')

    for partition in page.fleets:
        out.append(f'<h3>{_e(partition.name)}: {len(partition.nodes)} '
                   f'node(s), {len(partition.suspects)} suspect(s)</h3>')
        if partition.not_compared:
            out.append(f'<p class="note">Not compared across nodes: '
                       f'{_e(partition.not_compared)}</p>')

        out += [f'<p class="fail">{_e(line)}</p>'
                for line in partition.findings()]
        judged = partition.judged_groups
        if len(judged) > 1:
            out.append('<p>Groups of other hardware or software, each '
                       'judged on its own:</p>' + _table(
                           ['nodes', 'hardware and software'],
                           [[node_list(g.nodes), describe(g.fingerprint)]
                            for g in judged]))

        if partition.suspects:
            out.append(_suspects_table(partition.suspects))

        retried = ([f'{node}: {case} passed only when retried'
                    for node, case in partition.passed_on_retry] +
                   [f'{node}: {label} {number(first)} on the first run, '
                    f'{number(then)} on its rerun'
                    for node, label, first, then in partition.recovered])
        if retried:
            out.append('<p>Out on the first run, within the fleet on the '
                       'rerun (not suspects):</p><ul>' + ''.join(
                           f'<li>{_e(line)}</li>' for line in retried) +
                       '</ul>')

        if id(partition) in images:
            out.append(f'<p><img class="heat" src="'
                       f'{_e(images[id(partition)])}" alt="heat map of '
                       f'{_e(partition.name)}: nodes x figures"></p>')

        left = (page.nodes or {}).get(partition.name, {}).get('left_out', [])
        if left:
            out.append('<p>Left out (not in the state asked for when the '
                       'run started):</p>' + _table(
                           ['node', 'state', 'reason'],
                           [[n['node'], n['state'].lower(), n['reason']]
                            for n in left]))

        if partition.other_inputs:
            out.append('<p>Ran with other inputs than the fleet (not '
                       'compared):</p>' + _table(
                           ['node', 'check', 'what differs'],
                           [list(row) for row in partition.other_inputs]))

    return '\n'.join(out)


def _trends(page, images):
    out = ['<h2 id="trends">Trends (last runs of each figure; shaded: '
           'reference band, or the noise band without a reference '
           'file; a purple line: the first night of a shift)</h2>']
    if not page.trends:
        out.append('<p class="note">No figures in this run.</p>')

    undrawn = sum(1 for t in page.trends if id(t) not in images)
    if undrawn:
        out.append(f'<p class="note">{undrawn} of {len(page.trends)} '
                   f'trends are listed without a plot: a page draws '
                   f'{MAX_TREND_PLOTS} at most, the checks with a failed, '
                   f'shifted or drifted figure first.</p>')

    for key, trends in by_check(page.trends):
        out.append(f'<h3>{_e(describe_key(key))}</h3><div class="grid">')
        for trend in trends:
            shift = (f'; {trend.shift.describe()}' if trend.shift else '')
            if id(trend) in images:
                out.append(f'<img src="{_e(images[id(trend)])}" alt="'
                           f'{_e(trend.title)}: {trend.verdict}{_e(shift)}" '
                           f'title="{_e(trend.title)}{_e(shift)}">')
            else:
                out.append(f'<span class="{trend.verdict}">'
                           f'{_e(trend.variable)}: {number(trend.current)} '
                           f'{_e(trend.unit)}, {trend.verdict}{_e(shift)}'
                           f'</span>')

        out.append('</div>')

    return '\n'.join(out)


def _skips(page):
    rows = [[sum(checks.values()),
             ', '.join(f'{c} ({n})' for c, n in checks.items()), reason]
            for reason, checks in page.skips.items()]
    out = ['<h2 id="skips">Skipped, by reason</h2>']
    out.append(_table(['count', 'checks', 'reason'], rows, numeric=(0,))
               if rows else '<p>Nothing skipped.</p>')
    out += [f'<p class="note">Not generated: {_e(note)}</p>'
            for note in page.left_out]
    return '\n'.join(out)


def _provenance(page):
    rows = OrderedDict()
    for case in page.testcases:
        if case.get('fixture') or case['result'] == 'skip':
            continue

        check, partition, environ, *_ = figure_key(case)
        row = (check, f'{partition}+{environ}',
               case.get('dependency_source', ''),
               case.get('spack_spec', ''),
               case.get('blas_library', ''))
        rows[row] = None

    return ('<h2 id="binaries">Where the binaries came from</h2>' +
            _table(['check', 'partition+environ', 'dependency source',
                    'Spack spec', 'BLAS'], list(rows)))


def render(page, images):
    '''The page's HTML; ``images`` maps ``id(trend)`` to its PNG's name.'''
    return '\n'.join([
        '<!DOCTYPE html><html><head><meta charset="utf-8">',
        f'<title>Acceptance {_e(page.session)}</title>',
        f'<style>{_STYLE}</style></head><body>',
        _verdict(page), _problems(page), _fleet(page, images),
        _trends(page, images),
        _skips(page), _provenance(page), '</body></html>'
    ])
