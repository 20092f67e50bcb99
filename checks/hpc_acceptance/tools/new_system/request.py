'''What ``hpc-acceptance new-system`` is asked to bring in, and how; the
usage errors of a request its options alone cannot tell (a name ReFrame
refuses, a site directory inside this checkout).
'''

import dataclasses
import os
import shlex
from typing import Optional

from hpc_acceptance.core import site
from hpc_acceptance.core.paths import PROJECT_DIR
from hpc_acceptance.tools.common import console, identifiers


@dataclasses.dataclass
class Request:
    '''What to bring in and how, as ``hpc-acceptance new-system`` takes
    it.'''
    name: str
    site_dir: str
    scheduler: str = 'slurm'
    partition: list = dataclasses.field(default_factory=list)
    module: list = dataclasses.field(default_factory=list)
    probe_timeout: float = 600
    dry_run: bool = False
    force: bool = False
    #: Spack's concretization of the written environment left to the
    #: install (a few minutes of the node's cores saved here)
    concretize: bool = True
    #: ReFrame's prefix (``RFM_PREFIX``), below which the probes write
    #: (``None``: the checkout's ``var/``)
    reframe_prefix: Optional[str] = None

    def problem(self):
        '''What makes the request unusable, as a usage error says it;
        ``None`` where nothing does.'''
        if not identifiers.NAME.fullmatch(self.name):
            return (f'NAME {self.name!r}: letters, digits, "-" and "_", '
                    f'starting with a letter or "_" (ReFrame\'s rule)')

        if not self.site_dir:
            return (f'name the site directory to write into: --site-dir '
                    f'DIR or {site.VARIABLE} (outside this checkout, e.g. '
                    f'in the site\'s own repository)')

        root = os.path.realpath(self.site_dir)
        if os.path.commonpath([root, str(PROJECT_DIR)]) == str(PROJECT_DIR):
            return (f'--site-dir {self.site_dir} is inside this checkout: '
                    f'keep the site\'s files in a directory of their own')

        if self.scheduler == 'local' and self.partition:
            return '--partition is for --scheduler slurm'

        for option, values in (('--partition', self.partition),
                               ('--module', self.module)):
            for value in values:
                if console.has_control(value):
                    return (f'{option} {value!r}: a control character '
                            f'(the written files quote the command)')

        return None

    def command_line(self):
        '''The command, as the written files say they were made: each
        word quoted for a shell, on one line (a comment of the files).'''
        return shlex.join(['hpc-acceptance', 'new-system', self.name,
                           '--scheduler', self.scheduler] +
                          [w for p in self.partition
                           for w in ('--partition', p)] +
                          [w for m in self.module for w in ('--module', m)])
