'''Propose a system's reference file from the sessions stored in ReFrame's
results database.

    hpc-acceptance propose-references --system NAME \\
        [--sessions 'now-30d:now'] [--floor F | --floor FAMILY=F ...]
        [--min-runs 3] [--write]
    hpc-acceptance propose-references --calibrate-noise --system NAME \\
        [--sessions 'now-30d:now'] [--min-runs 5] [--write]

For every check, partition, environment, variant and identity (the inputs
that produced the figures, :mod:`hpc_acceptance.core.identity`) that
passed in the selected sessions, and for each of its performance variables:

- value = the median of the stored values;
- tolerance = the band of :mod:`.noise`: 4 robust
  standard deviations (from the median absolute deviation) or 1.5 times
  the largest deviation the runs show, at least the family's minimum band
  (the system's own floors, measured with ``--calibrate-noise`` and kept
  in ``reference/<system>/noise.yaml`` by :mod:`.calibration`, else the
  built-in ones; ``--floor F`` for every family, ``--floor Memory=0.5``
  for one, overrides them), on the worse side only:
  ``[median, -tolerance, null, unit]`` for bandwidths and rates,
  ``[median, null, tolerance / (1 - tolerance), unit]`` for times (the
  same loss of performance: tolerance 0.5 allows twice the time).

Runs of two identities (NPB class W and C, HPL at two memory fractions)
get two entries, keyed by the identity as the last ``$index`` level.

The selected sessions are every kind of run (nightly, post-upgrade), so
that the variants only a post-upgrade run makes (ISA, Turbo, SMT, HPL over
80 % of memory) get entries too. Entries need ``--min-runs`` values (3 by
default); fewer are listed and left out. The proposal is merged into the
current file entry by entry: an entry the sessions do not cover (another
variant, another identity) is kept, one they cover is replaced.

A band wider than twice the family's minimum means runs that scatter more
than a quiet system's: it is written with a loud warning. A band of
:data:`NO_BOUND` or more, wider than the floor asked for, bounds nothing
(a rate may fall to nearly zero): the command refuses to write such a file
and names the figures; run the
suite more times on a quiet system, or leave those sessions out.

The command prints a diff against ``reference/<system>.yaml`` and writes the
file only with ``--write``. Bringing up a new system: run the suite N times,
then run this command.
'''

import argparse
import dataclasses
import difflib
import os
import shlex
import sys

import yaml

from hpc_acceptance.core import references
from hpc_acceptance.tools.common import arguments, command_settings
from hpc_acceptance.tools.references import calibration, noise
from hpc_acceptance.tools.results.atomic_file import write_atomically
from hpc_acceptance.tools.results.runs import (ResultsError, figure_key,
                                               figures_of, stored_testcases)

#: One line for ``hpc-acceptance --help``.
description = ('reference values from recent runs, as a diff or written '
               '(--write)')

#: The band from which a tolerance bounds nothing worth the name.
NO_BOUND = 0.9

#: Bands above this many times the family's minimum are warned about.
WIDE = 2


def collect(testcases, system):
    '''Values of every performance variable per check variant and identity.

    Runs stored before checks recorded their identity are left out: their
    inputs (NPB class, sizes, ranks) are unknown, so their figures cannot be
    told apart; so are the figures no reference need bound
    (:func:`hpc_acceptance.core.references.unbounded`).

    :returns: ``({(check, partition, environ, params, identity): {variable:
        (values, unit)}}, notes)`` where ``params`` is a tuple of ``(name,
        value)``.
    '''
    collected, without_identity = {}, 0
    for case in testcases:
        if (case.get('fixture') or case.get('result') != 'pass' or
                case.get('system') != system):
            continue

        key = figure_key(case)
        if not key[-1]:
            without_identity += 1
            continue

        figures = collected.setdefault(key, {})
        for variable, (value, unit) in figures_of(case).items():
            if references.unbounded(variable):
                # how the repetitions went (a median, best/median): the
                # fleet's contention rule reads them, no reference bounds
                continue
            values, _ = figures.setdefault(variable, ([], unit))
            values.append(float(value))

    notes = [f'{without_identity} run(s) stored without an identity (before '
             f'checks recorded their inputs): left out'] * bool(
                 without_identity)
    return collected, notes


