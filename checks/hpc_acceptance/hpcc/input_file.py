'''Writing HPCC's input file, ``hpccinf.txt``.

hpcc reads ``hpccinf.txt`` from its working directory. HPL's problem and
process grid decide the size of every other component (HPCC derives their
memory from HPL's matrix), so the file has one problem size, one block
size and one grid:

- N: the matrix takes ``memory_fraction`` of the memory of the nodes used,
  ``N = sqrt(fraction * memory / 8)``, rounded down to a multiple of NB,
  but at least :data:`MIN_BLOCKS` blocks in each direction per process of
  the grid (``N >= MIN_BLOCKS * NB * Q``): HPL deals the matrix out in
  NB x NB blocks, and a process holding one block or two has no work to
  overlap with the panel broadcasts, so a small fraction on many processes
  (the nightly's 0.005 on a 32-core node of 4 GiB) would time the
  communication. Raising N past :data:`MAX_FRACTION` of the memory is
  refused instead;
- NB: the block size, a variable of the check;
- P x Q: the number of processes, as square as possible with P <= Q.

The other HPL parameters are those of HPCC's distributed template
(``_hpccinf.txt``); PTRANS runs its default problems only.
'''

import math

INPUT_FILE = 'hpccinf.txt'
OUTPUT_FILE = 'hpccoutf.txt'

_TEMPLATE = '''\
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
{n:<12d} Ns
1            # of NBs
{nb:<12d} NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
{p:<12d} Ps
{q:<12d} Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
'''


#: Blocks of the matrix each process holds at least, in each direction of
#: the grid.
MIN_BLOCKS = 4

#: The most of the memory a matrix raised to :data:`MIN_BLOCKS` may take
#: (a full HPL run's share).
MAX_FRACTION = 0.8


class InputError(ValueError):
    '''The requested HPL problem cannot be set up; the message says why.'''


def problem_size(memory_bytes, fraction, block_size, grid=(1, 1)):
    '''HPL's N: a matrix of doubles filling ``fraction`` of
    ``memory_bytes``, rounded down to a multiple of ``block_size``, and at
    least :data:`MIN_BLOCKS` blocks per process in each direction of
    ``grid`` (``(P, Q)``).

    :raises InputError: if that leaves less than one block, or needs more
        than :data:`MAX_FRACTION` of the memory.
    '''
    if not 0 < fraction <= 1:
        raise InputError(f'memory fraction {fraction} is not in (0, 1]')

    n = math.isqrt(int(fraction * memory_bytes) // 8)
    n -= n % block_size
    if n < block_size:
        raise InputError(
            f'{fraction} of {memory_bytes} bytes holds a matrix of order '
            f'{math.isqrt(int(fraction * memory_bytes) // 8)}, less than one '
            f'block of {block_size}: raise memory_fraction or lower '
            f'block_size'
        )

    least = MIN_BLOCKS * block_size * max(grid)
    if n < least and 8 * least ** 2 > MAX_FRACTION * memory_bytes:
        raise InputError(
            f'{MIN_BLOCKS} blocks of {block_size} per process in each '
            f'direction of the {grid[0]}x{grid[1]} grid need N={least}, '
            f'{8 * least ** 2} bytes: more than {MAX_FRACTION:.0%} of '
            f'{memory_bytes} bytes; lower block_size')

    return max(n, least)


def blocks_per_process(n, block_size, grid):
    '''``'4x8'``: the blocks of an ``n`` matrix each process of ``grid``
    (``(P, Q)``) holds at least, rows by columns.'''
    blocks = n // block_size
    p, q = grid
    return f'{blocks // p}x{blocks // q}'


def process_grid(processes):
    '''``(P, Q)`` with ``P * Q == processes``, as square as possible and
    ``P <= Q``.'''
    if processes < 1:
        raise InputError(f'{processes} processes: need at least one')

    p = max(d for d in range(1, math.isqrt(processes) + 1)
            if processes % d == 0)
    return p, processes // p


def render(n, block_size, p, q):
    '''The text of ``hpccinf.txt`` for one problem and one grid.'''
    return _TEMPLATE.format(n=n, nb=block_size, p=p, q=q)
