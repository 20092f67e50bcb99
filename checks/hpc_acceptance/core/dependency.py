'''Where a check's benchmark binary comes from.

Sources are tried in this order, and the first one that has the binary wins:

1. ``spack``: the partition names a Spack environment
   (``extras: {'spack_env': ...}``) and ``spack`` is on ``PATH``; the binary
   is loaded from that environment with ``spack load``;
2. ``module``: the partition maps the executable to an environment module
   (``extras: {'modules': {'hpcc': 'hpcc/1.5.0'}}``);
3. ``path``: the executable is on the ``PATH`` ReFrame runs with;
4. ``in-tree``: the check built it from ``src/`` (only where one exists).

When none applies the check is skipped with a message that says what to
install or set. The chosen source is recorded in the perflog.
'''

import os
import shutil
from dataclasses import dataclass, field
from typing import Optional

from hpc_acceptance.core import isa as isa_variants
from hpc_acceptance.core.paths import PROJECT_DIR


@dataclass(frozen=True)
class Requirement:
    '''A benchmark binary a check needs.'''

    #: Executable name, as installed by Spack or the distribution
    executable: str
    #: Spack spec that provides it, or ``None`` when Spack has no package
    spack_spec: Optional[str] = None
    #: Debian package that provides it, or ``None``
    debian_package: Optional[str] = None
    #: Extra advice for sites that build it themselves
    hint: Optional[str] = None
    #: Name of the in-tree build's program, where it differs from
    #: :attr:`executable` (so that nothing mistakes it for the original)
    in_tree_executable: Optional[str] = None


@dataclass(frozen=True)
class Resolution:
    '''The outcome of looking for a :class:`Requirement`.'''

    #: ``spack``, ``module``, ``path``, ``in-tree`` or ``None`` if missing
    source: Optional[str]
    #: What to run: an absolute path, or a name the prerun commands provide
    executable: Optional[str] = None
    #: Shell commands that make :attr:`executable` available
    prerun_cmds: list = field(default_factory=list)
    #: Environment modules to load
    modules: list = field(default_factory=list)
    #: Where it came from (environment, module, file or build directory)
    detail: str = ''
    #: Why nothing was found, with what to install or set
    reason: str = ''
    #: Why the check must fail rather than skip: the partition's Spack
    #: environment should provide the binary and does not
    failure: str = ''
    #: For ``spack``: the environment, the spec loaded from it and the
    #: ``target=`` the spec asks for (``None``: whatever is installed)
    spack_env: Optional[str] = None
    spack_spec: Optional[str] = None
    spack_target: Optional[str] = None

    @property
    def found(self):
        return self.source is not None

    def describe(self):
        '''One-word-and-detail summary for the perflog.'''
        return f'{self.source}:{self.detail}' if self.found else 'missing'


def spack_environment(partition_extras):
    '''Absolute path of the partition's Spack environment, or ``None``.'''
    env = (partition_extras or {}).get('spack_env')
    if not env:
        return None

    return os.path.normpath(os.path.join(PROJECT_DIR, env))


def spack_resolution(spack_env, spec, executable, target=None):
    '''``executable`` loaded with ``spack load`` of ``spec`` (built for
    ``target`` when given) from the Spack environment ``spack_env``.'''
    if target:
        spec += f' target={target}'

    return Resolution(
        source='spack', executable=executable,
        detail=f'{spack_env} ({spec})',
        prerun_cmds=[f'eval "$(spack -e {spack_env} load --sh {spec})"'],
        spack_env=spack_env, spack_spec=spec, spack_target=target
    )


def resolve(requirement, *, partition_name, partition_extras,
            in_tree_dir=None, in_tree_unsupported=None, isa='native',
            native_target=None, which=shutil.which):
    '''Find ``requirement`` for a partition; see the module documentation.

    :arg in_tree_dir: directory of the check's in-tree build for ``isa``, or
        ``None`` if the check has none.
    :arg in_tree_unsupported: why the in-tree build could not target
        ``isa``, or ``None`` if it could. It matters only where the in-tree
        build is the source that would be used: a partition whose Spack
        environment builds the ISA does not need it.
    :arg isa: the ISA variant: Spack builds it as ``target=``; a binary from
        a module or ``PATH`` is one fixed build and serves ``native`` only.
    :arg native_target: the partition's ``processor.arch``, the ``target=``
        of ``isa='native'`` (an environment holds one build per target).
    :arg which: ``shutil.which``-like lookup (replaceable in tests).
    '''
    exe = requirement.executable
    extras = partition_extras or {}
    spack_env = spack_environment(extras)
    if spack_env and requirement.spack_spec and which('spack'):
        return spack_resolution(
            spack_env, requirement.spack_spec, exe,
            target=isa_variants.spack_target(isa) or native_target
        )

    module = extras.get('modules', {}).get(exe)
    found = which(exe)
    if isa == 'native' and module:
        return Resolution(source='module', executable=exe, modules=[module],
                          detail=module)

    if isa == 'native' and found:
        return Resolution(source='path', executable=found, detail=found)

    if in_tree_dir and in_tree_unsupported:
        return Resolution(source=None,
                          reason=f'isa={isa}: {in_tree_unsupported}')

    if in_tree_dir:
        # The build fixture's sanity check guarantees the binary is there.
        return Resolution(source='in-tree',
                          executable=os.path.join(
                              in_tree_dir,
                              requirement.in_tree_executable or exe),
                          detail=in_tree_dir)

    if module or found:
        return Resolution(source=None, reason=(
            f'isa={isa}: {exe} comes from {module or found}, one fixed '
            f'build; building per ISA needs the partition\'s Spack '
            f'environment ({requirement.spack_spec} '
            f'target={isa_variants.spack_target(isa)})'
        ))

    return Resolution(source=None, reason=_missing_message(
        requirement, partition_name, spack_env, which
    ))


def _missing_message(requirement, partition_name, spack_env, which):
    exe = requirement.executable
    looked = []
    if requirement.spack_spec:
        if not spack_env:
            looked.append(f'partition {partition_name!r} names no Spack '
                          f'environment (extras.spack_env)')
        elif not which('spack'):
            looked.append(f'"spack" is not on PATH for the environment '
                          f'{spack_env}')

    looked.append(f'{exe!r} is not on PATH and no module is mapped to it '
                  f'(extras.modules)')
    todo = []
    if requirement.debian_package:
        todo.append(f'apt-get install {requirement.debian_package}')

    if requirement.spack_spec:
        todo.append(f'add "{requirement.spack_spec}" to the partition\'s '
                    f'Spack environment and set extras.spack_env')

    if requirement.hint:
        todo.append(requirement.hint)

    return (f'{exe} not found: ' + '; '.join(looked) +
            '. To provide it: ' + ' or '.join(todo or ['put it on PATH']))
