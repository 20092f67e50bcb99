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


class UnsupportedIsa(Exception):
    '''This ISA variant cannot be built or run here; the message says why.'''


def cpu_supports(processor_info, isa):
    '''Raise :class:`UnsupportedIsa` unless the processor can run ``isa``.

    The processor's archspec name (``processor.arch``, auto-detected or
    written in the configuration) must have every feature of the variant's
    target.
    '''
    if isa == 'native':
        return

    arch = (processor_info or {}).get('arch')
    if not arch or arch not in archspec.cpu.TARGETS:
        raise UnsupportedIsa(
            f'the processor of this partition is {arch or "not described"}'
            f'; set processor.arch to its archspec name to run ISA variants'
        )

    missing = (archspec.cpu.TARGETS[TARGETS[isa]].features -
               archspec.cpu.TARGETS[arch].features)
    if missing:
        raise UnsupportedIsa(
            f'the CPU ({arch}) cannot run {isa} code: it lacks '
            f'{", ".join(sorted(missing))}'
        )


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
