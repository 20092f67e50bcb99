'''Figure identity: the inputs that produced a figure
(hpc_acceptance.core.identity).'''

import pytest

from hpc_acceptance.core import identity
from hpc_acceptance.core.check import AcceptanceCheck


def test_render_sorts_fields_and_joins_lists():
    text = identity.render({'npb_class': 'C', 'num_tasks': 4,
                            'executable_opts': ['--l1=32768', '--repeats=5']})
    assert text == ('executable_opts=--l1=32768 --repeats=5;npb_class=C;'
                    'num_tasks=4')
    assert identity.parse(text) == {
        'executable_opts': '--l1=32768 --repeats=5', 'npb_class': 'C',
        'num_tasks': '4'}


def test_a_value_with_the_separator_is_refused():
    with pytest.raises(identity.IdentityError, match='binding'):
        identity.render({'binding': 'close;spread'})


def test_an_unparsable_identity_is_quoted():
    with pytest.raises(identity.IdentityError, match="'npb_class'"):
        identity.parse('npb_class')


def test_differences_name_each_input_and_both_values():
    assert identity.differences('npb_class=W;num_tasks=2',
                                'npb_class=C;num_tasks=2') == [
        'npb_class: reference W, this run C']
    assert identity.differences('a=1', 'a=1;b=2') == [
        'b: reference (absent), this run 2']


def test_a_field_not_known_yet_is_not_compared():
    assert identity.matches('isa_built=avx2;n=1', 'isa_built=?;n=1')
    assert not identity.matches('isa_built=avx2;n=1', 'isa_built=sse4.2;n=1')


def test_dependency_kind_drops_the_checkout_specific_path():
    assert identity.dependency_kind('in-tree:/x/var/stage/build') == 'in-tree'
    assert identity.dependency_kind('spack:/env (stream@5.10)') == 'spack'


def test_the_workload_leaves_out_where_the_binary_came_from():
    text = 'dependency=path;isa_built=sse4.2;npb_class=C;num_tasks=4'
    assert identity.workload(text) == 'npb_class=C;num_tasks=4'
    assert identity.workload('') == ''


class SpackKernels:
    '''A memory check once Spack's build of the kernels is resolved.'''
    identity_fields = ('num_cpus_per_task',)
    num_cpus_per_task = 1
    dependency_source = ('spack:/c/spack-envs/local (hpc-acceptance-kernels '
                         'target=icelake)')
    isa_built = 'spack target=icelake'


def test_the_next_run_of_spack_built_kernels_matches_its_references():
    # the references hold what the kernels said after a run (avx512); the
    # next run's entry is looked up before it runs, with the Spack target
    ran = SpackKernels()
    ran.isa_built = 'avx512'
    stored = identity.render(AcceptanceCheck.identity_inputs(
        ran, after_run=True))
    before = identity.render(AcceptanceCheck.identity_inputs(
        SpackKernels(), after_run=False))
    assert stored == 'dependency=spack;isa_built=avx512;num_cpus_per_task=1'
    assert identity.matches(stored, before)
    # once the program has said what it was built for, it is compared
    ran.isa_built = 'sse4.2'
    assert not identity.matches(stored, identity.render(
        AcceptanceCheck.identity_inputs(ran, after_run=True)))