def propose(collected, *, floor, min_runs, floors=None):
    '''Reference data for ``collected``, plus notes on what was left out
    and warnings on bands wider than :data:`WIDE` times the minimum (those
    of :data:`NO_BOUND` or more start with ``REFUSED``).

    ``floor`` (a fraction, or ``None`` for the family's minimum band of
    :mod:`.noise`, or its entry in ``floors``) is the narrowest band a
    figure gets.
    '''
    proposed, notes = {}, []
    for (check, partition, environ, params, ident), figures in sorted(
            collected.items()):
        where = '.'.join([check, partition, environ] +
                         [str(v) for _, v in params] + [ident])
        family = noise.family_floor(check, floors)
        least = family if floor is None else floor
        refs = {}
        for variable, (values, unit) in sorted(figures.items()):
            if len(values) < min_runs:
                notes.append(f'{where}.{variable}: {len(values)} run(s), '
                             f'need {min_runs}: left out')
                continue

            median, width = noise.band(values, least)
            # a floor asked for is the user's choice; runs that scatter
            # this far are not
            if width >= NO_BOUND and width > least:
                notes.append(f'REFUSED {where}.{variable}: band '
                             f'{100 * width:.0f}% bounds nothing (runs '
                             f'{_spread(values)})')
            elif width > WIDE * family:
                notes.append(f'WARNING {where}.{variable}: band '
                             f'{100 * width:.0f}%, more than {WIDE}x the '
                             f'minimum {100 * family:.0f}% (runs '
                             f'{_spread(values)})')

            refs[variable] = [median, *noise.tolerances(width, unit), unit]

        if not refs:
            continue

        entry = proposed.setdefault(check, {
            '$index': ['$partition', '$environ'] +
                      [p for p, _ in params] + ['identity']
        })
        level = entry.setdefault(partition, {}).setdefault(environ, {})
        for _, value in params:
            level = level.setdefault(value, {})

        level[ident] = refs

    return proposed, notes


def _spread(values):
    return f'{min(values):.4g} to {max(values):.4g}'


def merge(current, proposed):
    '''``current`` with the entries of ``proposed`` put in, one by one: an
    entry (down to its figures) that ``proposed`` has replaces the
    current one, every other current entry stays. A check whose
    ``$index`` changed is replaced whole: its keys mean other things.'''
    merged = dict(current)
    for check, entry in proposed.items():
        old = current.get(check)
        if isinstance(old, dict) and old.get('$index') == entry.get('$index'):
            merged[check] = _merge_levels(old, entry)
        else:
            merged[check] = entry

    return merged


def _merge_levels(old, new):
    merged = dict(old)
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(old.get(key), dict):
            merged[key] = _merge_levels(old[key], value)
        else:
            merged[key] = value

    return merged


def render(data):
    return yaml.safe_dump(data, sort_keys=True, default_flow_style=None,
                          width=79)


def floor_entry(entry):
    '''``(fraction, {})`` for a ``--floor F`` (every family), ``(None,
    {family: fraction})`` for a ``--floor FAMILY=F``.

    :raises ValueError: saying what is wrong with ``entry``.
    '''
    if '=' in entry:
        return None, noise.parse_floors(entry)

    floor = float(entry)
    if not 0 <= floor <= 1:
        raise ValueError('must be a fraction in [0, 1]')

    return floor, {}


def floors_of(entries):
    '''``(floor for every family or None, {family: floor})`` from the
    ``--floor`` arguments: the last ``F`` for every family, each
    ``FAMILY=F`` for its own.'''
    floor, floors = None, {}
    for entry in entries:
        every, families = floor_entry(entry)
        floors.update(families)
        if every is not None:
            floor = every

    return floor, floors


