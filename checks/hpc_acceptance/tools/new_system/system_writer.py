'''The system file ``hpc-acceptance new-system`` writes
(``<site>/systems/<name>.py``, the format of ``config/systems/``), each
value beside a comment saying where it was read; and the site's
``config.py`` that layers the site directory over ``config/settings.py``.
'''

import re
import textwrap
from dataclasses import dataclass, field

#: The site's ``config.py``: written once, it reads every system file of
#: the site directory.
SITE_CONFIG = """\
'''This site's systems, layered over the acceptance suite's configuration:

    reframe -C <checkout>/config/settings.py -C <this file> ...

or, for every command of the suite (ci/acceptance.sh, propose-references):

    export HPC_ACCEPTANCE_SITE_DIR=<this directory>

The systems are in systems/, their Spack environments in spack-envs/, their
references in reference/ and their nodes' topologies in topology/.
'''

from hpc_acceptance.core import site

site_configuration = site.layer(__file__)
"""


@dataclass(frozen=True)
class Value:
    '''A configuration value and where it was read.'''
    value: object
    why: str = ''


@dataclass(frozen=True)
class PartitionEntry:
    '''What the system file says about one partition.'''
    name: str
    descr: Value
    scheduler: Value
    launcher: Value
    memory_bytes: Value
    max_jobs: Value
    access: Value = Value([])
    env_vars: list = field(default_factory=list)
    max_nodes: Value = None
    turbo_control: Value = None
    resources: list = field(default_factory=list)
    #: comments about the partition that set no value (SMT, peaks, ...)
    notes: list = field(default_factory=list)


def _comment(why, indent):
    return [f'{" " * indent}# {line}'
            for line in textwrap.wrap(why, 76 - indent)]


def _item(key, value, indent, literal=None):
    '''``'key': value,`` with its comment above it.'''
    text = literal if literal is not None else repr(value.value)
    return _comment(value.why, indent) + [f'{" " * indent}{key!r}: {text},']


def _list(key, values, indent):
    '''``'key': [...],`` with a comment above each item; nothing for no
    items.'''
    if not values:
        return []

    lines = [f'{" " * indent}{key!r}: [']
    for value in values:
        lines += _comment(value.why, indent + 4)
        lines.append(f'{" " * (indent + 4)}{value.value!r},')

    return lines + [f'{" " * indent}],']


def _partition(entry, system_name, env_name):
    lines = ['        {']
    lines += _item('name', Value(entry.name), 12)
    lines += _item('descr', entry.descr, 12)
    lines += _item('scheduler', entry.scheduler, 12)
    lines += _item('launcher', entry.launcher, 12)
    if entry.access.value:
        lines += _item('access', entry.access, 12)

    lines += _item('environs', Value([env_name]), 12)
    lines += _item('max_jobs', entry.max_jobs, 12)
    lines += _item('features', Value(['compute']), 12)
    lines += _list('env_vars', entry.env_vars, 12)
    lines += _list('resources', entry.resources, 12)

    lines.append("            'extras': {")
    lines += _item('spack_env', Value(None), 16,
                   literal=f"str(_SITE / 'spack-envs' / {system_name!r})")
    lines += _item('memory_bytes', entry.memory_bytes, 16)
    if entry.max_nodes is not None:
        lines += _item('max_nodes', entry.max_nodes, 16)

    if entry.turbo_control is not None:
        lines += _item('turbo_control', entry.turbo_control, 16)

    for note in entry.notes:
        lines += _comment(note, 16)

    lines += ['            },', '        },']
    return lines


def render(*, name, command, hostname, modules_system, partitions,
           environment):
    '''The system file's text.

    :arg environment: ``(ReFrame environment name, {key: Value})`` with
        the keys ``cc``, ``cxx``, ``ftn``, ``modules`` and ``compiler``.
    '''
    env_name, env = environment
    lines = [
        f"'''{name}: written from what the machine said by",
        '',
        f'    {command}',
        '',
        'Review it: each value says where it was read. Each partition\'s',
        'processor topology is in topology/<system>-<partition>/'
        'processor.json of',
        'the site directory, where ReFrame reads it (topology_prefix);',
        '`reframe --detect-host-topology` wrote it on a node of the '
        'partition.',
        "'''",
        '',
        'from pathlib import Path',
        '',
        '#: The site directory: this file is in its systems/.',
        '_SITE = Path(__file__).resolve().parents[1]',
        '',
        'system = {',
    ]
    lines += _item('name', Value(name), 4)
    lines += _item('descr', Value(f'{name}, brought in by hpc-acceptance '
                                  f'new-system'), 4)
    lines += _item('hostnames', Value(
        [f'^{re.escape(hostname)}$'],
        f'the host new-system ran on ({hostname}): add the other hosts '
        f'ReFrame runs on (regular expressions)'), 4)
    lines += _item('modules_system', modules_system, 4)
    lines.append("    'partitions': [")
    for entry in partitions:
        lines += _partition(entry, name, env_name)

    lines += ['    ],', '}', '', 'environments = [', '    {']
    lines += _item('name', Value(env_name), 8)
    for key in ('cc', 'cxx', 'ftn'):
        lines += _item(key, env[key], 8)

    if env['modules'].value:
        lines += _item('modules', env['modules'], 8)

    lines += _item('features', Value(['openmp', 'mpi']), 8)
    lines += _item('extras', Value({'compiler': env['compiler'].value},
                                   env['compiler'].why), 8)
    lines += _item('target_systems', Value([name]), 8)
    lines += ['    }', ']', '']
    return '\n'.join(lines)
