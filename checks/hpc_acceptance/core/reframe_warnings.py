'''ReFrame's deprecation warnings without reading source files.

ReFrame 4.10 warns each time a test touches the deprecated alias
``variables`` (of ``env_vars``), and every test it instantiates does
(its variables are injected with their defaults): 1075 times for a
listing of the nightly set. Each warning finds the first stack frame
outside ReFrame with ``inspect.stack()``, which reads the source lines of
every frame: 80 % of ReFrame's CPU before its first check runs
(ci/bench/README.md, "A fleet night: one job per node or one per check"),
paid by every ReFrame a run starts, and by every node of a fleet night.

:func:`user_deprecation_warning` finds the same frame by walking the
frames' module names, and warns the same: the same message, category,
version rule and stack level. ``config/settings.py`` puts it in place of
ReFrame's (:func:`install`).
'''

import sys
import warnings

import semver

import reframe
import reframe.core.environments
import reframe.core.fields
import reframe.core.launchers
import reframe.core.pipeline
import reframe.core.variables
import reframe.utility.osext
from reframe.core import warnings as reframe_warnings

#: ReFrame's own function (:func:`install` replaces it).
_ORIGINAL = reframe_warnings.user_deprecation_warning

#: ReFrame's modules that import its ``user_deprecation_warning`` by name.
_USERS = (reframe.core.environments, reframe.core.fields,
          reframe.core.launchers, reframe.core.pipeline,
          reframe.core.variables, reframe.utility.osext, reframe_warnings)


def _stack_level():
    '''The ``stacklevel`` of ``warnings.warn`` in
    :func:`user_deprecation_warning` that names the first frame outside
    ReFrame, as ReFrame's own counts it.'''
    level = 2
    frame = sys._getframe(2)
    while frame is not None and \
            (frame.f_globals.get('__name__') or '').startswith('reframe'):
        level += 1
        frame = frame.f_back

    return level


def user_deprecation_warning(message, from_version='0.0.0'):
    '''ReFrame's ``user_deprecation_warning``, the user's frame found
    without reading source files.'''
    level = _stack_level()
    version = semver.VersionInfo.parse(reframe.VERSION)
    if version.prerelease:
        version = semver.VersionInfo(version.major, version.minor,
                                     version.patch)

    if (reframe_warnings._RAISE_DEPRECATION_ALWAYS or
            version >= semver.VersionInfo.parse(from_version)):
        warnings.warn(message, reframe_warnings.ReframeDeprecationWarning,
                      stacklevel=level)


def install():
    '''Use :func:`user_deprecation_warning` wherever ReFrame warns of a
    deprecation (its test's fields and variables, above all).'''
    for module in _USERS:
        module.user_deprecation_warning = user_deprecation_warning
