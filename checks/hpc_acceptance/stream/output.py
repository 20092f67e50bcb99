'''Reading the output of STREAM: McCalpin's ``stream_c.exe`` and the in-tree
``stream_intree`` (``src/stream``).

Both report copy, scale, add and triad in MB/s (10^6 bytes per second) from
the best of all repetitions but the first; they differ in format:

- McCalpin's prints a header (``Array size = N (elements)``, ``Each kernel
  will be executed K times.``, with OpenMP ``Number of Threads counted =
  T``), a table ``Copy:  <best rate>  <avg>  <min>  <max>`` and
  ``Solution Validates...`` or ``Failed Validation on array ...``;
- the in-tree program prints ``# elements N ...``, ``# ntimes K ...``,
  ``# threads T`` comments, one ``name value unit`` line per kernel and
  ``# validation: passed`` (see :mod:`hpc_acceptance.core.figures`).

:func:`parse` tells them apart and returns the same :class:`StreamRun` for
both; :func:`problems` says what makes a run unusable as a result.
'''

import math
import re
from dataclasses import dataclass, field
from typing import Optional

from hpc_acceptance.core import figures

KERNELS = ('copy', 'scale', 'add', 'triad')

MCCALPIN = 'mccalpin'
IN_TREE = 'in-tree'

_MCCALPIN_BANNER = re.compile(r'^\s*STREAM [Vv]ersion \$Revision: ([\d.]+)',
                              re.MULTILINE)
_IN_TREE_BANNER = '# stream_intree:'

_ARRAY_SIZE = re.compile(r'^\s*Array size\s*=\s*(\d+)', re.MULTILINE)
_BYTES_PER_ELEMENT = re.compile(r'uses (\d+) bytes per (?:array element|'
                                r'DOUBLE PRECISION word)')
_NTIMES = re.compile(r'(?:Each kernel will be executed|You are running each '
                     r'test)\s+(\d+)\s+times')
_THREADS_COUNTED = re.compile(r'^Number of Threads counted\s*=\s*(\d+)',
                              re.MULTILINE)
_RATE = re.compile(r'^(Copy|Scale|Add|Triad):\s+(\S+)\s+\S+\s+\S+\s+\S+\s*$',
                   re.MULTILINE)
_VALIDATES = re.compile(r'^\s*Solution Validates', re.MULTILINE)
_FAILED = re.compile(r'^\s*Failed Validation on array .*$', re.MULTILINE)

_IN_TREE_ELEMENTS = re.compile(r'^# elements (\d+) per array, (\d+) bytes',
                               re.MULTILINE)
_IN_TREE_NTIMES = re.compile(r'^# ntimes (\d+)', re.MULTILINE)
_IN_TREE_THREADS = re.compile(r'^# threads (\d+)', re.MULTILINE)


class StreamOutputError(ValueError):
    '''The text is not the output of either STREAM implementation.'''


@dataclass(frozen=True)
class StreamRun:
    '''What one STREAM run reported.'''

    #: :data:`MCCALPIN` or :data:`IN_TREE`
    implementation: str
    #: Elements per array, or ``None`` if the output does not say
    elements: Optional[int]
    #: Bytes per element (8 for doubles), or ``None``
    bytes_per_element: Optional[int]
    #: Repetitions of every kernel, or ``None``
    ntimes: Optional[int]
    #: Threads the program counted; ``None`` for McCalpin's STREAM built
    #: without OpenMP (it then runs one thread and prints no count)
    threads: Optional[int]
    #: ``{kernel: MB/s}`` for the kernels the output has rates for
    rates: dict = field(default_factory=dict)
    #: The program's own verdict: ``True`` validated, ``False`` failed,
    #: ``None`` no verdict (truncated or crashed run)
    validated: Optional[bool] = None
    #: Why validation failed, in the program's words
    failure: str = ''

    @property
    def array_bytes(self):
        if self.elements is None or self.bytes_per_element is None:
            return None

        return self.elements * self.bytes_per_element


def parse(text, source='<output>'):
    '''The :class:`StreamRun` of either implementation's output.

    :raises StreamOutputError: if ``text`` is neither, naming ``source``.
    '''
    if _IN_TREE_BANNER in text:
        return parse_in_tree(text, source)

    if _MCCALPIN_BANNER.search(text):
        return parse_mccalpin(text, source)

    first = next((line for line in text.splitlines() if line.strip()),
                 '(empty output)')
    raise StreamOutputError(
        f'{source}: not STREAM output (neither McCalpin\'s "STREAM version" '
        f'banner nor {_IN_TREE_BANNER!r}); it starts with {first!r}'
    )


