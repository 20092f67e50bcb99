'''What an NPB benchmark can run on: process counts and memory per class.

Process counts (NPB3.4-MPI ``README.install``): BT and SP decompose the
grid over a square grid of processes and run on the largest square below
any other count, leaving ranks idle; CG, FT, IS, LU and MG need a power of
two (CG, IS and LU stop with an error, FT does not verify, MG leaves ranks
idle). EP takes any count; the checks give it the power-of-two counts of
the others, so its figures line up with theirs. Counts go up to
:data:`MAX_PROCESSES`.

Memory: the resident size of every benchmark and class was measured with
NPB 3.4 (gfortran 12, Open MPI 4.1.4, x86_64): the peak ``VmHWM`` of a
one-rank run for classes S to C, and of four-rank runs for A and B. A run
needs its class's data, spread over the ranks, plus :data:`RANK_OVERHEAD`
per rank (MPI library, buffers, halo copies: 14 to 28 MiB measured). Class
D was not run here; its data is class C's scaled by the growth of the
problem (grid points, matrix non-zeros or keys). A node may fill
:data:`USABLE_FRACTION` of its memory; the rest is the operating system's.
'''

import math
from dataclasses import dataclass

BENCHMARKS = ('bt', 'cg', 'ep', 'ft', 'is', 'lu', 'mg', 'sp')
CLASSES = ('S', 'W', 'A', 'B', 'C', 'D')

#: Largest process count a check is generated for.
MAX_PROCESSES = 256

#: Memory of one rank beyond its share of the data.
RANK_OVERHEAD = 32 * 2**20

#: Share of a node's memory a run may use.
USABLE_FRACTION = 0.9

_SQUARE = ('bt', 'sp')

# Peak resident KiB of one rank, measured, minus the 16 MiB an idle rank
# occupies (EP's footprint: its data is a few arrays of 2^16 numbers).
_RANK_BASE_KIB = 16 * 1024
_MEASURED_KIB = {
    'bt': {'S': 14324, 'W': 21208, 'A': 115944, 'B': 412224, 'C': 1580652},
    'cg': {'S': 14276, 'W': 31560, 'A': 71872, 'B': 424348, 'C': 1079468},
    'ep': {'S': 16216, 'W': 16288, 'A': 16348, 'B': 16252, 'C': 16268},
    'ft': {'S': 14364, 'W': 44260, 'A': 474428, 'B': 1850972,
           'C': 5258816},
    'is': {'S': 13304, 'W': 26100, 'A': 112096, 'B': 407212, 'C': 1586708},
    'lu': {'S': 14232, 'W': 21840, 'A': 59316, 'B': 188260, 'C': 696376},
    'mg': {'S': 14376, 'W': 72788, 'A': 460448, 'B': 460508, 'C': 3518272},
    'sp': {'S': 14356, 'W': 31128, 'A': 99136, 'B': 345432, 'C': 1314836},
}

# How the problem grows from class C to D (NPB's setparams.c): grid points
# for BT, SP, LU (162^3 -> 408^3), MG (512^3 -> 1024^3) and FT
# (512x512x512 -> 2048x1024x1024); non-zeros na*(nonzer+1)^2 for CG
# (150000*16^2 -> 1500000*22^2); keys for IS (2^27 -> 2^31).
_GROWTH_C_TO_D = {
    'bt': (408 / 162) ** 3,
    'sp': (408 / 162) ** 3,
    'lu': (408 / 162) ** 3,
    'mg': 8.0,
    'ft': 2048 * 1024 * 1024 / 512**3,
    'cg': 1500000 * 22**2 / (150000 * 16**2),
    'is': 2.0**31 / 2.0**27,
    'ep': 1.0,
}


def _is_power_of_two(n):
    return n >= 1 and n & (n - 1) == 0


def _is_square(n):
    return n >= 1 and math.isqrt(n) ** 2 == n


def accepts(benchmark, num_procs):
    '''Whether ``benchmark`` runs on all of ``num_procs`` ranks.'''
    if benchmark in _SQUARE:
        return _is_square(num_procs)

    return _is_power_of_two(num_procs)


def check_name(benchmark):
    '''``NpbCgCheck`` for ``cg``: the class name of the benchmark's check,
    which keys its stored results and reference entries and selects it
    (``-n``, ``-S <name>.npb_class=W``).'''
    return f'Npb{benchmark.capitalize()}Check'


def process_counts(benchmark):
    '''The process counts the checks run ``benchmark`` on, ascending.'''
    if benchmark not in BENCHMARKS:
        raise ValueError(f'unknown NPB benchmark {benchmark!r} (known: '
                         f'{", ".join(BENCHMARKS)})')

    return [n for n in range(1, MAX_PROCESSES + 1) if accepts(benchmark, n)]


def data_bytes(benchmark, npb_class):
    '''Bytes of the benchmark's data for ``npb_class``, over all ranks.'''
    measured = _MEASURED_KIB[benchmark]
    if npb_class == 'D':
        kib = (measured['C'] - _RANK_BASE_KIB) * _GROWTH_C_TO_D[benchmark]
    else:
        kib = measured[npb_class] - _RANK_BASE_KIB

    return max(0, int(kib * 1024))


@dataclass(frozen=True)
class MemoryFit:
    fits: bool
    #: bytes one node needs
    per_node: int
    #: the figures behind the verdict, for the skip message
    reason: str


def memory_fit(benchmark, npb_class, num_procs, *, nodes, node_memory):
    '''Whether a run fits in ``nodes`` nodes of ``node_memory`` bytes.'''
    data = data_bytes(benchmark, npb_class)
    ranks_per_node = math.ceil(num_procs / nodes)
    per_node = math.ceil(data / nodes) + ranks_per_node * RANK_OVERHEAD
    usable = int(node_memory * USABLE_FRACTION)
    gib = 2**30
    reason = (
        f'NPB {benchmark.upper()} class {npb_class} on {num_procs} rank(s) '
        f'needs about {per_node / gib:.1f} GiB per node '
        f'({data / gib:.1f} GiB of data over {nodes} node(s) + '
        f'{ranks_per_node} rank(s) x {RANK_OVERHEAD // 2**20} MiB), '
        f'{"within" if per_node <= usable else "more than"} the '
        f'{usable / gib:.1f} GiB usable of a node\'s '
        f'{node_memory / gib:.1f} GiB (extras.memory_bytes, '
        f'{USABLE_FRACTION:.0%} usable)'
    )
    return MemoryFit(per_node <= usable, per_node, reason)
