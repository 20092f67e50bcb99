'''The Grafana dashboard (config/grafana/hpc-acceptance.json): a JSON model
Grafana imports, whose queries name only series the export sends and whose
every panel a test runs against a real store (tests/exported.py).'''

import json
import re

import exported
from hpc_acceptance.core.export import series

SENT = {series.FIGURE, series.REFERENCE, series.LOWER_BOUND,
        series.UPPER_BOUND, series.FIGURE_PASSED, series.CHECK_PASSED,
        series.SUSPECT}


def dashboard():
    return json.loads(exported.DASHBOARD.read_text())


def test_each_panel_is_queried_against_the_store_by_a_test():
    ids = [panel['id'] for panel in dashboard()['panels']]
    assert sorted(ids) == sorted({exported.TREND, exported.SPREAD,
                                  exported.FAILURES, exported.SUSPECTS})


def test_every_query_names_series_the_export_sends():
    for panel in dashboard()['panels']:
        assert panel['targets'], panel['title']
        for target in panel['targets']:
            named = set(re.findall(r'hpc_acceptance_\w+', target['expr']))
            assert named and named <= SENT, target['expr']


def test_panels_and_variables_read_the_store_chosen_at_import():
    model = dashboard()
    variables = {v['name']: v for v in model['templating']['list']}
    assert variables['datasource']['query'] == 'prometheus'
    used = set()
    for panel in model['panels']:
        assert panel['datasource']['uid'] == '${datasource}'
        assert {'h', 'w', 'x', 'y'} <= panel['gridPos'].keys()
        for target in panel['targets']:
            assert target['datasource']['uid'] == '${datasource}'
            used |= set(re.findall(r'\$(\w+)', target['expr']))

    assert used <= variables.keys()
    refs = [t['refId'] for p in model['panels'] for t in p['targets']]
    assert all(refs)
