'''Reading the output of the in-tree kernels.

The programs in ``src/`` print one figure per line as ``name value unit``,
comment lines starting with ``#`` and, as their last line on success,
``# validation: passed``. A failed self-check ends the output with
``# validation: FAILED <reason>`` instead.
'''

import math
import re
from dataclasses import dataclass

import reframe.utility.sanity as sn

from hpc_acceptance.core.references import unbounded

VALIDATION_PASSED = '# validation: passed'
_BUILT_FOR = re.compile(r'^# built for: (?P<isa>\S+)$', re.MULTILINE)
_VALIDATION_FAILED = re.compile(r'^# validation: FAILED\s*(?P<reason>.*)$')
_FIGURE = re.compile(r'^(?P<name>[A-Za-z0-9_.]+)\s+(?P<value>\S+)\s+'
                     r'(?P<unit>\S+)$')


class OutputError(ValueError):
    '''The output is not in the kernels' ``name value unit`` format.'''


@dataclass(frozen=True)
class Figure:
    value: float
    unit: str


def parse_figures(text, source='<output>'):
    '''Return ``{name: Figure}`` for every figure line of ``text``.

    :raises OutputError: on a line that is neither a comment nor a figure,
        or on a figure printed twice; the message names ``source`` and the
        line number.
    '''
    figures = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue

        match = _FIGURE.match(line)
        if not match:
            raise OutputError(
                f'{source}:{lineno}: not a "name value unit" line: {line!r}'
            )

        try:
            value = float(match['value'])
        except ValueError:
            raise OutputError(
                f'{source}:{lineno}: value of {match["name"]!r} is not a '
                f'number: {match["value"]!r}'
            ) from None

        if match['name'] in figures:
            raise OutputError(
                f'{source}:{lineno}: figure {match["name"]!r} printed twice'
            )

        figures[match['name']] = Figure(value, match['unit'])

    return figures


def validation(text):
    '''The program's verdict on its own results, from its last line:
    ``(True, '')``, ``(False, reason)``, or ``(None, '')`` when it printed
    none (a truncated or crashed run).'''
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    last = lines[-1] if lines else ''
    failed = _VALIDATION_FAILED.match(last)
    if failed:
        return False, failed['reason'] or 'no reason given'

    return (True, '') if last == VALIDATION_PASSED else (None, '')


@sn.deferrable
def figure_value(path, name):
    '''The value of figure ``name`` in the output file ``path``.'''
    with open(path) as fp:
        return parse_figures(fp.read(), path)[name].value


def output_problems(text, expected, source='<output>'):
    '''Everything that makes ``text`` unusable as a result, as messages.

    ``expected`` maps each figure name the caller needs to its unit. An
    empty list means the program validated its results and printed every
    expected figure as a finite number in the expected unit.
    '''
    validated, reason = validation(text)
    if validated is False:
        return [f'the program failed its own validation: {reason}']

    problems = []
    if validated is None:
        problems.append(f'output does not end with {VALIDATION_PASSED!r} '
                        f'(truncated or crashed run?)')

    try:
        figures = parse_figures(text, source)
    except OutputError as err:
        return problems + [str(err)]

    for name, unit in expected.items():
        figure = figures.get(name)
        if figure is None:
            problems.append(f'figure {name!r} is missing')
        elif not math.isfinite(figure.value):
            problems.append(f'figure {name!r} is not finite: {figure.value}')
        elif figure.unit != unit:
            problems.append(f'figure {name!r} is in {figure.unit!r}, '
                            f'expected {unit!r}')

    return problems


def built_for(text):
    '''The ISA a program says it was built for (``# built for: avx2``),
    or ``None``.'''
    match = _BUILT_FOR.search(text)
    return match['isa'] if match else None


def repetition_figures(path):
    '''``{performance variable: (figure, unit)}`` of the figures of the
    output file ``path`` that say how the repetitions went beside the best
    one (``bandwidth.l1.median`` as ``bandwidth_l1_median``,
    ``best_to_median.l1``: :func:`..references.unbounded`); none where the
    file cannot be read or the program printed none.'''
    try:
        with open(path) as fp:
            printed = parse_figures(fp.read(), path)
    except (OSError, OutputError):
        return {}

    return {name.replace('.', '_'): (name, figure.unit)
            for name, figure in printed.items()
            if unbounded(name.replace('.', '_'))}
