'''The Hypothesis settings of the property tests (tests/properties/).

``HPC_ACCEPTANCE_PROPERTIES`` picks a profile:

- ``ci`` (the default, what ``ci/test.sh`` runs): derandomized, each test's
  examples derived from the test itself, so that every run of the suite
  tries the same ones (and no example database is read or written);
- ``deep``: ``DEEP_SCALE`` (20) times the examples, random ones
  (``pytest --hypothesis-seed=N`` repeats a run), for
  ``ci/bench/properties.sh``;
- ``mutation``: a third of the examples, derandomized and not shrunk
  (a failure kills the mutant; its smallest form does not matter), for
  the mutation runs of ``ci/bench/mutation.sh``, which run the tests once
  per mutant;
- ``explicit``: the explicit examples only: the counterexamples found on
  the code before this suite, kept; run against an older checkout's
  library (``PYTHONPATH=<old>/checks``) each fails (tests/README.md).

No deadline: the time of an example on a loaded 2-core runner says nothing
of the code.
'''

import os

from hypothesis import HealthCheck, Phase, settings

DEEP_SCALE = 20

_COMMON = dict(deadline=None, print_blob=True, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.data_too_large,
    HealthCheck.function_scoped_fixture, HealthCheck.large_base_example])

settings.register_profile('ci', derandomize=True, database=None, **_COMMON)
settings.register_profile('deep', derandomize=False, database=None,
                          **_COMMON)
settings.register_profile('mutation', derandomize=True, database=None,
                          phases=[Phase.explicit, Phase.reuse,
                                  Phase.generate], **_COMMON)
settings.register_profile('explicit', derandomize=True, database=None,
                          phases=[Phase.explicit], **_COMMON)

#: The profile of this run.
PROFILE = os.environ.get('HPC_ACCEPTANCE_PROPERTIES', 'ci')
_SCALE = {'ci': 1.0, 'deep': float(DEEP_SCALE), 'mutation': 1 / 3,
          'explicit': 1.0}

if PROFILE not in _SCALE:
    raise ValueError(f'HPC_ACCEPTANCE_PROPERTIES={PROFILE}: one of '
                     f'{", ".join(_SCALE)}')


def examples(count):
    '''The settings of a property tried on ``count`` examples in CI (the
    profile scales them).'''
    return settings(settings.get_profile(PROFILE),
                    max_examples=max(1, round(count * _SCALE[PROFILE])))
