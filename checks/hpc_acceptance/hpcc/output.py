'''Reading HPCC's ``hpccoutf.txt``.

HPCC runs its components one after the other, each between ``Begin of <X>
section.`` and ``End of <X> section.``, and ends with a ``Summary``
section of ``key=value`` lines (148 keys in HPCC 1.5). Every figure comes
from the summary; HPL's residual check from the HPL section.

HPCC writes ``-1`` for a figure it did not measure: the PingPong and ring
figures of the latency/bandwidth component need two processes or more.
Those are not figures, so :func:`expected_figures` leaves them out of a
one-process run before it starts, and a ``-1`` for a figure that should be
there is a problem, never a value.
'''

import math
import re
from dataclasses import dataclass

SUMMARY = 'Summary'

_SECTION = re.compile(r'^(Begin|End) of (\w+) section\.\s*$', re.MULTILINE)
_SUMMARY_LINE = re.compile(r'^(\w+)=(.*)$')
_HPL_RESULTS = re.compile(
    r'^\s*(\d+) tests completed and (passed|failed) residual checks',
    re.MULTILINE
)
_HPL_RESIDUAL = re.compile(r'^\|\|Ax-b\|\|.*FAILED\s*$', re.MULTILINE)


class HpccOutputError(ValueError):
    '''The output has no usable summary; the message says why.'''


@dataclass(frozen=True)
class Figure:
    #: Key of the summary section
    key: str
    #: Unit of the value in the summary
    unit: str
    #: Measured only with two processes or more (HPCC reports -1 otherwise)
    needs_two_processes: bool = False


def _stream(prefix):
    return {f'{prefix.lower()}_stream_{kernel.lower()}':
            Figure(f'{prefix}STREAM_{kernel}', 'GB/s')
            for kernel in ('Copy', 'Scale', 'Add', 'Triad')}


def _random_access(suffix):
    return {f'{scope.lower()}_random_access{suffix.lower()}':
            Figure(f'{scope}RandomAccess{suffix}_GUPs', 'GUP/s')
            for scope in ('MPI', 'Star', 'Single')}


def _pingpong():
    figures = {}
    for stat in ('Min', 'Avg', 'Max'):
        figures[f'pingpong_latency_{stat.lower()}'] = Figure(
            f'{stat}PingPongLatency_usec', 'us', needs_two_processes=True)
        figures[f'pingpong_bandwidth_{stat.lower()}'] = Figure(
            f'{stat}PingPongBandwidth_GBytes', 'GB/s',
            needs_two_processes=True)

    return figures


def _rings():
    figures = {}
    for name, order in (('natural', 'Naturally'), ('random', 'Randomly')):
        figures[f'{name}_ring_latency'] = Figure(
            f'{order}OrderedRingLatency_usec', 'us', needs_two_processes=True)
        figures[f'{name}_ring_bandwidth'] = Figure(
            f'{order}OrderedRingBandwidth_GBytes', 'GB/s',
            needs_two_processes=True)

    return figures


#: Every figure of an HPCC run: performance variable name -> summary key.
#: "Star" runs the component on every process at once (figure: average per
#: process), "Single" on one process, "MPI" across all of them.
FIGURES = {
    'hpl': Figure('HPL_Tflops', 'Tflop/s'),
    'star_dgemm': Figure('StarDGEMM_Gflops', 'Gflop/s'),
    'single_dgemm': Figure('SingleDGEMM_Gflops', 'Gflop/s'),
    **_stream('Star'),
    **_stream('Single'),
    **_random_access(''),
    **_random_access('_LCG'),
    'ptrans': Figure('PTRANS_GBs', 'GB/s'),
    'mpi_fft': Figure('MPIFFT_Gflops', 'Gflop/s'),
    'star_fft': Figure('StarFFT_Gflops', 'Gflop/s'),
    'single_fft': Figure('SingleFFT_Gflops', 'Gflop/s'),
    **_pingpong(),
    **_rings(),
}


