'''The node a job ran on, its Turbo and SMT state, its nominal clock,
the CPUs and cores it has, its CPUs' clocks, NUMA distances and CPU flags,
as ``node_state.sh`` reports them.

The same script answers on the ReFrame host (to decide, for local
partitions, which variants can run) and in every job (to verify the state a
variant actually ran in, the CPUs the job was given, and to say which node
that was).
'''

import os
import re
import subprocess
from dataclasses import dataclass
from typing import Optional

#: The probe: POSIX sh, so compute nodes need nothing but a shell.
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      'node_state.sh')

_LINE = re.compile(r'^(?P<name>turbo|smt) (?P<state>on|off|unknown)'
                   r'(?: (?P<detail>.*))?$')
_NODE = re.compile(r'^node (?P<name>\S+)', re.MULTILINE)
_SOFTWARE = re.compile(r'^software (?P<name>\w+) (?P<version>.*\S)',
                       re.MULTILINE)
_HARDWARE = re.compile(r'^hardware (?P<name>\w+) (?P<value>.*\S)',
                       re.MULTILINE)
_TOPOLOGY = re.compile(r'^topology (?:(?P<cpus>\d+) (?P<cores>\d+)|unknown)'
                       r' ?(?P<detail>.*)$', re.MULTILINE)
_ALLOWED = re.compile(r'^allowed (?P<cpus>[\d,-]+) (?P<mems>[\d,-]+|-)'
                      r'(?: .*)?$', re.MULTILINE)
_NOMINAL = re.compile(r'^nominal_khz (?:(?P<khz>\d+)|unknown) ?'
                      r'(?P<detail>.*)$', re.MULTILINE)


class NodeStateError(ValueError):
    '''The probe's output is missing or garbled.'''


@dataclass(frozen=True)
class State:
    #: ``on``, ``off`` or ``unknown``
    value: str
    #: where it was read, or why it is unknown
    detail: str


def parse(text, source='node state'):
    '''``{'turbo': State, 'smt': State}`` from the probe's output.'''
    states = {}
    for line in text.splitlines():
        match = _LINE.match(line.strip())
        if match:
            states[match['name']] = State(match['state'],
                                          match['detail'] or '')

    missing = {'turbo', 'smt'} - set(states)
    if missing:
        raise NodeStateError(f'{source}: no {" or ".join(sorted(missing))} '
                             f'line (was the probe run?)')

    return states


@dataclass(frozen=True)
class Nominal:
    #: GHz, or ``None`` where the node does not state it
    ghz: Optional[float]
    #: where it was read, or why it is unknown
    detail: str


def nominal_clock(text):
    '''The node's nominal clock (:class:`Nominal`) from the probe's
    output; unknown where the output has no ``nominal_khz`` line.'''
    match = _NOMINAL.search(text)
    if match is None:
        return Nominal(None, 'the probe did not report it')

    ghz = int(match['khz']) / 1e6 if match['khz'] else None
    return Nominal(ghz, match['detail'])


@dataclass(frozen=True)
class Topology:
    #: CPUs (hardware threads) and cores, or ``None`` where unknown
    cpus: Optional[int]
    cores: Optional[int]
    #: where it was read, or why it is unknown
    detail: str


def topology(text):
    '''The CPUs and cores of the node (:class:`Topology`) from the probe's
    output; unknown where the output has no ``topology`` line.'''
    match = _TOPOLOGY.search(text)
    if match is None:
        return Topology(None, None, 'the probe did not report it')

    if match['cpus'] is None:
        return Topology(None, None, match['detail'])

    return Topology(int(match['cpus']), int(match['cores']), match['detail'])


def allowed_cpus(text):
    '''The CPUs the job that ran the probe may use (its ``allowed`` line:
    its cgroup's cpuset and affinity), or ``None`` where the output does
    not say.'''
    match = _ALLOWED.search(text)
    if match is None:
        return None
    try:
        return _cpu_list(match['cpus'])
    except ValueError:
        return None


