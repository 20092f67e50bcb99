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

Validation happens in two places, both before any benchmark runs:

- when ReFrame loads the configuration (:func:`load_all`): syntax, shape,
  tolerance signs, unknown systems, checks and partitions;
- when a check is about to run (:func:`entry_for`, :func:`check_variables`):
  the ``$index`` attributes, the entry for the check's variant, and the
  performance variables and units the check reports.
'''

import os
import re

import yaml
from reframe.core.exceptions import ReframeError

from hpc_acceptance.core import identity
from hpc_acceptance.core.paths import REFERENCE_DIR


class ReferenceFileError(ReframeError):
    '''A reference file cannot be used; the message names file and key.

    A ReFrame error, so a check that hits it fails with this message alone
    rather than with a source listing.
    '''


class IdentityMismatch(ReferenceFileError):
    '''No entry of a reference file has the identity of the run.'''

    def __init__(self, message, *, where, value, differing):
        super().__init__(message)
        #: the file and entry, as ``path: Check.partition.identity``
        self.where = where
        #: the run's identity
        self.value = value
        #: ``{entry's identity: [names of the inputs that differ]}``
        self.differing = differing


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

    check_shape(path, data)
    return data


def check_shape(path, data):
    '''Check parsed reference ``data``; ``path`` names it in errors.'''
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


def load_all(directory, *, partitions, check_names):
    '''Load and validate every ``<system>.yaml`` directly in ``directory``.

    :arg partitions: ``{system name: [partition full names]}`` of the
        configuration; a file for a system not in it is an error.
    :arg check_names: class names of the checks in the suite.
    :returns: ``{system name: data}``
    :raises ReferenceFileError: for the first file that cannot be used.
    '''
    loaded = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith('.yaml'):
            continue

        path = os.path.join(directory, name)
        system = os.path.splitext(name)[0]
        if system not in partitions:
            raise ReferenceFileError(
                f'{path}: no system {system!r} in the configuration '
                f'(systems: {", ".join(sorted(partitions))})'
            )

        data = load(path)
        for check, entry in data.items():
            if check not in check_names:
                raise ReferenceFileError(
                    f'{path}: {check}: no such check in the suite'
                )

            _check_partition_keys(path, check, entry, partitions[system])

        loaded[system] = data

    return loaded


def _check_partition_keys(path, check, entry, partitions):
    index = list(entry.get('$index', []))
    if '$partition' not in index:
        return

    depth = index.index('$partition')
    for keys in keys_at_depth(entry, depth):
        key = keys[-1]
        if not any(key == p or re.fullmatch(str(key), p)
                   for p in partitions):
            raise ReferenceFileError(
                f'{path}: {".".join([check] + keys)}: matches no partition '
                f'of the system (partitions: {", ".join(partitions)})'
            )


def keys_at_depth(entry, depth, prefix=()):
    '''The key paths of ``entry`` (a check's entry, ``$index`` left out)
    that end ``depth`` levels below its top, as lists of strings.'''
    for key, value in entry.items():
        if key == '$index':
            continue

        if depth == 0:
            yield list(prefix) + [str(key)]
        else:
            yield from keys_at_depth(value, depth - 1, prefix + (str(key),))


def entry_for(path, check_entry, test):
    '''The ``{variable: [value, lower, upper, unit]}`` that applies to
    ``test``, found the way ReFrame looks it up: the key equal to the
    attribute's value (so ``2`` and ``'2'`` differ), else, for strings, the
    first key that matches as an anchored regular expression.

    :raises ReferenceFileError: naming the index attribute the check does
        not have, or the level that has no key for the test's value.
    '''
    name = type(test).__name__
    data = check_entry
    where = [name]
    for subkey in check_entry.get('$index', []):
        value = _index_value(test, subkey)
        if value is None:
            raise ReferenceFileError(
                f'{path}: {name}: $index names {subkey!r}, which the check '
                f'does not have'
            )

        keys = [k for k in data if k != '$index']
        if subkey == 'identity':
            match = _identity_key(path, where, keys, value)
            where.append('identity')
            data = data[match]
            continue

        match = value if value in keys else next(
            (k for k in keys if isinstance(k, str) and
             isinstance(value, str) and re.fullmatch(k, value)), None
        )
        if match is None:
            raise ReferenceFileError(
                f'{path}: {".".join(where)}: no entry for {subkey}='
                f'{value!r} (entries: {", ".join(repr(k) for k in keys)})'
            )

        where.append(str(match))
        data = data[match]

    return '.'.join(where), data


def _identity_key(path, where, keys, value):
    '''The entry whose identity a run of identity ``value`` may be
    compared with; else an error that names every differing input.'''
    for key in keys:
        if identity.matches(key, value):
            return key

    found = '; '.join(
        f'[{", ".join(identity.differences(key, value))}]' for key in keys
    ) or 'no entries'
    raise IdentityMismatch(
        f'{path}: {".".join(where)}: identity mismatch: the references were '
        f'measured with other inputs than this run ({found}); this run: '
        f'{value!r}. Propose references for these inputs '
        f'(hpc-acceptance propose-references) or run with the inputs of '
        f'the references',
        where=f'{path}: {".".join(where)}', value=value,
        differing={key: identity.differing_fields(key, value) for key in keys}
    )


def _index_value(test, subkey):
    if subkey == '$system':
        return test.current_system.name
    if subkey == '$partition':
        return test.current_partition.fullname
    if subkey == '$environ':
        return test.current_environ.name
    if subkey.startswith('$processor.'):
        return getattr(test.current_partition.processor, subkey[11:], None)

    return getattr(test, subkey, None)


def check_variables(path, where, entry, units):
    '''Check an entry's performance variables against the test's.

    :arg units: ``{performance variable: unit}`` of the test.
    :raises ReferenceFileError: for a variable the test reports that has no
        reference, one the test does not report, or a unit that differs
        from the test's.
    '''
    missing = sorted(set(units) - set(entry))
    if missing:
        raise ReferenceFileError(
            f'{path}: {where}: no reference for {", ".join(missing)}'
        )

    for variable, ref in entry.items():
        if variable not in units:
            raise ReferenceFileError(
                f'{path}: {where}.{variable}: the check reports no such '
                f'performance variable (it reports: '
                f'{", ".join(sorted(units))})'
            )

        if ref[3] != units[variable]:
            raise ReferenceFileError(
                f'{path}: {where}.{variable}: unit {ref[3]!r} differs from '
                f'the check\'s {units[variable]!r}'
            )
