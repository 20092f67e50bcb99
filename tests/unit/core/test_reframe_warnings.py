'''ReFrame's deprecation warnings found without reading source files
(hpc_acceptance.core.reframe_warnings): the same warning, at the same
frame, as ReFrame's own gives.'''

import importlib
import warnings

import pytest
from reframe.core import variables
from reframe.core import warnings as reframe_warnings

from hpc_acceptance.core import reframe_warnings as fast

#: ReFrame's own, before anything installs ours.
ORIGINAL = fast._ORIGINAL


@pytest.fixture
def through_reframe(tmp_path, monkeypatch):
    '''Calls ``warn('old')`` from two frames of a module whose name is
    ReFrame's (``reframe_probe``, a file as ReFrame's modules are).'''
    (tmp_path / 'reframe_probe.py').write_text(
        'def inner(warn):\n    warn("old")\n\n\n'
        'def outer(warn):\n    inner(warn)\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module('reframe_probe').outer


def _caught(through, warn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        through(warn)
    (warning,) = caught
    return warning


def test_the_warning_names_the_first_frame_outside_reframe(through_reframe):
    ours = _caught(through_reframe, fast.user_deprecation_warning)
    theirs = _caught(through_reframe, ORIGINAL)
    assert ours.category is reframe_warnings.ReframeDeprecationWarning
    assert (ours.filename, ours.lineno, str(ours.message)) == \
        (theirs.filename, theirs.lineno, str(theirs.message))
    assert ours.filename == __file__


def test_a_warning_scheduled_for_a_later_version_is_not_given():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        fast.user_deprecation_warning('later', from_version='99.0.0')
    assert caught == []


def test_reframe_s_variables_warn_through_it_once_installed():
    fast.install()
    assert variables.user_deprecation_warning is \
        fast.user_deprecation_warning
