'''What a compute node says about itself, for ``hpc-acceptance new-system``:
its processor topology, detected by ReFrame itself
(``reframe --detect-host-topology``, the file ReFrame reads from its
``topology_prefix``), its Turbo and SMT state (``node_state.sh``, as the
checks read it) and its memory: that of its NUMA nodes with CPUs (hwloc's
figure, what the checks size by: :mod:`hpc_acceptance.core.numa_memory`),
and ``MemTotal`` of ``/proc/meminfo``, which also counts a GPU's memory
shown as a NUMA node without CPUs.

The probe is one short bash script: run here for ``--scheduler local``, or
as one Slurm job on a node of each partition. Its directory must be on a
file system the compute nodes share, as the checks' stage directories are.
'''

import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from typing import Optional

from hpc_acceptance.core import allowed_view, node_state, numa_memory
from hpc_acceptance.tools.common import identifiers

#: The reframe of this Python's environment: the one the checks run with.
REFRAME = os.path.join(os.path.dirname(sys.executable), 'reframe')

#: The probe's last line: everything before it was written.
DONE = 'probe: done'


class ProbeError(RuntimeError):
    '''The probe did not run or said too little; the message says where
    and what to do.'''


@dataclass(frozen=True)
class NodeFacts:
    host: str
    #: ReFrame's processor description (``processor.json``)
    processor: dict
    #: ``{'turbo': node_state.State, 'smt': node_state.State}``
    state: dict
    #: ``MemTotal`` of ``/proc/meminfo``, in bytes
    memtotal_bytes: int
    #: where the probe ran: ``job 12 on n1`` or ``this host``
    where: str
    #: the topology file ReFrame wrote
    topology_file: str
    #: its NUMA nodes (:class:`~hpc_acceptance.core.numa_memory.NumaNode`,
    #: their CPUs as ``cpulist`` lists them), ``()`` where sysfs has none
    numa_nodes: tuple = ()
    #: ``MemFree`` in bytes, and the NUMA nodes possible but not online
    memfree_bytes: Optional[int] = None
    offline_nodes: tuple = ()

    def _usable(self):
        return numa_memory.usable(self.numa_nodes, allowed_view.Allowed(),
                                  self.memtotal_bytes, self.offline_nodes,
                                  self.memfree_bytes)

    @property
    def memory_bytes(self):
        '''What the checks size by (:func:`.numa_memory.usable`, as the
        embedded default reads it): the memory of the NUMA nodes with CPUs,
        no more than ``MemTotal``.'''
        return self._usable().memory_bytes or self.memtotal_bytes

    def memory_source(self):
        '''Where :attr:`memory_bytes` was read, and why not ``MemTotal``
        where they differ.'''
        usable = self._usable()
        if usable.memory_bytes == self.memtotal_bytes or not usable.why:
            return f'MemTotal of /proc/meminfo on {self.host}'
        return (f'the NUMA nodes with CPUs of {self.host} (hwloc\'s '
                f'figure): {"; ".join(usable.why)}')


def script(topology_file):
    '''The probe: prints ``host``, ``memtotal_kb``, ``memfree_kb``, a
    ``numa_node <node> <CPU list or -> <MemTotal kB>`` line per NUMA node,
    ``numa_offline`` (possible, not online) and node_state.sh's lines,
    writes ReFrame's topology to ``topology_file``.

    ReFrame runs with its builtin configuration: the node needs nothing
    of the site's configuration to describe itself.
    '''
    log = f'{topology_file}.log'
    return '\n'.join([
        '#!/bin/bash',
        '# hpc-acceptance new-system: what this node says about itself',
        'set -euo pipefail',
        'echo "host $(hostname)"',
        "awk '/^Mem(Total|Free):/ {sub(/:$/, \"\", $1); "
        "print tolower($1) \"_kb\", $2}' /proc/meminfo",
        'for d in /sys/devices/system/node/node[0-9]*; do',
        '    if [ -r "$d/meminfo" ]; then',
        '        c=$(tr -d \'\\000[:space:]\' < "$d/cpulist" 2>/dev/null '
        '|| true)',
        '        echo "numa_node ${d##*/node} ${c:--} $(sed -n '
        '\'s/.*MemTotal:[[:space:]]*\\([0-9]*\\) kB/\\1/p\' '
        '"$d/meminfo")"',
        '    fi',
        'done',
        'n=/sys/devices/system/node',
        'if [ -r "$n/possible" ] && [ -r "$n/online" ]; then',
        '    echo "numa_offline $(cat "$n/possible") $(cat "$n/online")"',
        'fi',
        f'sh {shlex.quote(node_state.SCRIPT)}',
        f'env -u RFM_CONFIG_FILES -u RFM_SYSTEM {shlex.quote(REFRAME)} '
        f'--detect-host-topology={shlex.quote(topology_file)} '
        f'> {shlex.quote(log)} 2>&1',
        f'echo "{DONE}"',
        '',
    ])