class FloorOption(argparse.Action):
    '''``--floor F|FAMILY=F``, repeatable: each kept as given, a usage
    error naming the one at fault.'''

    def __call__(self, parser, namespace, value, option_string=None):
        try:
            floor_entry(value)
        except ValueError as err:
            parser.error(f'--floor {value}: {err}')

        setattr(namespace, self.dest,
                [*(getattr(namespace, self.dest) or []), value])


@dataclasses.dataclass
class Calibration:
    '''The noise floors ``--calibrate-noise`` measured: the noise file's
    content, where it goes, and the families whose floor bounds nothing.'''
    floors: dict
    content: dict
    path: str
    refused: list
    notes: list


def calibrate(testcases, system, *, min_runs, reference_dir, command):
    '''The system's own floors from ``testcases``; no ``floors`` where
    no figure has enough passed runs to measure its noise.'''
    floors, details, notes = calibration.measure(testcases, system,
                                                 min_runs)
    if not floors:
        return Calibration({}, {}, None, [], notes)

    return Calibration(floors, calibration.document(floors, details, command),
                       calibration.path_of(system, [reference_dir]),
                       calibration.unbounded(floors), notes)


@dataclasses.dataclass
class Proposal:
    '''A reference file proposed: where it goes, what it holds now and
    would hold, and the notes (``WARNING``, ``REFUSED`` and what was left
    out).'''
    path: str
    current: dict
    merged: dict
    notes: list

    @property
    def refused(self):
        return [n for n in self.notes if n.startswith('REFUSED')]

    def diff(self):
        '''The unified diff from the current file to the proposed one.'''
        old = render(self.current) if self.current else ''
        return list(difflib.unified_diff(
            old.splitlines(keepends=True),
            render(self.merged).splitlines(keepends=True),
            fromfile=self.path if self.current else '/dev/null',
            tofile=self.path))


def proposal(testcases, system, *, floor, floors, min_runs, reference_dir):
    '''The reference file of ``system`` proposed from ``testcases``,
    merged into the current one; ``merged`` is empty where no run of the
    system passed with enough runs.

    :raises ReferenceFileError: the current file or the merge is not a
        reference file.
    '''
    collected, notes = collect(testcases, system)
    proposed, more_notes = propose(collected, floor=floor, floors=floors,
                                   min_runs=min_runs)
    path = os.path.join(reference_dir, f'{system}.yaml')
    if not proposed:
        return Proposal(path, {}, {}, notes + more_notes)

    current = references.load(path) if os.path.exists(path) else {}
    merged = merge(current, proposed)
    references.check_shape(path, merged)
    return Proposal(path, current, merged, notes + more_notes)


def write(found):
    '''Write the proposed file of ``found`` in one step.'''
    # a new site directory has no reference/ yet
    os.makedirs(os.path.dirname(found.path), exist_ok=True)
    # the night's account reads it
    write_atomically(found.path, render(found.merged), shared=True)


def setup_parser(parser):
    '''The options of ``hpc-acceptance propose-references``.'''
    parser.add_argument('--system', required=True,
                        type=arguments.reframe_name,
                        help='system whose reference file to propose')
    arguments.add_sessions(parser, 'now-30d:now')
    parser.add_argument('--floor', action=FloorOption, default=[],
                        metavar='F|FAMILY=F',
                        help='smallest tolerance, as a fraction: F for '
                             'every check, FAMILY=F (e.g. Memory=0.5, '
                             'repeatable) for one family (default: the '
                             'family\'s minimum band, see '
                             'hpc_acceptance.tools.references.noise)')
    parser.add_argument('--min-runs', type=int,
                        help='runs a figure needs to get a reference '
                             '(default: 3), or to count in the noise '
                             f'floors (default: {calibration.MIN_RUNS})')
    parser.add_argument('--calibrate-noise', action='store_true',
                        help="measure the system's own noise floors from "
                             'its quiet repeats in the sessions, as '
                             '<reference dir>/<system>/noise.yaml (written '
                             'with --write)')
    parser.add_argument('--reference-dir',
                        help='where <system>.yaml lives (default: '
                             '$RFM_REFERENCE_PREFIX, else the site '
                             'directory\'s reference/, else the checkout\'s)')
    parser.add_argument('--write', action='store_true',
                        help='write the file instead of only showing the '
                             'diff')


