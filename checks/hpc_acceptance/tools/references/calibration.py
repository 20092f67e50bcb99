'''A system's own noise floors, measured from its quiet repeats and kept
with its references: ``reference/<system>/noise.yaml``.

    hpc-acceptance propose-references --calibrate-noise --system NAME \\
        [--sessions 'now-30d:now'] [--min-runs 5] [--write]

The family floors of :data:`.noise.FAMILY_FLOOR` were set on 2-core
cloud guests; a bare-metal node moves far less from run to run, and
behind a 25 % floor a 20 % loss reads "within noise". So a system measures
its own (:func:`measure`), at bring-up and again later:

- each figure with ``--min-runs`` passed runs or more in the selected
  sessions gets the band its runs show (:func:`.noise.band` with no
  floor: 4 robust standard deviations, or 1.5 x the largest deviation
  more than a tenth of its runs reach);
- a family's floor is the band that more than a tenth of its figures need
  (of fewer than 10 figures: the widest), at least :data:`LEAST_FLOOR`,
  rounded up to half a per cent.

A floor of :data:`NO_BOUND` or more bounds nothing (a rate could fall
to a tenth): the runs were not quiet, and the floors are not written.

The file holds the floors and how they were measured (when, the command,
the sessions, runs per figure, figures per family, the method). Where it
exists, ``post-upgrade``, ``propose-references`` and the report page's
noise bands use its floors (``--floor`` still overrides); a family it has
no floor for, and a system without the file, get the built-in floors, and
the summary and page say which.
'''

import datetime
import math
import os
import statistics

import yaml

from hpc_acceptance.core import references
from hpc_acceptance.tools.common import identifiers
from hpc_acceptance.tools.common.path_inside import path_inside
from hpc_acceptance.tools.references import noise
from hpc_acceptance.tools.results.atomic_file import write_atomically
from hpc_acceptance.tools.results.runs import figure_key, figures_of

#: The file of a system's floors, in ``<reference dir>/<system>/``.
FILE_NAME = 'noise.yaml'

#: The narrowest floor measured: a few evenings of repeats do not show the
#: drift of months (a kernel's or a firmware's small steps).
LEAST_FLOOR = 0.02

#: Runs a figure needs to count (``--min-runs``).
MIN_RUNS = 5

METHOD = ('each figure\'s band from its own runs (4 robust standard '
          'deviations, or 1.5 x the largest deviation more than a tenth '
          'of its runs reach); a family\'s floor the band more than a '
          f'tenth of its figures need, at least {100 * LEAST_FLOOR:.0f} %, '
          'rounded up to 0.5 %')

#: A floor from which a band bounds nothing worth the name (as
#: ``propose-references`` refuses such a tolerance): not written.
NO_BOUND = 0.9


class CalibrationError(ValueError):
    '''A system's noise file cannot be used; the message names the file
    and the key.'''


def reference_dirs(given):
    '''The directories the systems' reference and noise files are looked
    for in, in order, as a command's settings ``given``
    (:class:`..common.command_settings.Settings`) name them
    (:func:`hpc_acceptance.core.references.search_dirs`).'''
    return references.search_dirs(given.reference_prefix, given.site_dir)


def path_of(system, dirs):
    '''Where ``system``'s floors are: the first of the reference
    directories ``dirs``
    (:func:`hpc_acceptance.core.references.search_dirs`) that has them,
    else where they would be written, in the first; a system that is no
    ReFrame name, or a path that leads out of its directory, is none.

    :raises CalibrationError: naming the system or the path.
    '''
    try:
        identifiers.name(system, 'system')
        for directory in dirs:
            found = path_inside(directory,
                                os.path.join(directory, system, FILE_NAME))
            if os.path.isfile(found):
                return found

        return path_inside(dirs[0], os.path.join(dirs[0], system, FILE_NAME))
    except ValueError as err:
        raise CalibrationError(str(err)) from None


def load(system, dirs):
    '''``(floors, provenance, path)`` of ``system``'s own floors; ``None``
    where it has none.

    :raises CalibrationError: naming the file and what is wrong.
    '''
    path = path_of(system, dirs)
    if not os.path.isfile(path):
        return None

    try:
        with open(path) as fp:
            data = yaml.safe_load(fp)
    except (OSError, yaml.YAMLError) as err:
        raise CalibrationError(f'{path}: {err}') from None

    if not isinstance(data, dict) or not isinstance(data.get('floors'),
                                                    dict):
        raise CalibrationError(f'{path}: no "floors" mapping of family to '
                               f'fraction')

    try:
        floors = noise.parse_floors(' '.join(
            f'{family}={value}' for family, value in data['floors'].items()))
    except ValueError as err:
        raise CalibrationError(f'{path}: floors: {err}') from None

    return floors, data.get('provenance') or {}, path


