'''Every check family records why its checks skip (skip_reason).'''

import importlib
import inspect

import pytest

from hpc_acceptance.core.check import AcceptanceCheck
from hpc_acceptance.core.skip_reason import RecordedSkip

FAMILIES = ['hpcc', 'memory', 'network', 'npb', 'stream']


@pytest.mark.parametrize('family', FAMILIES)
def test_the_familys_checks_skip_through_the_recording_skip(family):
    module = importlib.import_module(f'hpc_acceptance.{family}.check')
    checks = [cls for _, cls in inspect.getmembers(module, inspect.isclass)
              if issubclass(cls, AcceptanceCheck) and cls is not
              AcceptanceCheck]
    assert checks
    # A test class listing ReFrame's RegressionTest before AcceptanceCheck
    # would take RegressionTest.skip, which records nothing.
    for cls in checks:
        assert cls.skip is RecordedSkip.skip, cls.__mro__
