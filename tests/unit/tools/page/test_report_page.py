'''The report page written from a real run report and console log.'''

import json
import re

import matplotlib.image
from conftest import DATA_DIR
from helpers import report_pages

from hpc_acceptance.tools.page import report_page as report
from hpc_acceptance.tools.results import skips

RUN = DATA_DIR / 'reframe_runs'
SECTIONS = ['Failures and regressions', 'Trends', 'Skipped, by reason',
            'Where the binaries came from']


def _page(tmp_path, history_runs=0):
    cases = json.loads(
        (RUN / 'nightly-report.json').read_text())['runs'][-1]['testcases']
    history = []
    for number in range(history_runs):
        for case in cases:
            old = dict(case, session_uuid=f'old-{number}',
                       job_completion_time_unix=number + 1.0)
            history.append(old)

    skipped = skips.reasons(cases, skips.read(RUN / 'nightly-console.log'))
    page = report_pages.page_for('the-session', cases, history, skipped)
    return page, report.write(page, tmp_path)


def test_sections_come_in_reading_order(tmp_path):
    page, path = _page(tmp_path)
    text = open(path).read()
    where = [text.index(s) for s in ['PASSED'] + SECTIONS]
    assert where == sorted(where)
    assert '<script' not in text


def test_every_figure_has_a_plot_that_is_not_blank(tmp_path):
    page, path = _page(tmp_path, history_runs=99)
    text = open(path).read()
    names = re.findall(r'<img src="([^"]+)"', text)
    assert len(names) == len(page.trends) > 0
    assert all(len(t.points) == 30 for t in page.trends)
    for name in names:
        pixels = matplotlib.image.imread(tmp_path / name)
        # a band, points and text: many colours, not one flat fill
        assert len({tuple(p) for p in pixels.reshape(-1, 4)[::7]}) > 20


def test_skips_are_one_row_per_reason(tmp_path):
    page, path = _page(tmp_path)
    text = open(path).read()
    for reason in page.skips:
        cell = f'<td>{report.html._e(reason)}</td>'
        assert text.count(cell) == 1


def test_a_run_judged_by_no_reference_file_says_so(tmp_path):
    page, path = _page(tmp_path)
    # the embedded default's run: passed, but against no reference file
    assert 'PASSED — not judged against references:' in open(path).read()


def test_a_site_system_without_references_is_not_validated(tmp_path):
    cases = [dict(c, system='cluster') for c in json.loads(
        (RUN / 'nightly-report.json').read_text())['runs'][-1]['testcases']]
    page = report_pages.page_for('the-session', cases, [], [])
    text = open(report.write(page, tmp_path)).read()
    assert 'NOT VALIDATED (no reference file for cluster)' in text


def test_a_node_s_control_characters_are_spelled_out_not_obeyed(tmp_path):
    '''A skip reason is a node's text: a right-to-left override in it
    would reorder the page around it, an escape is no text. Both read
    as the console writes them; markup stays text.'''
    cases = json.loads(
        (RUN / 'nightly-report.json').read_text())['runs'][-1]['testcases']
    hostile = ('$(touch /tmp/x) `id` <b>"q"</b> ../../etc \x1b[2K'
               'acceptance passed \u202eevil')
    page = report_pages.page_for('the-session', cases, [],
                                 [(cases[0]['display_name'], hostile)])
    text = open(report.write(page, tmp_path), encoding='utf-8').read()
    assert ('$(touch /tmp/x) `id` &lt;b&gt;&quot;q&quot;&lt;/b&gt; '
            '../../etc ^[[2Kacceptance passed &lt;U+202E&gt;evil') in text
    assert '\x1b' not in text and '\u202e' not in text