def node_name(text):
    '''The node the probe ran on: the scheduler's name for it where the
    job knows it (``SLURMD_NODENAME``), else its host name without the
    domain; ``None`` if the output has no ``node`` line.'''
    match = _NODE.search(text)
    return match['name'] if match else None


def software(text):
    '''``name=version; ...`` of the probe's ``software`` lines (kernel,
    BIOS, MPI, compiler: what the node ran), in the probe's order.'''
    return '; '.join(f'{m["name"]}={m["version"].replace(";", ",")}'
                     for m in _SOFTWARE.finditer(text))


def hardware(text):
    '''``cpu=<model>; cpus=N; cores=N; memory_kb=N`` of what the probe read
    of the node (its ``hardware`` and ``topology`` lines; those it could
    not read left out): a fleet run compares only nodes that agree.'''
    fields = [(m['name'], m['value'].replace(';', ','))
              for m in _HARDWARE.finditer(text)]
    counts = topology(text)
    if counts.cpus is not None:
        fields[1:1] = [('cpus', counts.cpus), ('cores', counts.cores)]

    return '; '.join(f'{name}={value}' for name, value in fields)


_CPUFREQ = re.compile(
    r'^cpufreq (?P<max>\d+) (?P<base>\d+|-) (?P<cpus>[\d,]+)$', re.MULTILINE)
_DISTANCE = re.compile(r'^numa_distance (?P<node>\d+) (?P<cpus>[\d,-]+|-) '
                       r'(?P<row>[\d ]+?)\s*$', re.MULTILINE)
_FLAGS = re.compile(r'^cpu_flags (?P<flags>.*\S)', re.MULTILINE)


def frequencies(text):
    '''``{cpu: (max kHz, base kHz or None)}`` of the probe's ``cpufreq``
    lines; ``None`` where the node has no cpufreq driver.'''
    found = {}
    for match in _CPUFREQ.finditer(text):
        base = None if match['base'] == '-' else int(match['base'])
        for cpu in match['cpus'].split(','):
            found[int(cpu)] = (int(match['max']), base)

    return found or None


@dataclass(frozen=True)
class NumaNode:
    #: its CPUs (none for a node of memory only)
    cpus: frozenset
    #: ``{node: distance}`` to every node, itself included
    distances: dict


def _cpu_list(text):
    cpus = set()
    for part in text.split(','):
        if part and part != '-':
            first, _, last = part.partition('-')
            cpus.update(range(int(first), int(last or first) + 1))
    return frozenset(cpus)


def numa_distances(text):
    '''``{node: NumaNode}`` of the probe's ``numa_distance`` lines (each
    row lists the distances to the nodes in ascending order, as the kernel
    writes ``nodeN/distance``); ``None`` where the node lists none, or rows
    that do not fit its nodes.'''
    rows = {int(m['node']): (m['cpus'], [int(d) for d in m['row'].split()])
            for m in _DISTANCE.finditer(text)}
    nodes = sorted(rows)
    if not rows or any(len(row) != len(nodes) for _, row in rows.values()):
        return None

    return {node: NumaNode(_cpu_list(cpus), dict(zip(nodes, row)))
            for node, (cpus, row) in rows.items()}


def cpu_flags(text):
    '''The CPU's flags (x86) or Features (ARM) of ``/proc/cpuinfo``, as
    the probe read them; ``None`` where it did not.'''
    match = _FLAGS.search(text)
    return frozenset(match['flags'].split()) if match else None


_probed_here = None


def probe_text_here(env=None):
    '''The probe's output on this host; run once per process (the node a
    ReFrame run starts on does not change under it), or each time with an
    ``env`` of its own (tests: fake trees).'''
    global _probed_here
    if env is None and _probed_here is not None:
        return _probed_here

    done = subprocess.run(['sh', SCRIPT], capture_output=True, text=True,
                          env=env)
    if env is None:
        _probed_here = done.stdout

    return done.stdout


def probe_here(env=None):
    '''Run the probe on this host: its Turbo and SMT states.'''
    return parse(probe_text_here(env), SCRIPT)
