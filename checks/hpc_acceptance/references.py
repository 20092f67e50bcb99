'''Per-system reference files: ``reference/<system>.yaml``.

A reference file is ReFrame's external reference format: one entry per
check class, an optional ``$index`` over test attributes (``$partition``,
variant parameters, ...) and, at the leaves, one
``[value, lower, upper, unit]`` per performance variable, where ``lower``
and ``upper`` are fractions (``-0.1``, ``0.1``) and ``null`` leaves a side
open.

A system without a file runs its checks without bounds and says so; a
system with a file must have an entry for every check and figure it runs
(checks set ``require_reference``).
'''

import os

import yaml

from hpc_acceptance.paths import REFERENCE_DIR


class ReferenceFileError(ValueError):
    '''A reference file cannot be used; the message names file and key.'''


def reference_dir(configured_prefix=None):
    '''The configured reference prefix, else the checkout's ``reference/``.'''
    return configured_prefix or str(REFERENCE_DIR)


def reference_file(system_name, prefix=None):
    '''Path of the system's reference file, or ``None`` if it has none.'''
    path = os.path.join(reference_dir(prefix), f'{system_name}.yaml')
    return path if os.path.isfile(path) else None


def load(path):
    '''Parse a reference file and check its overall shape.

    :raises ReferenceFileError: if the file is not YAML, is not a mapping of
        check names to mappings, or has an entry that is not a
        ``[value, lower, upper, unit]`` list.
    '''
    try:
        with open(path) as fp:
            data = yaml.safe_load(fp)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        raise ReferenceFileError(
            f'{path}: line {mark.line + 1}, column {mark.column + 1}: '
            f'{err.problem}'
        ) from None
    except (OSError, yaml.YAMLError) as err:
        raise ReferenceFileError(f'{path}: {err}') from None

    if not isinstance(data, dict):
        raise ReferenceFileError(
            f'{path}: expected a mapping of check names to references, '
            f'found {type(data).__name__}'
        )

    for check, entry in data.items():
        if not isinstance(entry, dict):
            raise ReferenceFileError(
                f'{path}: {check}: expected a mapping, found '
                f'{type(entry).__name__}'
            )

        depth = len(entry.get('$index', [None]))
        for key, value in entry.items():
            if key != '$index':
                _check_level(path, [check, key], value, depth - 1)

    return data


def _check_level(path, keys, value, depth):
    where = f'{path}: {".".join(str(k) for k in keys)}'
    if not isinstance(value, dict):
        raise ReferenceFileError(f'{where}: expected a mapping, found '
                                 f'{value!r}')

    if depth > 0:
        for key, sub in value.items():
            _check_level(path, keys + [key], sub, depth - 1)

        return

    for variable, ref in value.items():
        check_entry(f'{where}.{variable}', ref)


def check_entry(where, ref):
    '''Check one ``[value, lower, upper, unit]`` entry.'''
    if not isinstance(ref, list) or len(ref) != 4:
        raise ReferenceFileError(
            f'{where}: expected [value, lower, upper, unit], found {ref!r}'
        )

    value, lower, upper, unit = ref
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ReferenceFileError(f'{where}: value {value!r} is not a number')

    if lower is not None and (isinstance(lower, bool) or
                              not isinstance(lower, (int, float)) or
                              not -1 <= lower <= 0):
        raise ReferenceFileError(
            f'{where}: lower tolerance {lower!r} must be a fraction in '
            f'[-1, 0] or null'
        )

    if upper is not None and (isinstance(upper, bool) or
                              not isinstance(upper, (int, float)) or
                              upper < 0):
        raise ReferenceFileError(
            f'{where}: upper tolerance {upper!r} must be a fraction >= 0 '
            f'or null'
        )

    if not isinstance(unit, str) or not unit:
        raise ReferenceFileError(f'{where}: unit {unit!r} is not a string')


def load_all(directory):
    '''Load every ``*.yaml`` directly in ``directory``.

    :returns: ``{system name: data}``
    :raises ReferenceFileError: for the first file that cannot be used.
    '''
    return {os.path.splitext(name)[0]: load(os.path.join(directory, name))
            for name in sorted(os.listdir(directory))
            if name.endswith('.yaml')}
