'''The compiler and MPI a new system's checks build with, for
``hpc-acceptance new-system``: found by Spack itself
(``spack compiler find``, ``spack external find``), or read from the
modules the site names (``--module``), loaded the way ReFrame loads them in
a job.

Either way the result is a :class:`Toolchain`: what the ReFrame
environment needs (compiler wrappers, modules, the compiler for archspec's
ISA flags) and the Spack externals the system's environment declares, so
that Spack never rebuilds the site's compiler and MPI.
'''

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

import yaml
from reframe.core.exceptions import ConfigError
from reframe.core.modules import ModulesSystem

#: Spack packages of compilers, in the order one is preferred.
COMPILERS = ('gcc', 'llvm', 'intel-oneapi-compilers', 'nvhpc', 'aocc')

#: Spack packages of MPI libraries, in the order one is preferred.
MPIS = ('openmpi', 'mpich', 'mvapich2', 'intel-oneapi-mpi', 'cray-mpich')

#: Compiler package -> (compiler commands c, c++, Fortran; ReFrame
#: environment name; archspec's name of the compiler, for ISA flags).
COMPILER_NAMES = {
    'gcc': (('gcc', 'g++', 'gfortran'), 'gnu', 'gcc'),
    'llvm': (('clang', 'clang++', 'flang'), 'clang', 'clang'),
    'intel-oneapi-compilers': (('icx', 'icpx', 'ifx'), 'intel', 'oneapi'),
    'nvhpc': (('nvc', 'nvc++', 'nvfortran'), 'nvhpc', 'nvhpc'),
    'aocc': (('clang', 'clang++', 'flang'), 'aocc', 'aocc'),
}

#: What an MPI's version line starts with -> its Spack package.
MPI_BANNERS = (('Open MPI', 'openmpi'), ('MVAPICH', 'mvapich2'),
               ('Intel(R) MPI', 'intel-oneapi-mpi'), ('MPICH', 'mpich'))

#: The modules systems ReFrame knows, tried in this order.
MODULES_SYSTEMS = ('lmod', 'envmod')


class ToolchainError(RuntimeError):
    '''No compiler or MPI could be found; the message says what to pass.'''


@dataclass(frozen=True)
class Toolchain:
    #: Spack package of the compiler and its version
    compiler: str
    compiler_version: str
    #: Spack package of the MPI and its version
    mpi: str
    mpi_version: str
    #: the MPI's C, C++ and Fortran wrappers, as the environment names them
    wrappers: tuple
    #: ReFrame's modules system and the modules the environment loads
    modules_system: str = 'nomod'
    modules: tuple = ()
    #: Spack's ``packages:`` section declaring them as externals
    externals: dict = field(default_factory=dict)
    #: where they were read, for the comments of the generated files
    source: str = ''

    @property
    def environment_name(self):
        return COMPILER_NAMES[self.compiler][1]

    @property
    def archspec_compiler(self):
        '''``{'name', 'version'}`` of ``extras.compiler``: archspec's name
        of the compiler, for the ISA variants' flags.'''
        return {'name': COMPILER_NAMES[self.compiler][2],
                'version': self.compiler_version}


def version_of(spec):
    '''The version of a Spack spec string such as ``gcc@12.2.0 ...``.'''
    found = re.search(r'@=?([\w.+-]+)', spec)
    return found[1] if found else ''


def _newest(externals):
    def key(external):
        return [int(p) if p.isdigit() else 0
                for p in re.split(r'[.-]', version_of(external['spec']))]

    return max(externals, key=key)


