'''When a shift fails the nightly (hpc_acceptance.tools.shifts.limit): each
input of the rule pinned, the family's own site limit, a time's tolerance
from its upper bound, a reference entry that bounds nothing, the settings
a command hands over (the mutants ci/bench/mutation.sh left alive).'''

import pytest

from hpc_acceptance.core.paths import REFERENCE_DIR
from hpc_acceptance.tools.common import command_settings
from hpc_acceptance.tools.references import calibration
from hpc_acceptance.tools.shifts import limit, nightly

SITE = "the site's shift limit (HPC_ACCEPTANCE_SHIFT_LIMIT)"


def _perf(ref=100.0, lower=-0.10, upper=None, unit='MB/s'):
    return [90.0, ref, lower, upper, unit, 'pass']


def test_a_family_s_own_site_limit_wins_over_every_family_s():
    limits = limit.site_limits('0.10, Memory=0.02')
    assert limit.limit_of('MemoryDaxpyCheck', _perf(lower=-0.5), limits) \
        == (0.02, SITE)
    assert limit.limit_of('StreamCheck', _perf(lower=-0.5), limits) == \
        (0.10, SITE)


def test_where_tolerance_and_floor_are_equal_the_tolerance_is_named():
    # StreamCheck's built-in floor is 25 %
    assert limit.limit_of('StreamCheck', _perf(lower=-0.25),
                          limit.Limits()) == \
        (0.25, 'its reference tolerance')


def test_a_site_limit_is_a_fraction_strictly_between_0_and_1():
    for bad in ('0', '1', '-0.1'):
        with pytest.raises(limit.LimitError, match='between 0 and 1'):
            limit.site_limits(bad)
    assert limit.site_limits('0.999').every == 0.999


def test_a_rate_s_tolerance_is_its_lower_bound():
    assert limit.reference_tolerance(_perf()) == pytest.approx(0.10)
    for lower in (None, 'x', True, float('nan')):
        assert limit.reference_tolerance(_perf(lower=lower)) is None


def test_a_time_s_tolerance_is_the_performance_its_upper_bound_lets_go():
    # 25 % longer is a fifth of the performance lost; twice as long, half
    assert limit.reference_tolerance(
        _perf(lower=-0.5, upper=0.25, unit='ns')) == pytest.approx(0.2)
    assert limit.reference_tolerance(
        _perf(lower=None, upper=1.0, unit='s')) == pytest.approx(0.5)
    for upper in (None, 'x', True, float('inf'), -1, -1.5):
        assert limit.reference_tolerance(
            _perf(upper=upper, unit='ns')) is None


def test_a_reference_that_is_no_number_bounds_nothing():
    for ref in (None, 0, 'x', True, float('inf')):
        assert limit.reference_tolerance(_perf(ref=ref)) is None
    assert limit.reference_tolerance(_perf(unit=None)) is None


def test_a_command_s_settings_hand_over_the_limit_and_the_floors_place():
    given = command_settings.read({
        command_settings.SHIFT_LIMIT: 'Stream=0.07',
        command_settings.REFERENCE_PREFIX: '/site/reference'})
    assert limit.of_settings(given) == limit.Limits(
        None, {'Stream': 0.07}, ('/site/reference',))
    # without a prefix: the site directory's, then the checkout's
    given = command_settings.read({command_settings.SITE_DIR: '/site'})
    assert limit.of_settings(given).reference_dirs == (
        '/site/reference', str(REFERENCE_DIR))
    assert limit.of_settings(command_settings.read({})).reference_dirs == (
        str(REFERENCE_DIR),)


def test_each_system_s_floors_are_its_own_from_the_directory_named(
        tmp_path):
    calibration.write(calibration.path_of('alpha', [str(tmp_path)]),
                      {'floors': {'Stream': 0.04}})
    keys = [('StreamCheck', 'alpha:compute', 'gnu', (), ''),
            ('StreamCheck', 'alpha:gpu', 'gnu', (), ''),
            ('StreamCheck', 'beta:compute', 'gnu', (), '')]
    found = nightly.floors_by_system(
        keys, limit.Limits(reference_dirs=(str(tmp_path),)))
    assert found == {'alpha': ({'Stream': 0.04}, "the system's own"),
                     'beta': ({}, 'built-in')}
