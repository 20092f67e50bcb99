'''Reading the output of the NAS Parallel Benchmarks 3.4 (MPI version).

Every NPB program ends a complete run with a summary block::

     BT Benchmark Completed.
     Class           =                        C
     Total processes =                       16
     Active procs    =                       16
     Time in seconds =                    51.03
     Mop/s total     =                 56162.46
     Mop/s/process   =                  3510.15
     Verification    =               SUCCESSFUL
     ...

``mpirun`` exits 0 whether verification succeeded or not, and BT, SP and
MG run on fewer ranks than they were given when the count does not suit
them (``WARNING: Number of active processes``), FT refuses to verify on a
count that is not a power of two. So a run is judged from its output
alone: :func:`result_problems` lists everything that makes it unusable.
'''

import math
import re
from dataclasses import dataclass

# Keys of the summary block the checks use, as NPB prints them.
_SUMMARY_KEYS = {
    'Class': 'npb_class',
    'Time in seconds': 'time',
    'Total processes': 'total_processes',
    'Active procs': 'active_processes',
    'Mop/s total': 'mops_total',
    'Mop/s/process': 'mops_per_process',
    'Verification': 'verification',
    'Version': 'version',
}
_NUMBERS = {'time', 'mops_total', 'mops_per_process'}
_COUNTS = {'total_processes', 'active_processes'}

_COMPLETED = re.compile(r'^\s*(?P<bench>[A-Z]{2}) Benchmark Completed\.?\s*$')
_SUMMARY_LINE = re.compile(r'^\s*(?P<key>[A-Za-z/ ]+?)\s*=\s*(?P<value>.*?)'
                           r'\s*$')
_HEADER = re.compile(r'NAS Parallel Benchmarks (?P<version>\S+) -- '
                     r'(?P<bench>[A-Z]{2}) Benchmark')
# Lines in which NPB says it did not run the way it was asked: fewer active
# ranks (BT, SP, MG), no verification on this count (FT), a count it cannot
# use at all (CG, IS, LU stop with an ERROR).
_COMPLAINT = re.compile(r'^\s*(WARNING|Warning|ERROR)\b.*$', re.MULTILINE)


class NpbOutputError(ValueError):
    '''The output has no usable NPB summary; the message names the file.'''


@dataclass(frozen=True)
class NpbSummary:
    '''The summary block of one NPB run.'''

    #: ``bt``, ``cg``, ... (lower case, as in the binary's name)
    benchmark: str
    #: ``S``, ``W``, ``A``, ... or ``U`` for an input that matches no class
    npb_class: str
    #: ranks the program was started on
    total_processes: int
    #: ranks that did the work
    active_processes: int
    #: seconds of the timed section
    time: float
    mops_total: float
    mops_per_process: float
    #: ``SUCCESSFUL``, ``UNSUCCESSFUL`` or ``NOT PERFORMED``
    verification: str
    #: ``3.4`` or ``3.4.x``
    version: str


def parse_summary(text, source='<output>'):
    '''The :class:`NpbSummary` of an NPB run's standard output.

    :raises NpbOutputError: when there is no summary block (the run was cut
        short or crashed), or a field is missing or malformed; the message
        names ``source``.
    '''
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines)
                  if _COMPLETED.match(line)), None)
    if start is None:
        header = _HEADER.search(text)
        what = (f'the {header["bench"]} benchmark started but printed'
                if header else 'no NPB benchmark header and')
        raise NpbOutputError(
            f'{source}: {what} no "Benchmark Completed" summary (truncated '
            f'output or crashed run?)'
        )

    fields = {'benchmark': _COMPLETED.match(lines[start])['bench'].lower()}
    for lineno, line in enumerate(lines[start + 1:], start=start + 2):
        match = _SUMMARY_LINE.match(line)
        if not match or match['key'] not in _SUMMARY_KEYS:
            continue

        name = _SUMMARY_KEYS[match['key']]
        if name in fields:
            continue

        fields[name] = _convert(name, match['value'], source, lineno)

    missing = [key for key, name in _SUMMARY_KEYS.items()
               if name not in fields]
    if missing:
        raise NpbOutputError(
            f'{source}: the summary lacks '
            f'{", ".join(repr(m) for m in missing)} (truncated output?)'
        )

    return NpbSummary(**fields)


def _convert(name, value, source, lineno):
    try:
        if name in _NUMBERS:
            number = float(value)
            if not math.isfinite(number):
                raise ValueError

            return number

        if name in _COUNTS:
            return int(value)
    except ValueError:
        raise NpbOutputError(
            f'{source}:{lineno}: {name} is not a number: {value!r}'
        ) from None

    return value


def complaints(text):
    '''NPB's own WARNING/ERROR lines, stripped, in order.'''
    return [' '.join(match.group(0).split())
            for match in _COMPLAINT.finditer(text)]


def result_problems(text, *, benchmark, npb_class, num_procs,
                    source='<output>'):
    '''Everything that makes ``text`` unusable as the result of running
    ``benchmark`` of class ``npb_class`` on ``num_procs`` ranks, as
    messages; an empty list means the run verified and ran as asked.
    '''
    problems = [f'NPB says: {line}' for line in complaints(text)]
    try:
        summary = parse_summary(text, source)
    except NpbOutputError as err:
        return problems + [str(err)]

    if summary.benchmark != benchmark:
        problems.append(f'the output is from {summary.benchmark.upper()}, '
                        f'not {benchmark.upper()}')

    if summary.verification != 'SUCCESSFUL':
        problems.append(f'Verification = {summary.verification} (the '
                        f'benchmark failed its own verification)')

    if summary.npb_class != npb_class:
        problems.append(f'Class = {summary.npb_class}, expected {npb_class}')

    if summary.total_processes != num_procs:
        problems.append(f'Total processes = {summary.total_processes}, '
                        f'expected {num_procs}')

    if summary.active_processes != summary.total_processes:
        problems.append(f'Active procs = {summary.active_processes} of '
                        f'{summary.total_processes}: NPB left ranks idle')

    return problems
