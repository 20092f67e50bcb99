'''Identifiers checked at the door (hpc_acceptance.tools.common.identifiers):
what ReFrame, Slurm and archspec name things is taken, anything else is
refused naming it.'''

import uuid

import pytest

from hpc_acceptance.tools.common import identifiers

HOSTILE = ['?__import__("os").system("id")==0 and False', '/some/dir',
           '../../x', 'n1\nscontrol update NodeName=n2 State=RESUME',
           'n$(id>F)', 'n`id`', 'n1;id', "n'1", 'n1 n2', '', 'n[1-4]',
           'n1,n2', '\x1b[2Jall checks PASSED', 'x' * 300, None, 7]


def test_reframes_own_session_ids_are_taken():
    made = str(uuid.uuid4())
    assert identifiers.session(made) == made
    assert identifiers.testcase(f'{made}:0:12') == f'{made}:0:12'


#: A session id of ReFrame's, always the same: the parameters are the same
#: in every process that collects them (pytest-xdist's workers).
SESSION = '622c230f-ad48-4c36-bfd2-c4f99bc5e672'


@pytest.mark.parametrize('value', HOSTILE + [
    SESSION + ':0:1', SESSION.upper(), 'now-1d:now', 'fleet-1'])
def test_anything_else_is_no_session_id_and_is_named(value):
    with pytest.raises(identifiers.BadIdentifier) as refused:
        identifiers.session(value, 'session_info: uuid')
    message = str(refused.value)
    assert message.startswith('session_info: uuid ')
    assert '\n' not in message and '\x1b' not in message
    assert len(message) < 160


@pytest.mark.parametrize('value', ['n1', 'nid001234', 'node-07.cluster',
                                   'gpu_a100-3', '6f1c2a9e0b44'])
def test_slurm_node_names_are_taken(value):
    assert identifiers.node(value) == value and identifiers.is_node(value)


@pytest.mark.parametrize('value', HOSTILE)
def test_no_shell_or_host_list_syntax_is_a_node_name(value):
    with pytest.raises(identifiers.BadIdentifier):
        identifiers.node(value)
    assert not identifiers.is_node(value)


@pytest.mark.parametrize('value', ['n1', 'n[1-2]', 'login1,nid[001-002,004]',
                                   'a.b[1-2]', 'n[1-2,7]-ib'])
def test_reframes_abbreviated_node_lists_are_a_test_case_s_nodes(value):
    # a multi-node check's ``node``, as reframe.utility.nodelist_abbrev
    # writes it
    assert identifiers.node_list(value) == value


@pytest.mark.parametrize('value', [v for v in HOSTILE
                                   if v not in ('n[1-4]', 'n1,n2')] + [
    'n[1-', 'n1,,n2', 'n[1-2];id', 'n[$(id)]', ',n1'])
def test_no_shell_syntax_is_a_node_list(value):
    with pytest.raises(identifiers.BadIdentifier):
        identifiers.node_list(value)


@pytest.mark.parametrize('value', ['cluster', 'local', 'default', 'gpu-a100',
                                   '_x'])
def test_reframe_names_are_taken(value):
    assert identifiers.name(value, 'system') == value


@pytest.mark.parametrize('value', HOSTILE + ['1cluster', 'a.b', 'a:b'])
def test_names_reframe_refuses_are_refused(value):
    with pytest.raises(identifiers.BadIdentifier, match='^partition '):
        identifiers.name(value, 'partition')


@pytest.mark.parametrize('value', ['x86_64', 'x86_64_v3', 'icelake',
                                   'zen4', 'neoverse_v1', 'power9le'])
def test_archspec_names_are_taken(value):
    assert identifiers.arch(value) == value


@pytest.mark.parametrize('value', ['icelake]\n  specs: [evil]',
                                   'x: {y: 1}', 'zen4 # c', 'Zen4', ''])
def test_an_arch_that_would_write_yaml_is_refused(value):
    with pytest.raises(identifiers.BadIdentifier):
        identifiers.arch(value)
