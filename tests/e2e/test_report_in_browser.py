'''The report page as a person sees it: Debian's chromium, headless.

The page is written from a real nightly's report and console log, with
earlier runs added so one figure drifted and one check failed. Chromium
loads a copy of it with a probe script (the page itself has none) that
reports broken images and the section headings, and takes a screenshot.
'''

import copy
import random
import json
import re
import shutil
import subprocess

import matplotlib.image
import pytest

from conftest import DATA_DIR
from helpers import fleet_cases, report_pages
from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.page import report_page as report
from hpc_acceptance.tools.results import skips

RUN = DATA_DIR / 'reframe_runs'
SECTIONS = ['Failures and regressions', 'Trends', 'Skipped, by reason',
            'Where the binaries came from']
_PROBE = '''<script>
window.addEventListener('load', () => {
  const broken = [...document.images].filter(
    i => !i.complete || i.naturalWidth === 0).length;
  const heads = [...document.querySelectorAll('h2')].map(h => h.textContent);
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({images: document.images.length,
                                    broken: broken, sections: heads});
  document.body.appendChild(out);
});
</script>'''


def _chromium():
    found = shutil.which('chromium')
    if found is None:
        pytest.skip('chromium is not installed (ci/test.sh installs it: '
                    'apt-get install chromium)')

    return found


def _page(tmp_path):
    report_data = json.loads((RUN / 'nightly-report.json').read_text())
    cases = report_data['runs'][-1]['testcases']
    measured = [c for c in cases if c.get('perfvalues')]
    history = []
    for night in range(3):
        for case in measured:
            old = copy.deepcopy(case)
            old.update(session_uuid=f'night-{night}',
                       job_completion_time_unix=night * 86400.0 + 1)
            history.append(old)

    # the first figure drops by half tonight: it drifted
    first = next(iter(measured[0]['perfvalues'].values()))
    first[0] *= 0.5
    failed = copy.deepcopy(measured[-1])
    failed.update(result='fail', fail_phase='sanity', perfvalues={},
                  fail_reason='SanityError: the kernel reported no result')
    cases = cases + [failed]
    skipped = skips.reasons(cases, skips.read(RUN / 'nightly-console.log'))
    page = report_pages.page_for('browser-test', cases, history, skipped)
    return page, report.write(page, tmp_path / 'page')