def floors_of(system, dirs):
    '''``(floors, the line that says which)`` for ``system``, read from
    the reference directories ``dirs`` (as :func:`path_of`): its own,
    else ``{}`` (the built-in floors); an unreadable file is said, and
    the built-in floors used.'''
    try:
        found = load(system, dirs)
    except CalibrationError as err:
        return {}, (f'noise floors: built-in family floors (system '
                    f'{system}\'s own cannot be read: {err})')

    if found is None:
        return {}, (f'noise floors: built-in family floors ({_built_in()}):'
                    f' system {system} has none of its own; measure them '
                    f'with "hpc-acceptance propose-references '
                    f'--calibrate-noise --system {system} --write"')

    floors, provenance, path = found
    others = sorted(set(noise.FAMILY_FLOOR) - set(floors))
    rest = (f'; built-in for {", ".join(others)}' if others else '')
    return floors, (f'noise floors: system {system}\'s own '
                    f'({_described(floors)}), measured '
                    f'{provenance.get("measured", "at an unknown time")} '
                    f'from {provenance.get("sessions", {}).get("count", "?")}'
                    f' session(s) ({path}){rest}')


def _described(floors):
    return ', '.join(f'{family} {100 * value:.1f} %'
                     for family, value in sorted(floors.items()))


def _built_in():
    return ', '.join(f'{family} {100 * value:.0f} %'
                     for family, value in noise.FAMILY_FLOOR.items())


def system_of(testcases):
    '''The system of a run's test cases (the first one named).'''
    return next((case['system'] for case in testcases
                 if not case.get('fixture') and case.get('system')), None)


def run_floors(testcases, dirs):
    '''``(floors, the line that says which)`` a run's bands are drawn
    with (as :func:`floors_of`), read from the reference directories
    ``dirs`` (as :func:`path_of`).'''
    system = system_of(testcases)
    if system is None:
        return {}, 'noise floors: no figure in this run'

    return floors_of(system, dirs)


def _round_up(width):
    return math.ceil(width * 200 - 1e-9) / 200


def unbounded(floors):
    '''The families of ``floors`` that bound nothing (:data:`NO_BOUND`).'''
    return sorted(family for family, value in floors.items()
                  if value >= NO_BOUND)


def measure(testcases, system, min_runs=MIN_RUNS):
    '''``(floors, details, notes)`` of the passed runs of ``system`` in
    ``testcases``: the floors, what they were measured from (for the
    provenance), and notes on the figures left out.'''
    values, sessions = {}, set()
    for case in testcases:
        if (case.get('fixture') or case.get('result') != 'pass' or
                case.get('system') != system):
            continue

        sessions.add(case.get('session_uuid'))
        for variable, (value, _) in figures_of(case).items():
            values.setdefault((figure_key(case), variable), []).append(
                float(value))

    widths, runs, notes = {}, [], []
    for (key, variable), found in sorted(values.items()):
        if len(found) < min_runs or min(found) <= 0:
            notes.append(f'{key[0]} {variable}: {len(found)} run(s), need '
                         f'{min_runs}: left out')
            continue

        family = noise.family_of(key[0])
        if family is None:
            continue

        widths.setdefault(family, []).append(noise.band(found, 0.0)[1])
        runs.append(len(found))

    floors = {}
    for family, found in widths.items():
        found.sort(reverse=True)
        floors[family] = max(LEAST_FLOOR,
                             _round_up(found[len(found) // 10]))

    details = {'sessions': sorted(s for s in sessions if s),
               'runs': runs,
               'figures': {family: len(found)
                           for family, found in sorted(widths.items())}}
    return floors, details, notes


def document(floors, details, command, now=None):
    '''The content of the noise file: the floors and their provenance.'''
    now = now or datetime.datetime.now(datetime.timezone.utc)
    runs = details['runs']
    return {
        'floors': {family: floors[family] for family in sorted(floors)},
        'provenance': {
            'measured': now.strftime('%Y-%m-%dT%H:%M:%SZ'),
            'command': command,
            'sessions': {'count': len(details['sessions']),
                         'uuids': details['sessions']},
            'runs_per_figure': {'least': min(runs, default=0),
                                'median': statistics.median(runs)
                                if runs else 0},
            'figures': details['figures'],
            'method': METHOD,
        },
    }


def write(path, content):
    '''Write the noise file at ``path`` in one step.'''
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # the night's account reads it
    write_atomically(path, '# A system\'s own noise floors: written by '
                           'hpc-acceptance propose-references '
                           '--calibrate-noise\n' +
                     yaml.safe_dump(content, sort_keys=False, width=79),
                     shared=True)
