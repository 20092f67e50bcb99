'''Published figures of the seed papers' systems: ``reference/published``.

Each file is a reference file in this suite's format (check class,
``$index`` over variant parameters, ``[value, lower, upper, unit]`` per
performance variable, in the checks' units) plus two keys of its own:
``$system`` (what the system was and where the figures come from) and
``$sources`` (for every figure, ``Check.<index values>.variable``: the
section and the quote it comes from). They are not used as bounds; they let
a run on this system be compared with those machines.
'''

import os

import yaml

from hpc_acceptance.core import references
from hpc_acceptance.core.paths import REFERENCE_DIR

PUBLISHED_DIR = REFERENCE_DIR / 'published'


def load(path):
    '''``{'system': ..., 'figures': reference data, 'sources': ...}``.

    :raises references.ReferenceFileError: on a malformed file, a figure
        without a source or a source without a figure.
    '''
    try:
        with open(path) as fp:
            data = yaml.safe_load(fp)
    except (OSError, yaml.YAMLError) as err:
        raise references.ReferenceFileError(f'{path}: {err}') from None

    if not (isinstance(data, dict) and
            isinstance(data.get('$system'), dict)):
        raise references.ReferenceFileError(
            f'{path}: needs a $system mapping describing the system')

    system = data.pop('$system')
    sources = data.pop('$sources', None) or {}
    references.check_shape(path, data)
    leaves = set(_leaf_keys(data))
    unsourced = sorted(leaves - set(sources))
    if unsourced:
        raise references.ReferenceFileError(
            f'{path}: {unsourced[0]}: no source in $sources')

    orphans = sorted(set(sources) - leaves)
    if orphans:
        raise references.ReferenceFileError(
            f'{path}: $sources.{orphans[0]}: no such figure')

    return {'system': system, 'figures': data, 'sources': sources}


def load_all(directory=PUBLISHED_DIR):
    '''``{file stem: loaded file}`` for every ``*.yaml`` in ``directory``.'''
    return {os.path.splitext(name)[0]: load(os.path.join(directory, name))
            for name in sorted(os.listdir(directory))
            if name.endswith('.yaml')}


def _leaf_keys(figures):
    '''``check.key...`` of every figure: the keys below each ``$index``
    level (one level without an index).'''
    for check, entry in figures.items():
        depth = len(entry.get('$index', [None]))
        for keys in references.keys_at_depth(entry, depth):
            yield '.'.join([check] + keys)
