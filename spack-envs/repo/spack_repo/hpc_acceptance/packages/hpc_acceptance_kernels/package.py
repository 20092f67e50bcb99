'''Spack package of the in-tree kernels of the acceptance checks (``src/``).

There is nothing to download: every environment in ``spack-envs/`` lists
this package under ``develop:`` with the path of the checkout's ``src/``, so
Spack builds the working tree it finds there, and rebuilds it when a source
file changes. Each family (``src/<family>/``) has a Makefile that honours
``CC`` and ``CFLAGS`` and installs its programs with
``make install PREFIX=<prefix>`` into ``<prefix>/bin``.
'''

from spack_repo.builtin.build_systems.makefile import MakefilePackage

from spack.package import (copy_tree, depends_on, join_path, variant, version,
                           working_dir)

# `make` and `spack_cc` are not imported: Spack sets them on this module when
# it builds (hence the noqa: F821 below).

#: ``src/<family>/`` directories this package can build.
FAMILIES = ('memory', 'network')


class HpcAcceptanceKernels(MakefilePackage):
    '''Memory and MPI kernels of the HPC acceptance checks: pointer-chase
    latency, read bandwidth, prefetch streams, gather, DAXPY and NUMA
    streaming (memory), and the MPI communication kernels (network).'''

    # A develop spec needs a version to build; sources come from develop:.
    version('develop')

    variant('families', default=','.join(FAMILIES), values=FAMILIES,
            multi=True, description='Kernel families (src/<family>) to build')

    depends_on('c', type='build')
    depends_on('mpi', when='families=network')

    @property
    def families(self):
        return [f for f in FAMILIES
                if f in self.spec.variants['families'].value]

    def family_build_dir(self, family):
        return join_path(self.stage.path, f'build-{family}')

    def family_make_args(self, family):
        # Plain -O3: Spack's compiler wrapper adds the flags of the spec's
        # target (the Makefiles' default -march=native would override them).
        # Open MPI's mpicc calls Spack's wrapper too (OMPI_CC) during builds.
        if family == 'network':
            compiler = self.spec['mpi'].mpicc
        else:
            compiler = spack_cc  # noqa: F821

        return [f'CC={compiler}', 'CFLAGS=-O3']

    def edit(self, spec, prefix):
        # Spack builds a develop spec inside its source directory. Build
        # copies instead: the checkout stays clean, and builds for several
        # targets never share object files.
        for family in self.families:
            copy_tree(join_path(self.stage.source_path, family),
                      self.family_build_dir(family))

    def build(self, spec, prefix):
        for family in self.families:
            with working_dir(self.family_build_dir(family)):
                # Objects left by a manual `make` in src/ were copied too.
                make('clean')  # noqa: F821
                make(*self.family_make_args(family))  # noqa: F821

    def install(self, spec, prefix):
        for family in self.families:
            with working_dir(self.family_build_dir(family)):
                make('install', f'PREFIX={prefix}',  # noqa: F821
                     *self.family_make_args(family))
