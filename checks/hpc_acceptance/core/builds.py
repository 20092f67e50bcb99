'''Building the in-tree programs of ``src/``, and the clock probe.

An :class:`InTreeBuild` compiles one folder of ``src/`` once per partition
and programming environment, for the native ISA and for every ISA variant,
each into its own directory of the stage (``native/``, ``avx2/``, ...).
Flags come from archspec for the environment's compiler
(``extras.compiler``). An ISA the compiler cannot target is not an error:
its directory holds ``UNSUPPORTED`` with the reason, and the variants that
need it skip with that reason.
'''

import os
import shlex

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.builtins import run_after, run_before, sanity_function, \
    variable

from hpc_acceptance.core import isa
from hpc_acceptance.core.paths import SRC_DIR

UNSUPPORTED = 'UNSUPPORTED'


class InTreeBuild(rfm.CompileOnlyRegressionTest):
    '''Builds ``src/<folder>`` for every ISA variant.'''

    #: The folder of ``src/`` to build.
    #:
    #: :type: :class:`str`
    folder = variable(str)

    #: The programs its Makefile builds.
    #:
    #: :type: :class:`List[str]`
    programs = variable(typ.List[str])

    #: ISA variants to build, ``native`` included.
    #:
    #: :type: :class:`List[str]`
    #: :default: every variant in :data:`hpc_acceptance.core.isa.VARIANTS`
    isas = variable(typ.List[str], value=list(isa.VARIANTS))

    build_system = 'CustomBuild'
    # Built on the partition itself: native flags must see its CPU.
    build_locally = False

    @run_after('init')
    def use_the_folder(self):
        self.sourcesdir = str(SRC_DIR / self.folder)

    def isa_dir(self, name):
        '''Directory of the build for ISA variant ``name``.'''
        return os.path.join(self.stagedir, name)

    def unsupported(self, name):
        '''Why ISA variant ``name`` was not built, or ``None``.'''
        path = os.path.join(self.isa_dir(name), UNSUPPORTED)
        if not os.path.exists(path):
            return None

        with open(path) as fp:
            return fp.read().strip()

    @run_before('compile')
    def build_every_isa(self):
        environ = self.current_environ
        compiler = environ.extras.get('compiler')
        base = ' '.join(environ.cflags) or '-O3'
        commands = []
        for name in self.isas:
            commands.append(f'mkdir -p {name}')
            try:
                flags = isa.build_flags(name, compiler)
            except isa.UnsupportedIsa as err:
                commands.append(f'echo {shlex.quote(str(err))} > '
                                f'{name}/{UNSUPPORTED}')
                continue

            # One object directory per ISA, sources from the folder above.
            commands.append(
                f'make -C {name} -f ../Makefile VPATH=.. -j '
                f'CC={shlex.quote(environ.cc)} '
                f'CFLAGS={shlex.quote(f"{base} {flags}".strip())} '
                f'{" ".join(self.programs)}'
            )

        self.build_system.commands = commands

    @sanity_function
    def every_supported_isa_built(self):
        checks = []
        for name in self.isas:
            if self.unsupported(name) is not None:
                continue

            for program in self.programs:
                path = os.path.join(self.isa_dir(name), program)
                checks.append(sn.assert_true(
                    os.access(path, os.X_OK),
                    msg=f'{name}/{program} was not built'
                ))

        return sn.all(checks)


class ClockProbeBuild(InTreeBuild):
    '''``core_clock`` alone, native: every check measures the core clock.'''

    folder = 'memory'
    programs = ['core_clock']
    isas = ['native']