def expected_figures(num_processes):
    '''``{name: Figure}`` a run on ``num_processes`` processes reports.'''
    return {name: figure for name, figure in FIGURES.items()
            if num_processes > 1 or not figure.needs_two_processes}


def _sections(text):
    '''Names of the sections begun and of those ended, in order.'''
    begun, ended = [], []
    for match in _SECTION.finditer(text):
        (begun if match[1] == 'Begin' else ended).append(match[2])

    return begun, ended


def section(text, name):
    '''The text between ``Begin of <name> section.`` and its end (or the
    end of ``text`` if it has none), or ``None`` if it never began.'''
    start = re.search(rf'^Begin of {name} section\.\s*$', text, re.MULTILINE)
    if not start:
        return None

    end = re.search(rf'^End of {name} section\.\s*$', text[start.end():],
                    re.MULTILINE)
    return text[start.end():start.end() + end.start()] if end else \
        text[start.end():]


def parse_summary(text, source='hpccoutf.txt'):
    '''``{key: value text}`` of the summary section.

    :raises HpccOutputError: if the run never reached the end of its
        summary, naming ``source`` and the section HPCC stopped in.
    '''
    begun, ended = _sections(text)
    if SUMMARY not in ended:
        unfinished = [name for name in begun if name not in ended]
        if unfinished:
            where = f'it stopped in its {unfinished[-1]} section'
        elif begun:
            where = f'it stopped after its {begun[-1]} section'
        else:
            where = ('no section began (hpcc did not start, or could not '
                     'read hpccinf.txt)')

        raise HpccOutputError(
            f'{source}: HPCC did not finish: {where}; no complete "Summary" '
            f'section (cut short by a time limit, killed, or crashed?)'
        )

    summary = {}
    for line in section(text, SUMMARY).splitlines():
        match = _SUMMARY_LINE.match(line.strip())
        if match:
            summary[match[1]] = match[2].strip()

    return summary


def figure_value(summary, figure):
    '''The value of ``figure`` in ``summary``; ``None`` where HPCC did not
    measure it (-1) or printed something that is not a finite number.'''
    try:
        value = float(summary[figure.key])
    except (KeyError, ValueError):
        return None

    if value == -1 or not math.isfinite(value):
        return None

    return value


def hpl_residual_problems(text):
    '''What HPL's own residual check says is wrong, as messages.'''
    hpl = section(text, 'HPL')
    if hpl is None:
        return ['no HPL section']

    counts = {kind: int(n) for n, kind in _HPL_RESULTS.findall(hpl)}
    if 'passed' not in counts:
        return ['HPL printed no residual check results']

    found = []
    if counts.get('failed', 0):
        residuals = '; '.join(line.strip() for line in
                              _HPL_RESIDUAL.findall(hpl))
        found.append(f'HPL failed its residual check in {counts["failed"]} '
                     f'of {counts["failed"] + counts["passed"]} tests '
                     f'({residuals})')
    elif counts['passed'] == 0:
        found.append('HPL completed no test that passed its residual check')

    return found


def problems(text, expected, *, num_processes, source='hpccoutf.txt'):
    '''Everything that makes the run in ``text`` unusable, as messages.

    :arg expected: ``{name: Figure}`` that must have values
        (:func:`expected_figures`).
    :arg num_processes: MPI processes the run was started with.
    '''
    try:
        summary = parse_summary(text, source)
    except HpccOutputError as err:
        return [str(err)]

    found = []
    if summary.get('Success') != '1':
        found.append(f'HPCC reports Success={summary.get("Success")}: a '
                     f'component failed its verification')

    found += hpl_residual_problems(text)
    procs = summary.get('CommWorldProcs')
    if procs != str(num_processes):
        found.append(f'HPCC ran on {procs} processes, expected '
                     f'{num_processes}')

    missing = [f'{name} ({figure.key}={summary.get(figure.key, "absent")})'
               for name, figure in expected.items()
               if not (figure_value(summary, figure) or 0) > 0]
    if missing:
        found.append('no value for ' + ', '.join(missing))

    return found
