'''ReFrame configuration layered last in a fleet run's per-node job
(``-C config/settings.py [-C ...] -C config/fleet_node.py``): the system the
run names, its partitions as the coordinator wrote them for the node's own
ReFrame (:mod:`hpc_acceptance.tools.node_jobs.node_system`), whose
scheduler is the node itself (:mod:`hpc_acceptance.core.node_scheduler`).
A system defined in a later file comes first, so ``--system NAME`` picks
this one.

The file the coordinator wrote is named by ``HPC_ACCEPTANCE_NODE_SYSTEM``.
'''

import json
import os

from reframe.core.exceptions import ConfigError

# registers the scheduler the partitions name
from hpc_acceptance.core import node_scheduler  # noqa: F401

#: The variable naming the node's system (a JSON file).
VARIABLE = 'HPC_ACCEPTANCE_NODE_SYSTEM'

_path = os.environ.get(VARIABLE)
if not _path:
    raise ConfigError(f'{VARIABLE} is not set: this configuration is '
                      f'layered only in a fleet run\'s per-node job')

try:
    with open(_path) as _fp:
        _system = json.load(_fp)
except (OSError, ValueError) as err:
    raise ConfigError(f'{VARIABLE}={_path}: {err}') from None

site_configuration = {'systems': [_system]}
