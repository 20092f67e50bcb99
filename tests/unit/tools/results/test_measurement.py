'''Which figures are measurements (hpc_acceptance.tools.results.measurement),
and how a figure that is none is named.'''

import pytest

from hpc_acceptance.tools.results import measurement


@pytest.mark.parametrize('raw, value', [
    (38500.0, 38500.0), (7, 7.0), (0, 0.0), (0.0, 0.0), (1e-300, 1e-300)])
def test_a_finite_number_of_0_or_more_is_a_measurement(raw, value):
    assert measurement.value(raw) == value


@pytest.mark.parametrize('raw, why', [
    (float('nan'), 'NaN'), (float('inf'), '+inf'), (float('-inf'), '-inf'),
    (None, 'null'), (-3.2, 'negative (-3.2)'), (-1, 'negative (-1)'),
    ('38500', "not a number ('38500')"), ('n/a', "not a number ('n/a')"),
    (True, 'not a number (True)'), ([1.0], 'not a number ([1.0])'),
    ('x' * 60, f"not a number ('{'x' * 39}...)"),
    # its text (quotes included) of 40 characters whole, of 41 cut
    ('x' * 38, f"not a number ('{'x' * 38}')"),
    ('x' * 39, f"not a number ('{'x' * 39}...)")])
def test_anything_else_is_no_measurement_and_says_what_it_was(raw, why):
    assert measurement.value(raw) is None
    assert measurement.why_not(raw) == why
