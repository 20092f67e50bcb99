'''Which measured figures a node could have delivered at all.

A broken timer does not only give NaN or +inf (:mod:`.measurement`): a
region timed as 1e-300 s gives a bandwidth of 1e300 MB/s, a time per
access of 1e-300 ns. Read as a number, such a figure is the best the
fleet ever saw, "improved" after an upgrade, and the median it joins is
no longer the fleet's. A figure beyond what any node could physically
deliver is **no measurement**, as +inf is: :func:`why_not` says why, and
every reader of figures (:func:`..results.runs.figures_of`) leaves it out
of every comparison and names it.

The bounds are physical, per hardware thread of the job's nodes (a
node's ``cpus``, as its probe recorded them in ``node_hardware``, times
its nodes), each rounded up far beyond any machine sold, so that no real
figure comes near one (``tests/unit/tools/results/test_plausible.py``
holds every figure of the seed papers, ``reference/published/``, within
them for a node of a single hardware thread):

- a clock: at most :data:`MAX_CLOCK_HZ` (10 GHz; the fastest processor
  sold boosts to 6.2 GHz, and overclocking records under liquid nitrogen
  stay below 9 GHz);
- bytes per second: :data:`MAX_BYTES_PER_CYCLE` (512) per thread and
  cycle of that clock: the widest load and store paths of any core (three
  64-byte loads and two 64-byte stores per cycle, 320 bytes), rounded up;
  a hardware thread adds no port, so counting threads only widens it; HBM
  or GPU memory (5 TB/s a device) stays within eight threads' share;
- floating-point and other operations per second:
  :data:`MAX_OPS_PER_CYCLE` (4096) per thread and cycle: two AVX-512 FMA
  units do 32 double-precision operations a cycle, a Sapphire Rapids
  core's AMX 1024 BF16 or 2048 INT8 ones;
- updates per second (HPCC's GUP/s): an update reads and writes at least
  8 bytes, so at most an eighth of the bytes;
- a time: at least :data:`MIN_SECONDS` (1 ps). A period of the 10 GHz
  clock is 100 ps; the shortest time a figure of this suite reports is a
  loop iteration of one thread, a period divided by the iterations one
  cycle completes (16 with two AVX-512 FMA units: 6 ps).

Where a node's probe recorded no ``cpus``, :data:`UNKNOWN_CPUS` (16384:
more than the largest single-system-image machine, 9216 hardware threads
of an SGI UV 3000) is assumed. A unit :mod:`.units` does not know (``%``,
``cycles``) has no bound here; the fleet comparison still refuses a
figure many orders of magnitude better than its siblings'
(:data:`..fleet.model.IMPLAUSIBLE_GAIN`), post-upgrade one many orders
better than its baseline.
'''

import re

from hpc_acceptance.tools.results import units

#: The fastest clock a figure can come from, in Hz.
MAX_CLOCK_HZ = 10e9

#: Bytes one hardware thread can move in a cycle, at most.
MAX_BYTES_PER_CYCLE = 512

#: Operations (floating-point or others) one hardware thread can complete
#: in a cycle, at most.
MAX_OPS_PER_CYCLE = 4096

#: Bytes an update of memory (HPCC's RandomAccess) reads and writes, at
#: least.
BYTES_PER_UPDATE = 8

#: The shortest time a figure can be, in seconds.
MIN_SECONDS = 1e-12

#: Hardware threads of a node whose probe recorded none.
UNKNOWN_CPUS = 16384

#: The most a hardware thread can deliver of each rate, per second.
PER_THREAD = {
    'B/s': MAX_CLOCK_HZ * MAX_BYTES_PER_CYCLE,
    'FLOP/s': MAX_CLOCK_HZ * MAX_OPS_PER_CYCLE,
    'op/s': MAX_CLOCK_HZ * MAX_OPS_PER_CYCLE,
    'UP/s': MAX_CLOCK_HZ * MAX_BYTES_PER_CYCLE / BYTES_PER_UPDATE,
}

_CPUS = re.compile(r'(?:^|;)\s*cpus=(\d+)\s*(?:;|$)')


def threads(case):
    '''The hardware threads a test case's job ran on, as far as its record
    tells: each node's ``cpus`` (``node_hardware``, else
    :data:`UNKNOWN_CPUS`) times its nodes (``job_nodelist``, else its
    tasks: each on a node of its own, at most).'''
    match = _CPUS.search(str(case.get('node_hardware') or ''))
    cpus = int(match[1]) if match and int(match[1]) > 0 else UNKNOWN_CPUS
    nodes = case.get('job_nodelist')
    if isinstance(nodes, list) and nodes:
        count = len(nodes)
    else:
        tasks = case.get('num_tasks')
        count = tasks if isinstance(tasks, int) and tasks > 1 else 1

    return cpus * count


def limit(unit, case):
    '''``(kind, bound)`` in ``unit``: ``('at most', x)`` for a rate or a
    clock, ``('at least', x)`` for a time, ``None`` where there is no
    bound (a unit :mod:`.units` does not know).'''
    parsed = units.parse(unit)
    if parsed is None:
        return None

    quantity, scale = parsed
    if quantity == 's':
        return 'at least', MIN_SECONDS / scale

    if quantity == 'Hz':
        return 'at most', MAX_CLOCK_HZ / scale

    return 'at most', PER_THREAD[quantity] * threads(case) / scale


def why_not(value, unit, case):
    '''Why ``value`` (a measurement, :mod:`.measurement`) in ``unit`` of
    test case ``case`` is beyond what its nodes could deliver, or ``None``
    if it is not: ``implausible: 1e+300 MB/s, above the 1.3e+14 MB/s 256
    hardware thread(s) can move``.'''
    bound = limit(unit, case)
    if bound is None or value == 0:
        # a figure of 0 is the worst there is, judged as such
        return None

    kind, edge = bound
    if kind == 'at least' and value < edge:
        return (f'implausible: {value:.3g} {unit}, below {edge:.3g} {unit}, '
                f'the shortest time a node can measure')

    if kind == 'at most' and value > edge:
        what = ('the fastest clock there is' if units.parse(unit)[0] == 'Hz'
                else f'what {threads(case)} hardware thread(s) can deliver')
        return (f'implausible: {value:.3g} {unit}, above {edge:.3g} {unit}, '
                f'{what}')

    return None
