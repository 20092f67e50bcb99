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

from hpc_acceptance.core import node_state

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
    #: bytes of the NUMA nodes with CPUs, or ``None`` where the node has
    #: no NUMA nodes in sysfs
    numa_memory_bytes: Optional[int] = None

    @property
    def memory_bytes(self):
        '''What the checks size by: the memory of the NUMA nodes with CPUs,
        else ``MemTotal``.'''
        return self.numa_memory_bytes or self.memtotal_bytes

    def memory_source(self):
        '''Where :attr:`memory_bytes` was read, and why not ``MemTotal``
        where they differ.'''
        if not self.numa_memory_bytes:
            return f'MemTotal of /proc/meminfo on {self.host}'
        if self.numa_memory_bytes == self.memtotal_bytes:
            return f'the NUMA nodes with CPUs of {self.host} (= MemTotal)'
        return (f'the NUMA nodes with CPUs of {self.host} (hwloc\'s figure); '
                f'MemTotal {self.memtotal_bytes / 2**30:.1f} GiB also '
                f'counts memory no node with CPUs holds (a GPU\'s, HBM or '
                f'CXL memory, an offline node)')


def script(topology_file):
    '''The probe: prints ``host``, ``memtotal_kb``, ``numa_memory_kb``
    (of the NUMA nodes that list CPUs) and node_state.sh's lines, writes
    ReFrame's topology to ``topology_file``.

    ReFrame runs with its builtin configuration: the node needs nothing
    of the site's configuration to describe itself.
    '''
    log = f'{topology_file}.log'
    return '\n'.join([
        '#!/bin/bash',
        '# hpc-acceptance new-system: what this node says about itself',
        'set -euo pipefail',
        'echo "host $(hostname)"',
        "awk '/^MemTotal:/ {print \"memtotal_kb\", $2}' /proc/meminfo",
        'for d in /sys/devices/system/node/node[0-9]*; do',
        '    if [ -n "$(tr -d \'\\000[:space:]\' < "$d/cpulist" '
        '2>/dev/null)" ]; then',
        '        sed -n \'s/.*MemTotal:[[:space:]]*\\([0-9]*\\) kB/\\1/p\' '
        '"$d/meminfo"',
        '    fi',
        "done | awk '{s += $1} END {if (NR) print \"numa_memory_kb\", s}'",
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
                                      'numa_memory_kb ')))
    with open(topology_file) as fp:
        processor = json.load(fp)

    return NodeFacts(host=fields['host'].strip(), processor=processor,
                     state=node_state.parse(output, where),
                     memtotal_bytes=int(fields['memtotal_kb']) * 1024,
                     where=where, topology_file=topology_file,
                     numa_memory_bytes=(
                         int(fields['numa_memory_kb']) * 1024
                         if 'numa_memory_kb' in fields else None))


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