def parse(output, topology_file, where):
    '''The :class:`NodeFacts` of the probe's ``output`` and topology file.'''
    if DONE not in output:
        log = f'{topology_file}.log'
        detail = ''
        if os.path.exists(log):
            with open(log) as fp:
                detail = f'; reframe said: {fp.read().strip()[-1000:]}'

        raise ProbeError(f'the probe ({where}) stopped before its end: '
                         f'{output.strip()[-1000:] or "no output"}{detail}')

    fields = dict(line.split(' ', 1) for line in output.splitlines()
                  if line.startswith(('host ', 'memtotal_kb ',
                                      'memfree_kb ', 'numa_offline ')))
    with open(topology_file) as fp:
        processor = json.load(fp)

    try:
        # the files written name both: a host or an arch of another form
        # would be code or keys of their own there
        host = identifiers.node(fields['host'].strip(), 'host name')
        identifiers.arch(processor.get('arch') if isinstance(processor, dict)
                         else None, f'the processor.arch of {topology_file}')
    except identifiers.BadIdentifier as err:
        raise ProbeError(f'the probe ({where}): {err}') from None

    return NodeFacts(host=host, processor=processor,
                     state=node_state.parse(output, where),
                     memtotal_bytes=int(fields['memtotal_kb']) * 1024,
                     where=where, topology_file=topology_file,
                     numa_nodes=_numa_nodes(output),
                     memfree_bytes=(int(fields['memfree_kb']) * 1024
                                    if 'memfree_kb' in fields else None),
                     offline_nodes=_offline(fields.get('numa_offline')))


def _numa_nodes(output):
    '''The probe's ``numa_node`` lines as :class:`.numa_memory.NumaNode`
    (their kinds are not asked: only their memory and whether they list
    CPUs).'''
    found = []
    for line in output.splitlines():
        parts = line.split()
        if parts[:1] != ['numa_node'] or len(parts) != 4 or \
                not parts[1].isdigit() or not parts[3].isdigit():
            continue
        cpus = (frozenset() if parts[2] == '-' else
                allowed_view.parse_list(parts[2], 'the probe\'s numa_node'))
        found.append(numa_memory.NumaNode(int(parts[1]), cpus,
                                          int(parts[3]) * 1024))
    return tuple(sorted(found, key=lambda n: n.node))


def _offline(text):
    '''NUMA nodes possible but not online, of ``numa_offline POSSIBLE
    ONLINE``.'''
    parts = (text or '').split()
    if len(parts) != 2:
        return ()
    return tuple(sorted(allowed_view.parse_list(parts[0], 'possible') -
                        allowed_view.parse_list(parts[1], 'online')))


def probe_here(workdir):
    '''Run the probe on this host.'''
    topology_file = os.path.join(workdir, 'here.json')
    done = subprocess.run(['bash', '-c', script(topology_file)],
                          capture_output=True, text=True)
    return parse(done.stdout + done.stderr, topology_file, 'this host')


def probe_partition(workdir, partition, timeout):
    '''Run the probe as one Slurm job on a node of ``partition`` and wait
    for it at most ``timeout`` seconds; the job is cancelled then.'''
    topology_file = os.path.join(workdir, f'{partition}.json')
    script_file = os.path.join(workdir, f'{partition}.sh')
    output = os.path.join(workdir, f'{partition}.out')
    with open(script_file, 'w') as fp:
        fp.write(script(topology_file))

    minutes = max(1, -(-int(timeout) // 60))
    job = subprocess.Popen(
        ['sbatch', '--wait', '--parsable', f'--partition={partition}',
         '--nodes=1', '--ntasks=1', f'--time={minutes}',
         '--job-name=hpc-acceptance-probe', f'--output={output}',
         f'--chdir={workdir}', script_file],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    started = time.monotonic()
    jobid = job.stdout.readline().strip().split(';')[0]
    try:
        job.wait(timeout=max(1, timeout - (time.monotonic() - started)))
    except subprocess.TimeoutExpired:
        state = _squeue_state(jobid)
        subprocess.run(['scancel', jobid], capture_output=True)
        # sbatch --wait would notice the cancellation only at its next poll
        job.terminate()
        job.wait()
        raise ProbeError(
            f'the probe job {jobid or "(not submitted)"} did not finish '
            f'on a node of partition {partition} within {timeout:.0f} s '
            f'({state}): free or resume a node of {partition}, or give it '
            f'longer with --probe-timeout'
        ) from None

    if not jobid:
        raise ProbeError(f'sbatch could not submit the probe to partition '
                         f'{partition}: {job.stderr.read().strip()}')

    text = ''
    if os.path.exists(output):
        with open(output) as fp:
            text = fp.read()

    facts = parse(text, topology_file, f'job {jobid} of partition '
                                       f'{partition}')
    return replace(facts, where=f'job {jobid} on {facts.host}')


def _squeue_state(jobid):
    if not jobid:
        return 'not submitted'

    done = subprocess.run(['squeue', '-h', '-j', jobid, '-o', '%T, %r'],
                          capture_output=True, text=True)
    return (f'Slurm says: {done.stdout.strip()}' if done.stdout.strip()
            else 'no longer in the queue')
