'''``spack load --sh`` that prints every variable the load changes, run by
Spack's own Python for :mod:`hpc_acceptance.core.spack_load`, never
imported::

    spack -e <env> python spack_load_every_variable.py <marker> <spec>...

Spack's ``load --sh`` prints only the variables whose value it changes in
the calling process (``EnvironmentModifications.shell_modifications``
compares with ``os.environ``; Spack 1.2): a variable the load sets to the
value the caller already has, or unsets where the caller has none, is not
printed, and a job whose modules set it would keep their value. Here
Spack's own ``load`` command runs with that comparison made against an
environment in which every variable the load touches holds ``<marker>``
followed by its name, and with every such variable printed: Spack's value
shows where the job's own value goes, and nothing the load does is left
out.

Fails, printing nothing, when the load does more to a variable than set,
unset, prepend or append (remove a directory, reorder, add flags): what
that does depends on the job's own value, so the job has to run
``spack load`` itself. Fails too when this Spack's ``load`` printed
without ``shell_modifications`` (another Spack version): then nothing
says that its output is complete.
'''

import argparse
import sys

import spack.cmd.load
from spack.util.environment import EnvironmentModifications

#: Modifications whose effect a marker shows for every value of the job's.
WRITABLE = {'SetEnv', 'UnsetEnv', 'SetPath', 'PrependPath', 'AppendPath'}

marker = sys.argv[1]
spack_shell_modifications = EnvironmentModifications.shell_modifications
#: The shells Spack's ``load`` asked :func:`every_variable` to print for.
asked = []


def every_variable(self, shell='sh', explicit=False, env=None):
    others = {type(m).__name__ for m in self.env_modifications} - WRITABLE
    if others:
        sys.exit(f'spack load {" ".join(sys.argv[2:])} does '
                 f'{", ".join(sorted(others))}: not written for the job')

    marked = {name: marker + name for name in self.group_by_name()}
    asked.append(shell)
    return spack_shell_modifications(self, shell, explicit=True, env=marked)


EnvironmentModifications.shell_modifications = every_variable
parser = argparse.ArgumentParser(prog='spack load')
spack.cmd.load.setup_parser(parser)
status = spack.cmd.load.load(parser,
                             parser.parse_args(['--sh', *sys.argv[2:]]))
if status or asked != ['sh']:
    sys.exit(status or 'spack load printed without shell_modifications')
