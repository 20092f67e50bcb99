'''A site's own directory: its systems, their Spack environments,
references and node topologies, kept in the site's own repository rather
than in a fork of this checkout.

::

    <site>/config.py                        the configuration layer
    <site>/systems/<system>.py              system and environments, as in
                                            config/systems/
    <site>/spack-envs/<system>/spack.yaml   its Spack environment
    <site>/reference/<system>.yaml          its references
    <site>/topology/<system>-<partition>/processor.json
                                            its nodes' processor topology,
                                            where ReFrame looks for it
                                            (``topology_prefix``)

The directory is named by the variable :data:`VARIABLE`, which
``config/settings.py`` reads (so ``ci/acceptance.sh``,
``propose-references`` and the other commands find it), or by layering its
``config.py``::

    reframe -C config/settings.py -C <site>/config.py ...

which names the directory for the rest of that ReFrame run, so the checks
find the site's references. ``hpc-acceptance new-system`` writes these
files.
'''

import os
from pathlib import Path

from reframe.core.exceptions import ConfigError

from hpc_acceptance.core import system_files
from hpc_acceptance.core.paths import PROJECT_DIR

#: The environment variable naming the site directory.
VARIABLE = 'HPC_ACCEPTANCE_SITE_DIR'


class SiteError(ConfigError):
    '''The site directory cannot be used; the message says why. A
    configuration error, so ReFrame stops with this message alone.'''


def named():
    '''The site directory :data:`VARIABLE` names, or ``None``.'''
    value = os.environ.get(VARIABLE)
    return Path(value).resolve() if value else None


def systems_dir(root):
    return Path(root) / 'systems'


def reference_dir(root):
    return Path(root) / 'reference'


def topology_dir(root):
    return Path(root) / 'topology'


def system_modules(root):
    '''The loaded system files of the site directory ``root``.'''
    return [system_files.load(path)
            for path in sorted(systems_dir(root).glob('*.py'))]


def configuration(root):
    '''The site's part of ReFrame's configuration: its systems (run-time
    state under the checkout's ``var/``, as the checkout's own systems),
    its environments, and its topology directory as their
    ``topology_prefix``.'''
    root = Path(root).resolve()
    if not root.is_dir():
        raise SiteError(f'{VARIABLE}={root}: no such directory')

    modules = system_modules(root)
    names = [m.system['name'] for m in modules]
    for module in modules:
        module.system.setdefault('prefix', str(PROJECT_DIR / 'var'))

    return {
        'systems': [m.system for m in modules],
        'environments': [env for m in modules for env in m.environments],
        'general': [{'topology_prefix': str(topology_dir(root)),
                     'target_systems': names}] if names else [],
    }


def layer(config_file):
    '''``site_configuration`` of a site's ``config.py`` layered over
    ``config/settings.py``: the systems of the directory it is in, which
    from now on is the site directory of this run. Empty when
    ``config/settings.py`` already read them (:data:`VARIABLE` names the
    same directory).'''
    root = Path(config_file).resolve().parent
    current = named()
    if current == root:
        return {}

    if current is not None:
        raise SiteError(
            f'{config_file}: {VARIABLE} names another site directory, '
            f'{current}: use one site directory at a time'
        )

    os.environ[VARIABLE] = str(root)
    return configuration(root)
