'''The Grafana dashboard (config/grafana/hpc-acceptance.json): a JSON model
Grafana imports, whose queries name only series the export sends and whose
every panel a test runs against a real store (tests/helpers/exported.py).'''

import ast
import json
import re

from conftest import PROJECT_DIR
from helpers import exported
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

    # and Grafana's own: the step of the panel's time range
    assert used <= variables.keys() | {'__interval'}
    refs = [t['refId'] for p in model['panels'] for t in p['targets']]
    assert all(refs)


def check_parameters():
    '''The names of every parameter a check in checks/ declares
    (``name = parameter(...)``, or ``'name': parameter(...)`` in a class
    made by ``make_test``): each is a label of its figures' series.'''
    def is_parameter(node):
        return (isinstance(node, ast.Call) and
                getattr(node.func, 'id', None) == 'parameter')

    names = set()
    for path in (PROJECT_DIR / 'checks').rglob('*.py'):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and is_parameter(node.value):
                names |= {t.id for t in node.targets
                          if isinstance(t, ast.Name)}
            elif isinstance(node, ast.Dict):
                names |= {k.value for k, v in zip(node.keys, node.values)
                          if isinstance(k, ast.Constant) and is_parameter(v)}

    return names


def test_the_trend_legend_names_every_label_that_tells_series_apart():
    '''Series of the trend differ by the labels of the figure (every check
    parameter among them) and of the run; a legend without one of them
    names two lines alike (a nightly and a fleet run\'s, two variants).'''
    parameters = check_parameters()
    assert {'isa', 'turbo', 'smt', 'threads', 'num_procs'} <= parameters
    wanted = parameters | {'system', 'partition', 'environ', 'check',
                           'figure', 'identity', 'mode', 'run',
                           'post_upgrade'}
    for target in exported.panel(exported.TREND)['targets']:
        named = set(re.findall(r'\{\{(\w+)\}\}', target['legendFormat']))
        assert wanted <= named, (target['refId'], wanted - named)
