'''The report page of reports whose strings a node or a script crafted
(hpc_acceptance.tools.page): labels drawn as the text they are, its files
written in its own folder only, and no more plots than a page can hold.'''

import json
import os

import pytest

from helpers import fleet_cases, report_pages
from hpc_acceptance.tools import cli
from hpc_acceptance.tools.common import identifiers
from hpc_acceptance.tools.fleet import comparison
from hpc_acceptance.tools.page import heat_map
from hpc_acceptance.tools.page import report_page

SESSION = fleet_cases.session_id(5)
STREAM = {'StreamCheck': [('triad', 'MB/s', 38500)],
          'Stream$x^{Check': [('bw_$\\frac{', 'MB/s', 30000)]}


@pytest.fixture(autouse=True)
def own_database(tmp_path, monkeypatch):
    monkeypatch.setenv('RFM_SQLITE_DB_FILE', str(tmp_path / 'results.db'))


def _report(tmp_path, session=SESSION, cases=None):
    cases = cases or fleet_cases.fleet(4, figures=STREAM)
    made = fleet_cases.as_report(cases, session=SESSION, start=1795500000.0,
                                 extras={'fleet': 'yes'})
    # the page's folder is named after its test cases' session
    for case in made['runs'][0]['testcases']:
        case['session_uuid'] = session
    folder = tmp_path / 'reports'
    folder.mkdir(exist_ok=True)
    path = folder / 'report.json'
    path.write_text(json.dumps(made))
    return str(path)


def test_a_dollar_in_a_label_is_drawn_as_it_is(tmp_path):
    # mathtext would read "$x^{" as a formula and stop the page
    assert cli.main(['page', '--run-report', _report(tmp_path)]) == 0
    folder = tmp_path / 'reports' / SESSION
    assert (folder / 'index.html').exists()
    assert len(list(folder.glob('trend-*.png'))) == 2
    (partition,) = comparison.compare(fleet_cases.fleet(6, figures=STREAM))
    heat_map.draw(partition, tmp_path / 'heat.png')
    assert (tmp_path / 'heat.png').stat().st_size > 0


@pytest.mark.parametrize('crafted', ['{outside}', '../../outside',
                                     '../reports2'])
def test_a_session_id_of_a_report_names_no_folder_elsewhere(
        tmp_path, crafted, capsys):
    outside = tmp_path / 'outside'
    outside.mkdir()
    (outside / 'index.html').write_text('kept')
    path = _report(tmp_path, crafted.format(outside=outside))
    assert cli.main(['page', '--run-report', path]) == 1
    shown = identifiers.shown(crafted.format(outside=outside))
    assert f'session_uuid {shown} is not a ReFrame session UUID' in \
        capsys.readouterr().err
    assert (outside / 'index.html').read_text() == 'kept'
    assert sorted(os.listdir(outside)) == ['index.html']
    assert sorted(os.listdir(tmp_path / 'reports')) == ['report.json']


def test_a_link_out_of_the_reports_folder_is_not_followed(tmp_path, capsys):
    path = _report(tmp_path)
    outside = tmp_path / 'outside'
    outside.mkdir()
    os.symlink(outside, tmp_path / 'reports' / SESSION)
    assert cli.main(['page', '--run-report', path]) == 1
    assert f'resolves to {outside}, outside {tmp_path / "reports"}' in \
        capsys.readouterr().err
    assert os.listdir(outside) == []
    # nor read by the fleet comparison, which looks for nodes.json there
    assert cli.main(['suspects', '--run-report', path]) == 3
    assert f'the node list of session {SESSION}: ' in \
        capsys.readouterr().err


def test_a_page_draws_a_bounded_number_of_plots_the_worst_first(
        tmp_path, monkeypatch):
    monkeypatch.setattr(report_page, 'MAX_TREND_PLOTS', 1)
    monkeypatch.setattr(report_page.html, 'MAX_TREND_PLOTS', 1)
    cases = fleet_cases.fleet(4, figures=STREAM)
    page = report_pages.page_for(SESSION, cases, [], {})
    page.trends[-1].verdict = 'fail'
    text = open(report_page.write(page, tmp_path)).read()
    assert len(list(tmp_path.glob('trend-*.png'))) == 1
    assert '1 of 2 trends are listed without a plot: a page draws 1 at ' \
           'most' in text
    worst = page.trends[-1]
    assert f'alt="{report_page.html._e(worst.title)}: fail"' in text
    assert f'{report_page.html._e(page.trends[0].variable)}: ' in text
