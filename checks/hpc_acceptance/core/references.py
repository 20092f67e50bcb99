'''Per-system reference files: ``reference/<system>.yaml``.

A reference file is ReFrame's external reference format: one entry per
check class, an optional ``$index`` over test attributes (``$partition``,
variant parameters, ...) and, at the leaves, one
``[value, lower, upper, unit]`` per performance variable, where ``lower``
and ``upper`` are fractions (``-0.1``, ``0.1``) and ``null`` leaves a side
open. ReFrame itself reads the file and looks a check's entry up
(``reference = {'$ref': file}``); the checks add what ReFrame does not do
before a benchmark has run.

A system without a file runs its checks without bounds and says so; a
system with a file must have an entry for every check and figure it runs
(checks set ``require_reference``). A system's file is looked for in the
directory ``RFM_REFERENCE_PREFIX`` names, else in the site directory's
``reference/`` (:mod:`hpc_acceptance.core.site`), then in the checkout's.

Validation, each error naming the file and the key at fault:

- when ReFrame loads the configuration (:func:`check_files`): syntax
  (ReFrame's own reading lets a YAML error through without its line),
  shape and tolerance signs (ReFrame checks tolerances only when it
  compares a figure, after the benchmark ran);
- when a check is set up (:func:`load_for`): the same, and the partition
  keys against the partitions of the system it runs on, whichever
  configuration files defined them;
- just before a check runs (:func:`check_variables`): the performance
  variables and units it reports, which ReFrame would only find missing
  once the benchmark ran, and a different unit only warn about.
'''

import difflib
import functools
import os
import re

import yaml
from reframe.core.exceptions import ReframeError

from hpc_acceptance.core import identity, site
from hpc_acceptance.core.paths import REFERENCE_DIR


class ReferenceFileError(ReframeError):
    '''A reference file cannot be used; the message names file and key.

    A ReFrame error, so a check that hits it fails with this message alone
    rather than with a source listing.
    '''


class MissingReferenceEntry(ReferenceFileError):
    '''The file has no entry for a check, its variant or its inputs.'''


class IdentityMismatch(MissingReferenceEntry):
    '''No entry of a reference file has the identity of the run.'''

    def __init__(self, message, *, where, value, differing):
        super().__init__(message)
        #: the file and entry, as ``path: Check.partition.identity``
        self.where = where
        #: the run's identity
        self.value = value
        #: ``{entry's identity: [names of the inputs that differ]}``
        self.differing = differing


def search_dirs(configured_prefix, site_root):
    '''The directories a system's file is looked for in, in order: the
    configured prefix alone, else the site directory ``site_root``'s
    (``None``: no site directory) and the checkout's.'''
    if configured_prefix:
        return [str(configured_prefix)]

    dirs = [str(site.reference_dir(site_root))] if site_root else []
    return dirs + [str(REFERENCE_DIR)]


def reference_file(system_name, directories):
    '''Path of the system's reference file in the first of
    ``directories`` (:func:`search_dirs`) that has one, or ``None``.'''
    for directory in directories:
        path = os.path.join(directory, f'{system_name}.yaml')
        if os.path.isfile(path):
            return path

    return None


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


def check_files(directories):
    '''Load every ``*.yaml`` directly in ``directories`` (those that
    exist), checking syntax and shape; what a file needs of the
    configuration (its partitions) is checked by :func:`load_for`.

    :raises ReferenceFileError: for the first file that cannot be used.
    '''
    for directory in directories:
        if not os.path.isdir(directory):
            continue

        for name in sorted(os.listdir(directory)):
            if name.endswith('.yaml'):
                load(os.path.join(directory, name))


def load_for(path, partitions):
    '''The data of the reference file ``path`` of a system whose
    partitions (full names) are ``partitions``, checked once per process
    and version of the file.

    :raises ReferenceFileError: as :func:`load` does, and for a
        ``$partition`` key that matches none of ``partitions``.
    '''
    return _load_checked(path, os.stat(path).st_mtime_ns, tuple(partitions))


@functools.lru_cache(maxsize=None)
def _load_checked(path, mtime_ns, partitions):
    data = load(path)
    for check, entry in data.items():
        _check_partition_keys(path, check, entry, partitions)

    return data


def _check_partition_keys(path, check, entry, partitions):
    # ReFrame would find no entry for a misspelt partition and run the
    # check without bounds; a reference that can never apply is an error.
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


def no_entry(path, check, data):
    '''The error for a file without an entry for ``check``, naming the
    entries of the file that look like a misspelling of it.'''
    alike = difflib.get_close_matches(check, [str(k) for k in data], n=3)
    hint = (f' (it has {", ".join(alike)}: a misspelling?)' if alike else
            '')
    return MissingReferenceEntry(f'{path}: no entry for {check}{hint}')


def identity_key(path, where, keys, value):
    '''The key among ``keys`` whose identity a run of identity ``value``
    may be compared with (inputs not known yet are not compared); else an
    error that names every differing input.

    ReFrame finds an equal key itself; checks hand it this for the
    identities that are not equal but match (see
    :class:`~hpc_acceptance.core.check.AcceptanceCheck`).
    '''
    for key in keys:
        if identity.matches(key, value):
            return key

    found = '; '.join(
        f'[{", ".join(identity.differences(key, value))}]' for key in keys
    ) or 'no entries'
    raise IdentityMismatch(
        f'{path}: {where}: the references were '
        f'measured with other inputs than this run ({found}); this run: '
        f'{value!r}. Propose references for these inputs '
        f'(hpc-acceptance propose-references) or run with the inputs of '
        f'the references',
        where=f'{path}: {where}', value=value,
        differing={key: identity.differing_fields(key, value) for key in keys}
    )


def unbounded(variable):
    '''Whether a performance variable needs no reference: a kernel's
    figure at its median repetition (``bandwidth_l1_median``) and the
    ratio of its best repetition to it (``best_to_median_l1``), which a
    site's reference files written before the kernels printed them do not
    have. An entry that has them bounds them.'''
    return variable.endswith('_median') or \
        variable.startswith('best_to_median')


def check_variables(path, where, entry, units):
    '''Check an entry's performance variables against the test's.

    :arg units: ``{performance variable: unit}`` of the test.
    :raises ReferenceFileError: for a variable the test reports that has no
        reference, one the test does not report, or a unit that differs
        from the test's.
    '''
    missing = sorted(v for v in set(units) - set(entry) if not unbounded(v))
    if missing:
        raise ReferenceFileError(
            f'{path}: {where}: no reference for {", ".join(missing)}'
        )

    for variable, ref in entry.items():
        if variable not in units and unbounded(variable):
            # the program prints it, if at all, once it has run
            continue

        if variable not in units:
            raise ReferenceFileError(
                f'{path}: {where}: {variable}: the check reports no such '
                f'performance variable (it reports: '
                f'{", ".join(sorted(units))})'
            )

        if ref[3] != units[variable]:
            raise ReferenceFileError(
                f'{path}: {where}: {variable}: unit {ref[3]!r} differs from '
                f'the check\'s {units[variable]!r}'
            )