def parse_mccalpin(text, source='<output>'):
    '''The :class:`StreamRun` of McCalpin's STREAM (C or Fortran).'''
    rates = {}
    for match in _RATE.finditer(text):
        kernel = match[1].lower()
        try:
            rates[kernel] = float(match[2])
        except ValueError:
            raise StreamOutputError(
                f'{source}: {match[1]} rate is not a number: {match[2]!r}'
            ) from None

    failures = _FAILED.findall(text)
    if failures:
        validated = False
    elif _VALIDATES.search(text):
        validated = True
    else:
        validated = None

    return StreamRun(
        implementation=MCCALPIN,
        elements=_int(_ARRAY_SIZE, text),
        bytes_per_element=_int(_BYTES_PER_ELEMENT, text),
        ntimes=_int(_NTIMES, text),
        threads=_int(_THREADS_COUNTED, text),
        rates=rates,
        validated=validated,
        failure='; '.join(line.strip() for line in failures),
    )


def parse_in_tree(text, source='<output>'):
    '''The :class:`StreamRun` of ``src/stream``'s ``stream_intree``.'''
    try:
        values = figures.parse_figures(text, source)
    except figures.OutputError as err:
        raise StreamOutputError(str(err)) from None

    rates = {name: fig.value for name, fig in values.items()
             if name in KERNELS and fig.unit == 'MB/s'}
    validated, failure = figures.validation(text)

    elements = _IN_TREE_ELEMENTS.search(text)
    return StreamRun(
        implementation=IN_TREE,
        elements=int(elements[1]) if elements else None,
        bytes_per_element=int(elements[2]) if elements else None,
        ntimes=_int(_IN_TREE_NTIMES, text),
        threads=_int(_IN_TREE_THREADS, text),
        rates=rates,
        validated=validated,
        failure=failure,
    )


def problems(run, *, threads, min_elements=None):
    '''Everything that makes ``run`` unusable as a result, as messages.

    :arg threads: the number of threads the run was meant to use.
    :arg min_elements: the smallest array, in elements, that satisfies
        STREAM's rule (4 x the last-level caches of the cores used); a
        smaller array measured caches, not memory.
    '''
    name = ('McCalpin\'s STREAM' if run.implementation == MCCALPIN
            else 'stream_intree')
    if run.validated is False:
        return [f'{name} failed its own validation: {run.failure}']

    found = []
    if run.validated is None:
        found.append(f'{name} printed no validation verdict (truncated or '
                     f'crashed run?)')

    for kernel in KERNELS:
        rate = run.rates.get(kernel)
        if rate is None:
            found.append(f'no {kernel} rate in the output')
        elif not (math.isfinite(rate) and rate > 0):
            found.append(f'{kernel} rate is not a positive number: {rate}')

    counted = 1 if run.threads is None else run.threads
    if counted != threads:
        if run.threads is None:
            found.append(f'{name} was built without OpenMP (it prints no '
                         f'thread count) but this run needs {threads} '
                         f'threads: build it with OpenMP (Spack: '
                         f'stream+openmp)')
        else:
            found.append(f'{name} ran {counted} threads, expected {threads}')

    if run.ntimes is None:
        found.append(f'{name} did not print its repetitions (NTIMES): what '
                     f'ran cannot be recorded')

    if min_elements is not None and run.elements is None:
        found.append(f'{name} did not print its array size: cannot check '
                     f'it against STREAM\'s 4 x last-level cache rule')
    elif min_elements is not None and run.elements < min_elements:
        found.append(
            f'{name} uses arrays of {run.elements} elements, below STREAM\'s '
            f'rule of 4 x the last-level caches of the cores used '
            f'({min_elements} elements): it would measure caches, not '
            f'memory. ' + (
                f'Rebuild it with STREAM_ARRAY_SIZE >= {min_elements} '
                f'(Spack: stream+openmp stream_array_size={min_elements})'
                if run.implementation == MCCALPIN else
                f'Raise array_elements to at least {min_elements}'
            )
        )

    return found


def _int(pattern, text):
    match = pattern.search(text)
    return int(match[1]) if match else None
