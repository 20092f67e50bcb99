'''The base check's reference lookup (AcceptanceCheck._check_reference_entry)
on a stand-in for a check: what it says when no reference entry has the
run's identity.'''

from types import SimpleNamespace

import pytest

from hpc_acceptance.core.check import AcceptanceCheck
from hpc_acceptance.core.references import ReferenceFileError

#: References of a two-socket node with SMT: 72 cores, 144 CPUs.
REFERENCES = '''
MemoryDaxpyCheck:
  $index: [$partition, identity]
  'cluster:compute':
    'dependency=in-tree;isa_built=avx2;num_cpus_per_task=72;repeats=5':
      flops: [1000.0, -0.1, null, MFLOP/s]
'''


class MemoryDaxpyCheck(SimpleNamespace):
    '''The stand-in: what the lookup reads of the check.'''


def check_of(tmp_path, run_identity, cores, per_core):
    path = tmp_path / 'cluster.yaml'
    path.write_text(REFERENCES)
    info = {'num_cpus': cores * per_core, 'num_cpus_per_core': per_core}
    return MemoryDaxpyCheck(
        reference_file=str(path), identity=run_identity,
        topology_fields=('num_cpus_per_task',),
        current_partition=SimpleNamespace(
            fullname='cluster:compute', processor=SimpleNamespace(info=info)),
        perf_variables={'flops': SimpleNamespace(unit='MFLOP/s')})


def test_the_entry_of_the_run_is_found(tmp_path):
    check = check_of(tmp_path, 'dependency=in-tree;isa_built=?;'
                     'num_cpus_per_task=72;repeats=5', 72, 2)
    AcceptanceCheck._check_reference_entry(check)


def test_threads_sized_from_another_topology_say_the_topology_changed(
        tmp_path):
    # SMT was on when the references were measured, 72 threads; it is off
    # since (a BIOS change), so on 36 cores the check runs 36 threads
    check = check_of(tmp_path, 'dependency=in-tree;isa_built=?;'
                     'num_cpus_per_task=36;repeats=5', 36, 1)
    with pytest.raises(ReferenceFileError) as failed:
        AcceptanceCheck._check_reference_entry(check)

    message = str(failed.value)
    assert message.startswith(
        f"{tmp_path}/cluster.yaml: MemoryDaxpyCheck.cluster:compute: "
        f"the node's topology changed since the references were measured: "
        f"the inputs sized from the processor description (36 cores, 1 per "
        f"core now) differ ([num_cpus_per_task: reference 72, this run 36])")
    assert 'identity mismatch' not in message
    assert 'propose-references' in message


def test_other_inputs_are_an_identity_mismatch(tmp_path):
    check = check_of(tmp_path, 'dependency=in-tree;isa_built=?;'
                     'num_cpus_per_task=72;repeats=1', 72, 2)
    with pytest.raises(ReferenceFileError,
                       match=r'identity mismatch: .*\[repeats: reference 5, '
                             r'this run 1\]'):
        AcceptanceCheck._check_reference_entry(check)
