'''Telling that a node's topology changed: a BIOS setting that turns SMT off
or disables cores, or a node replaced by another kind.

The checks size themselves from the partition's processor description
(cores, hardware threads per core, caches), which is detected once: by
``reframe --detect-host-topology=FILE`` on a compute node, by ReFrame itself
into ``var/topology/`` (``general.remote_detect``), or, on the embedded
default, each time ReFrame starts. Two things can then disagree:

- the node a job ran on and the description: the job's probe
  (``node_state.sh``) counts the CPUs and cores the node has now, as
  ReFrame's detection counts them; different counts mean the description
  is stale (:func:`live_problem`);
- the description and the reference file: the inputs a check sizes from
  the description (its ``topology_fields``: threads, ranks) differ from
  those the references were measured with, so the node the references were
  measured on had another topology (:func:`reference_problem`).

Either says so, and what to do, instead of a plain identity mismatch.
'''

import os

import reframe.core.runtime as runtime

from hpc_acceptance.core import identity


def topology_prefix():
    '''Where ReFrame keeps the topologies it detected on remote nodes.'''
    return runtime.runtime().get_option('general/0/topology_prefix')


def described(info):
    '''``(CPUs, cores, CPUs per core)`` of a processor description, or
    ``None`` where it does not count them. The cores are counted as the
    job's probe counts them, one per distinct ``cores`` mask where the
    description lists them: ``num_cpus // num_cpus_per_core`` counts a
    node with offline CPUs or with cores of one and two hardware threads
    (a hybrid CPU) wrong.'''
    cpus = (info or {}).get('num_cpus')
    per_core = (info or {}).get('num_cpus_per_core')
    if not cpus or not per_core:
        return None

    masks = ((info.get('topology') or {}).get('cores')) or []
    return cpus, len(set(masks)) or cpus // per_core, per_core


def live_problem(live, info):
    '''The message for a node whose CPUs and cores (``live``, a
    :class:`~hpc_acceptance.core.node_state.Topology`) are not those of
    the processor description ``info``; ``None`` where they are, or where
    either is unknown.'''
    counted = described(info)
    if live.cpus is None or counted is None:
        return None

    cpus, cores, per_core = counted
    if (live.cpus, live.cores) == (cpus, cores):
        return None

    return (f'the node\'s topology changed since it was detected: the node '
            f'has {live.cpus} CPUs on {live.cores} cores '
            f'({live.cpus // live.cores} per core), the partition\'s '
            f'processor description {cpus} on {cores} ({per_core} per core)')


def redetect(system, partition):
    '''How to detect the topology of ``system:partition`` again.'''
    detected = os.path.join(topology_prefix(), f'{system}-{partition}',
                            'processor.json')
    if os.path.exists(detected):
        return (f'delete {detected}, which ReFrame detected on a node: it '
                f'detects it again')

    return ('reframe --detect-host-topology=FILE on a compute node, into the '
            'file the partition\'s processor description is read from')


def reference_problem(mismatch, topology_fields, info):
    '''For an :class:`~hpc_acceptance.core.references.IdentityMismatch`:
    the message that the node's topology changed since the references were
    measured, where an entry differs from the run in an input the check
    sized from the processor description (``topology_fields``); ``None``
    otherwise.'''
    entries = [key for key, fields in mismatch.differing.items()
               if set(fields) & set(topology_fields)]
    if not entries:
        return None

    found = '; '.join(
        f'[{", ".join(identity.differences(key, mismatch.value))}]'
        for key in entries)
    counted = described(info)
    now = (f' ({counted[1]} cores, {counted[2]} per core now)'
           if counted else '')
    return (f'{mismatch.where}: the node\'s topology changed since the '
            f'references were measured: the inputs sized from the processor '
            f'description{now} differ ({found}); this run: '
            f'{mismatch.value!r}. Propose references for the nodes as they '
            f'are (hpc-acceptance propose-references); if they did not '
            f'change, their description is wrong: re-detect it (reframe '
            f'--detect-host-topology=FILE on a compute node)')
