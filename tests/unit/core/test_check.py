'''What the base check says when no reference entry has the run's identity
(AcceptanceCheck._check_reference_entry hands ReFrame's lookup
references.identity_key, and a mismatch to topology_change): a node whose
topology changed since the references were measured is told so.'''

import pytest
from reframe.core.exceptions import what

from helpers.descriptions import described
from hpc_acceptance.core import references, topology_change

#: The identity of the references of a two-socket node with SMT: 72 cores,
#: 144 CPUs, one thread per CPU.
MEASURED = 'dependency=in-tree;isa_built=avx2;num_cpus_per_task=72;repeats=5'
WHERE = 'MemoryDaxpyCheck %threads=all_cores'


def looked_up(run_identity):
    return references.identity_key('cluster.yaml', WHERE, [MEASURED],
                                   run_identity)


def mismatch(run_identity):
    with pytest.raises(references.IdentityMismatch) as failed:
        looked_up(run_identity)

    return failed.value


def info(cores, per_core):
    return {'num_cpus': cores * per_core, 'num_cpus_per_core': per_core}


def test_the_entry_of_the_run_is_found_before_the_isa_is_known():
    assert looked_up('dependency=in-tree;isa_built=?;num_cpus_per_task=72;'
                     'repeats=5') == MEASURED


def test_threads_sized_from_another_topology_say_the_topology_changed():
    # SMT was on when the references were measured, 72 threads; it is off
    # since (a BIOS change), so on 36 cores the check runs 36 threads
    found = mismatch('dependency=in-tree;isa_built=?;num_cpus_per_task=36;'
                     'repeats=5')
    message = topology_change.reference_problem(
        found, ('num_cpus_per_task',), info(36, 1))
    assert message.startswith(
        f"cluster.yaml: {WHERE}: the node's topology changed since the "
        f"references were measured: the inputs sized from the processor "
        f"description (36 cores, 1 per core now) differ ([num_cpus_per_task: "
        f"reference 72, this run 36])")
    assert 'propose-references' in message


def test_other_inputs_are_an_identity_mismatch():
    found = mismatch('dependency=in-tree;isa_built=?;num_cpus_per_task=72;'
                     'repeats=1')
    # ReFrame names the error by its class in the failure reason
    assert what(type(found), found, None).startswith(
        'identity mismatch: cluster.yaml: ')
    assert '[repeats: reference 5, this run 1]' in str(found)
    assert topology_change.reference_problem(
        found, ('num_cpus_per_task',), info(72, 2)) is None


def test_a_description_counts_its_cores_as_the_job_s_probe_does():
    # 6 P-cores of 2 threads and 8 E-cores: 20 CPUs, 14 cores; ReFrame's
    # num_cpus // num_cpus_per_core (20 // 1) would say 20
    cores = [{c, c + 20} for c in range(6)] + [{c} for c in range(6, 14)]
    info = described(cores, [set().union(*cores)])
    assert info['num_cpus_per_core'] == 1
    assert topology_change.described(info) == (20, 14, 1)