def _spack(env_dir, *args):
    done = subprocess.run(['spack', '-e', env_dir, *args],
                          capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        raise ToolchainError(f'spack {" ".join(args)} failed: '
                             f'{(done.stderr or done.stdout).strip()}')

    return done.stdout


def from_spack(workdir):
    '''The compiler and MPI Spack finds here (its configuration after
    ``spack compiler find`` and ``spack external find``), run in a
    throw-away environment so that Spack's own configuration is not
    changed.'''
    env_dir = tempfile.mkdtemp(prefix='detect-', dir=workdir)
    with open(os.path.join(env_dir, 'spack.yaml'), 'w') as fp:
        fp.write('spack:\n  specs: []\n  view: false\n')

    # Where the compilers on PATH are: searching all of PATH takes minutes
    # on a loaded login node.
    commands = {c for names, _, _ in COMPILER_NAMES.values() for c in names}
    dirs = sorted({os.path.dirname(path) for path in
                   map(shutil.which, sorted(commands)) if path})
    _spack(env_dir, 'compiler', 'find', *dirs)
    _spack(env_dir, 'external', 'find', '--not-buildable', *MPIS, 'gmake')
    packages = yaml.safe_load(_spack(env_dir, 'config', 'get',
                                     'packages'))['packages']

    def externals(name):
        return [e for e in packages.get(name, {}).get('externals') or []
                if 'spec' in e]

    compilers = [name for name in COMPILERS if any(
        'compilers' in (e.get('extra_attributes') or {})
        for e in externals(name))]
    if not compilers:
        raise ToolchainError(
            'Spack finds no compiler (spack compiler find): put the site\'s '
            'compiler on PATH, or pass its module with --module')

    mpis = [name for name in MPIS if externals(name)]
    if not mpis:
        raise ToolchainError(
            f'Spack finds no MPI (spack external find {" ".join(MPIS)}): '
            f'put the site\'s MPI on PATH, or pass its module with --module')

    compiler, mpi = compilers[0], mpis[0]
    chosen = {compiler: _newest([e for e in externals(compiler) if
                                 'compilers' in (e.get('extra_attributes')
                                                 or {})]),
              mpi: _newest(externals(mpi))}
    declared = {name: {'externals': [external], 'buildable': False}
                for name, external in chosen.items()}
    if externals('gmake'):
        declared['gmake'] = {'externals': [_newest(externals('gmake'))],
                             'buildable': False}

    declared['mpi'] = {'require': [mpi]}
    prefix = chosen[mpi].get('prefix')
    return Toolchain(
        compiler=compiler, compiler_version=version_of(chosen[compiler]
                                                       ['spec']),
        mpi=mpi, mpi_version=version_of(chosen[mpi]['spec']),
        wrappers=tuple(_wrapper(prefix, name)
                       for name in ('mpicc', 'mpicxx', 'mpif90')),
        externals=declared,
        source='found by Spack (spack compiler find, spack external find)'
    )


def _wrapper(prefix, name):
    '''The MPI wrapper ``name`` of the MPI installed in ``prefix``: by
    name when that is the one on PATH, else by its path.'''
    if not prefix:
        return name

    path = os.path.join(prefix, 'bin', name)
    on_path = shutil.which(name)
    if on_path and os.path.realpath(on_path) == os.path.realpath(path):
        return name

    return path if os.path.exists(path) else name


def modules_system():
    '''``(name, ReFrame's ModulesSystem)`` of the first modules system
    ReFrame finds here; :class:`ToolchainError` when there is none.'''
    tried = []
    for name in MODULES_SYSTEMS:
        try:
            return name, ModulesSystem.create(name)
        except ConfigError as err:
            tried.append(f'{name}: {err}')

    raise ToolchainError(f'--module needs a modules system, and ReFrame '
                         f'finds none here ({"; ".join(tried)}): load '
                         f'Lmod or Environment Modules, or leave --module '
                         f'out and put spack on PATH')


#: Run after the modules are loaded: where the MPI wrapper is, the MPI's
#: version line, the compiler behind the wrapper and its version.
MODULE_PROBE = r'''
mpicc=$(command -v mpicc) || { echo "no mpicc on PATH"; exit 1; }
echo "mpicc $mpicc"
banner=$(mpicc --showme:version 2>/dev/null || mpichversion 2>/dev/null ||
         mpicc -v 2>&1)
echo "mpi_banner $(echo "$banner" | head -1)"
cc=$( (mpicc --showme:command || mpicc -show) 2>/dev/null |
     awk '{print $1; exit}')
echo "cc $(command -v "$cc")"
echo "cc_version $("$cc" -dumpfullversion 2>/dev/null || "$cc" -dumpversion)"
'''


def parse_probe(output):
    '''``{mpicc, mpi_banner, cc, cc_version}`` of the module probe.'''
    fields = dict(line.split(' ', 1) for line in output.splitlines()
                  if ' ' in line)
    missing = {'mpicc', 'mpi_banner', 'cc', 'cc_version'} - set(fields)
    if missing:
        raise ToolchainError(f'with the modules loaded, no MPI wrapper or '
                             f'compiler answered: {output.strip()[-500:]}')

    return {k: v.strip() for k, v in fields.items()}


def from_modules(modules):
    '''The compiler and MPI the ``modules`` put on PATH, loaded with
    ReFrame's modules system as in a job script.'''
    kind, system = modules_system()
    loads = [cmd for module in modules
             for cmd in system.emit_load_commands(module)]
    done = subprocess.run(['bash', '-c', '\n'.join(loads + [MODULE_PROBE])],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(
            f'loading {" ".join(modules)} ({kind}) and asking mpicc '
            f'failed: {(done.stdout + done.stderr).strip()[-800:]}')

    found = parse_probe(done.stdout)
    return toolchain_of_probe(found, tuple(modules), kind)


def toolchain_of_probe(found, modules, kind):
    '''The :class:`Toolchain` of a module probe's fields.'''
    cc_name = os.path.basename(found['cc'])
    compiler = next((package for package, (names, _, _) in
                     COMPILER_NAMES.items() if names[0] == cc_name), None)
    mpi = next((package for banner, package in MPI_BANNERS
                if banner in found['mpi_banner']), None)
    if compiler is None or mpi is None:
        raise ToolchainError(
            f'with {" ".join(modules)} loaded, mpicc ({found["mpicc"]}) '
            f'says "{found["mpi_banner"]}" and compiles with {cc_name}: '
            f'new-system knows the compilers {", ".join(COMPILERS)} and '
            f'the MPIs {", ".join(MPIS)}; describe yours by hand')

    mpi_version = re.search(r'(\d+(?:\.\d+)+)', found['mpi_banner'])
    if mpi_version is None:
        raise ToolchainError(f'mpicc ({found["mpicc"]}) names no version: '
                             f'"{found["mpi_banner"]}"')

    names = COMPILER_NAMES[compiler][0]
    bindir = os.path.dirname(found['cc'])
    compiler_spec = (f'{compiler}@{found["cc_version"]}' +
                     (" languages:='c,c++,fortran'" if compiler == 'gcc'
                      else ''))
    return Toolchain(
        compiler=compiler, compiler_version=found['cc_version'],
        mpi=mpi, mpi_version=mpi_version[1],
        wrappers=('mpicc', 'mpicxx', 'mpif90'),
        modules_system=kind, modules=modules,
        externals={
            compiler: {'externals': [{
                'spec': compiler_spec, 'modules': list(modules),
                'extra_attributes': {'compilers': dict(zip(
                    ('c', 'cxx', 'fortran'),
                    (os.path.join(bindir, n) for n in names)))},
            }], 'buildable': False},
            mpi: {'externals': [{
                'spec': f'{mpi}@{mpi_version[1]}',
                'modules': list(modules)}], 'buildable': False},
            'mpi': {'require': [mpi]},
        },
        source=f'read with the modules {" ".join(modules)} loaded ({kind})'
    )