def _run_chromium(chromium, tmp_path, *args):
    done = subprocess.run(
        [chromium, '--headless', '--no-sandbox', '--disable-gpu',
         '--hide-scrollbars', f'--user-data-dir={tmp_path / "profile"}',
         *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_sections_and_plots_render(tmp_path):
    chromium = _chromium()
    page, path = _page(tmp_path)
    probe = tmp_path / 'page' / 'probe.html'
    probe.write_text(open(path).read().replace('</body>',
                                               _PROBE + '</body>'))
    dom = _run_chromium(chromium, tmp_path, '--virtual-time-budget=10000',
                        '--dump-dom', probe.as_uri())
    found = json.loads(re.search(r'<pre id="probe">(.*?)</pre>', dom,
                                 re.DOTALL)[1])
    assert found['images'] == len(page.trends) > 0
    assert found['broken'] == 0
    assert [s.split(' (')[0] for s in found['sections']] == SECTIONS
    assert 'FAILED' in dom and 'drifted' in dom
    # the contents line links every section
    for anchor in ('problems', 'trends', 'skips', 'binaries'):
        assert f'href="#{anchor}"' in dom and f'id="{anchor}"' in dom

    shot = tmp_path / 'report.png'
    _run_chromium(chromium, tmp_path, '--window-size=1280,1400',
                  f'--screenshot={shot}', f'file://{path}')
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (1400, 1280)
    colours = {tuple((p[:3] * 255).round().astype(int))
               for p in pixels.reshape(-1, pixels.shape[-1])[::5]}
    # the FAILED banner, the noise band and the drifted marker are on screen
    for rgb in [(0xc6, 0x28, 0x28), (0xef, 0x6c, 0x00)]:
        assert rgb in colours, rgb
    assert len(colours) > 50


def test_a_fleet_of_1000_nodes_is_one_readable_page(tmp_path):
    '''1000 nodes x 100 figures with two slow nodes: the suspects table,
    one heat map naming them, and trends of the fleet's medians only.'''
    chromium = _chromium()
    cases = fleet_cases.big_fleet(1000, 100, slow={
        'n88': (0.4, ('Synthetic03Check',)),
        'n417': (0.3, ('Synthetic11Check', 'Synthetic17Check'))})
    page = report_pages.page_for('fleet-test', cases, [], [])
    page.fleets = comparison.compare(cases)
    page.nodes = {'cluster:compute': {'state': 'idle', 'covered': [],
                                      'left_out': [{'node': 'n1001',
                                                    'state': 'DOWN',
                                                    'reason': 'no power'}]}}
    path = report.write(page, tmp_path / 'page')
    assert len(page.trends) == 100
    html = open(path).read()
    assert html.count('<img class="heat"') == 1
    assert html.index('id="fleet"') < html.index('id="trends"')

    probe = tmp_path / 'page' / 'probe.html'
    probe.write_text(html.replace('</body>', _PROBE + '</body>'))
    dom = _run_chromium(chromium, tmp_path, '--virtual-time-budget=10000',
                        '--dump-dom', probe.as_uri())
    found = json.loads(re.search(r'<pre id="probe">(.*?)</pre>', dom,
                                 re.DOTALL)[1])
    assert found['broken'] == 0 and found['images'] == 101
    assert found['sections'][1].startswith('Suspect nodes')
    for text in ('n88', 'n417', 'n1001', 'no power', '2 suspect node(s)'):
        assert text in dom, text

    shot = tmp_path / 'fleet.png'
    _run_chromium(chromium, tmp_path, '--window-size=1280,2400',
                  f'--screenshot={shot}', f'file://{path}')
    pixels = matplotlib.image.imread(shot)
    colours = {tuple((p[:3] * 255).round().astype(int))
               for p in pixels.reshape(-1, pixels.shape[-1])[::3]}
    # the FAILED banner and the suspects' red on screen
    assert (0xc6, 0x28, 0x28) in colours


def _shifted_page(tmp_path):
    '''A real nightly's figures over 20 nights of 1 % noise, the first
    figure 10 % worse from night 16 on, the night the kernel changed; the
    site's shift limit 5 %.'''
    report_data = json.loads((RUN / 'nightly-report.json').read_text())
    cases = report_data['runs'][-1]['testcases']
    measured = [c for c in cases if c.get('perfvalues')]
    rng = random.Random(39)
    history, tonight = [], []
    for night in range(20):
        kernel = '6.1.0-25-amd64' if night < 16 else '6.1.0-26-amd64'
        for number, case in enumerate(measured):
            old = copy.deepcopy(case)
            old.update(session_uuid=f'night-{night}',
                       node_software=f'kernel={kernel}',
                       job_completion_time_unix=1.8e9 + night * 86400.0)
            for perf in old['perfvalues'].values():
                perf[0] *= 1 + 0.01 * rng.gauss(0, 1)
                if number == 0 and night >= 16:
                    perf[0] *= 0.9 if perf[4] != 'us' else 1 / 0.9

            (tonight if night == 19 else history).append(old)

    tonight += [c for c in cases if not c.get('perfvalues')]
    page = report_pages.page_for('shift-test', tonight, history, [],
                                 shift_limit='0.05')
    return page, report.write(page, tmp_path / 'page')


def test_a_shift_across_nights_is_marked_on_its_trend(tmp_path):
    chromium = _chromium()
    page, path = _shifted_page(tmp_path)
    shifted = [t for t in page.trends if t.shift]
    assert shifted and all(t.key == shifted[0].key for t in shifted)
    assert page.status == 1
    html = open(path).read()
    assert 'shifted across nights (fails the run)' in html
    assert 'the kernel went from 6.1.0-25-amd64 to 6.1.0-26-amd64' in html

    shot = tmp_path / 'shift.png'
    _run_chromium(chromium, tmp_path, '--window-size=1280,1400',
                  f'--screenshot={shot}', f'file://{path}')
    pixels = matplotlib.image.imread(shot)
    colours = {tuple((p[:3] * 255).round().astype(int))
               for p in pixels.reshape(-1, pixels.shape[-1])[::3]}
    # the shift's purple: its line on the plot and its row in the table
    assert (0x6a, 0x1b, 0x9a) in colours