def command(args):
    '''``hpc-acceptance propose-references``: the proposed file's diff
    (or the noise floors), written with ``--write``.'''
    try:
        given = command_settings.read()
        testcases = stored_testcases(args.sessions, given.db)
    except (command_settings.BadSetting, ResultsError) as err:
        print(f'propose_references: {err}', file=sys.stderr)
        return 1

    # the folder the references are read from without the option
    args.reference_dir = (args.reference_dir or
                          calibration.reference_dirs(given)[0])

    if args.calibrate_noise:
        return _calibrate_command(args, testcases)

    floor, floors = floors_of(args.floor)
    if not args.floor:
        floors, said = calibration.floors_of(args.system,
                                             [args.reference_dir])
        print(said, file=sys.stderr)

    found = proposal(testcases, args.system, floor=floor, floors=floors,
                     min_runs=3 if args.min_runs is None else args.min_runs,
                     reference_dir=args.reference_dir)
    for note in found.notes:
        loud = note.startswith(('WARNING', 'REFUSED'))
        print(note if loud else f'note: {note}', file=sys.stderr)

    if not found.merged:
        print(f'propose_references: no passed runs of system '
              f'{args.system!r} in sessions {args.sessions!r}',
              file=sys.stderr)
        return 1

    sys.stdout.writelines(found.diff())
    if found.refused:
        print(f'propose_references: {len(found.refused)} figure(s) would '
              f'get no bound (REFUSED above): {found.path} not written. Run '
              f'the suite more times on a quiet system (a node of its own, '
              f'nothing else running), or select other sessions with '
              f'--sessions', file=sys.stderr)
        return 1

    if args.write:
        write(found)
        print(f'wrote {found.path}', file=sys.stderr)

    return 0


def _calibrate_command(args, testcases):
    '''``--calibrate-noise``: the system's own floors from the selected
    sessions, shown, and written with ``--write``.'''
    found = calibrate(testcases, args.system,
                      min_runs=args.min_runs or calibration.MIN_RUNS,
                      reference_dir=args.reference_dir,
                      command=_command_line(args))
    for note in found.notes:
        print(f'note: {note}', file=sys.stderr)

    if not found.floors:
        print(f'propose_references: no figure of system {args.system!r} '
              f'has enough passed runs in sessions {args.sessions!r} to '
              f'measure its noise', file=sys.stderr)
        return 1

    print(yaml.safe_dump(found.content, sort_keys=False, width=79), end='')
    if found.refused:
        print(f'propose_references: REFUSED: the floor of '
              f'{", ".join(found.refused)} bounds nothing (a figure could '
              f'lose {100 * calibration.NO_BOUND:.0f} % or more): these runs '
              f'were not quiet; {found.path} not written. Run the suite '
              f'again on a quiet system (a node of its own, nothing else '
              f'running)', file=sys.stderr)
        return 1

    if args.write:
        calibration.write(found.path, found.content)
        print(f'wrote {found.path}', file=sys.stderr)
    else:
        print(f'propose_references: not written (--write writes '
              f'{found.path})', file=sys.stderr)

    return 0


def _command_line(args):
    '''The command that measured the floors, for their provenance: every
    option it ran with, defaults included, so that it can be run again.'''
    line = ['hpc-acceptance', 'propose-references', '--calibrate-noise',
            '--system', args.system, '--sessions', args.sessions,
            '--reference-dir', args.reference_dir]
    if args.min_runs is not None:
        line += ['--min-runs', str(args.min_runs)]

    return shlex.join(line + ['--write'] * args.write)
