'''Instruction-set variants: which CPUs run them and how to build for them.

Each ISA variant is an archspec microarchitecture (the library Spack uses),
so compiler flags come from archspec's per-compiler, per-version table and
Spack builds use the same name as ``target=``. ``native`` is the build
host's best: ``-march=native`` for in-tree builds, Spack's default target.
'''

import archspec.cpu

#: ISA variant -> archspec target. AVX has no generic x86-64 level: Sandy
#: Bridge is the first microarchitecture with it and nothing more.
TARGETS = {
    'sse4.2': 'x86_64_v2',
    'avx': 'sandybridge',
    'avx2': 'x86_64_v3',
    'avx512': 'x86_64_v4',
}

#: ISA variants in the order the checks generate them; ``native`` first.
VARIANTS = ('native',) + tuple(TARGETS)

#: How to ask each compiler family for the host's own ISA.
_NATIVE_FLAGS = {
    'gcc': '-march=native',
    'clang': '-march=native',
    'oneapi': '-xHost',
    'intel': '-xHost',
    'nvhpc': '-tp=native',
}


#: Features every CPU of an architecture family has (x86-64's psABI
#: baseline), which archspec's generic targets do not list.
_BASELINE = {'x86_64': {'cmov', 'cx8', 'fpu', 'fxsr', 'mmx', 'sse', 'sse2'}}


class UnsupportedIsa(Exception):
    '''This ISA variant cannot be built or run here; the message says why.'''


#: ``/proc/cpuinfo`` flags under the names archspec gives the features:
#: the kernel calls SSE3 ``pni`` (Prescott New Instructions).
_FLAG_NAMES = {'pni': 'sse3'}


def node_features(flags):
    '''The features of a CPU whose ``/proc/cpuinfo`` lists ``flags``,
    named as archspec names them.'''
    return {_FLAG_NAMES.get(flag, flag) for flag in flags}


def cpu_supports(processor_info, isa, flags=None):
    '''Raise :class:`UnsupportedIsa` unless the processor can run ``isa``.

    The processor's archspec name (``processor.arch``, auto-detected or
    written in the configuration) must have every feature the variant needs
    (:func:`needed_features`), and so must the node's own CPU flags where
    they are known (``flags``, its ``/proc/cpuinfo``:
    :mod:`hpc_acceptance.core.node_facts`). The message names what the
    flags lack where they lack something (archspec's generic targets list
    fewer features than a CPU has: ``x86_64`` none), else what archspec's
    target lacks.
    '''
    if isa == 'native':
        return

    arch = (processor_info or {}).get('arch')
    if not arch or arch not in archspec.cpu.TARGETS:
        raise UnsupportedIsa(
            f'the processor of this partition is {arch or "not described"}'
            f'; set processor.arch to its archspec name to run ISA variants'
        )

    family = archspec.cpu.TARGETS[arch].family.name
    target = archspec.cpu.TARGETS[TARGETS[isa]]
    if family != target.family.name:
        raise UnsupportedIsa(
            f'the CPU ({arch}) is {family}: {isa} is an '
            f'{target.family.name} instruction set; the ISA variants are '
            f'x86-64 levels, only native runs here')

    # archspec's generic x86_64 lists no features: every x86-64 CPU has
    # the baseline ones, which would be named as missing
    missing = (needed_features(isa) - archspec.cpu.TARGETS[arch].features -
               _BASELINE.get(family, set()))
    where = f'archspec\'s {arch} lacks'
    lacking = needed_features(isa) - node_features(flags or ())
    if flags and lacking:
        missing, where = lacking, 'its flags in /proc/cpuinfo lack'
    if missing:
        raise UnsupportedIsa(
            f'the CPU ({arch}) cannot run {isa} code: {where} '
            f'{", ".join(sorted(missing))}'
        )


def needed_features(isa):
    '''The CPU features an ``isa`` variant's code needs: those of its
    target, except for ``avx``: Sandy Bridge also brought AES and
    carry-less multiplication, which no compiler emits unasked and which
    archspec's generic levels (``x86_64_v3``, ``x86_64_v4``: the name of a
    CPU it knows only by its level) do not list, so only SSE4.2's level and
    AVX itself.'''
    if isa == 'avx':
        return archspec.cpu.TARGETS['x86_64_v2'].features | {'avx'}

    return archspec.cpu.TARGETS[TARGETS[isa]].features


def build_flags(isa, compiler):
    '''Compiler flags that build for ``isa``.

    :arg compiler: ``{'name': 'gcc', 'version': '12.2.0'}`` from the
        environment's ``extras.compiler``, or ``None``.
    :raises UnsupportedIsa: if the compiler is unknown or cannot target it.
    '''
    name = (compiler or {}).get('name')
    if isa == 'native':
        return _NATIVE_FLAGS.get(name, '')

    version = (compiler or {}).get('version')
    if not name or not version:
        raise UnsupportedIsa(
            'the programming environment declares no compiler '
            '(extras.compiler: {name, version}) to choose flags for'
        )

    try:
        flags = archspec.cpu.TARGETS[TARGETS[isa]].optimization_flags(
            name, version
        )
    except ValueError as err:
        raise UnsupportedIsa(f'{name} {version} cannot build for {isa}: '
                             f'{err}') from None

    # archspec answers an unknown compiler with no flags at all
    if not flags:
        raise UnsupportedIsa(f'archspec knows no flags of compiler {name!r} '
                             f'for {isa}')

    return flags


def spack_target(isa):
    '''The ``target=`` a Spack spec of this ISA variant carries, or None.'''
    return TARGETS.get(isa)
