'''The base every acceptance check derives from.

:class:`AcceptanceCheck` is a ReFrame mixin that gives a check

- its binary from the first available dependency source
  (:mod:`hpc_acceptance.core.dependency`), recorded as ``dependency_source``,
  with the partition's Spack environment installed once beforehand
  (:mod:`hpc_acceptance.core.spack`) and the spec it loaded as ``spack_spec``;
- the reference values of the system it runs on
  (:mod:`hpc_acceptance.core.references`), recorded as ``reference_file``;
- its processor topology, or a skip that says how to provide one;
- the hardware variants, ISA, Turbo and Hyper-Threading
  (:mod:`hpc_acceptance.core.variants`);
- its :attr:`~AcceptanceCheck.identity`: every input that changes its
  figures (:mod:`hpc_acceptance.core.identity`), which reference entries
  are keyed by.

The recorded values are loggable: they appear in the perflog and the JSON
report.
'''

import reframe.core.runtime as runtime
from reframe.core.builtins import run_after, run_before, variable
from reframe.core.exceptions import ReframeError

from hpc_acceptance.core import dependency, identity, references, topology
from hpc_acceptance.core.spack import (SpackEnvironmentError,
                                       SpackEnvironmentPlugin)
from hpc_acceptance.core.variants import HardwareVariants


class AcceptanceCheck(SpackEnvironmentPlugin, HardwareVariants):
    #: Where the benchmark binary came from: ``spack:<environment>
    #: (<spec>)``, ``module:<name>``, ``path:<file>``, ``in-tree:<build
    #: directory>`` or, for NPB, ``npb_dir:<file>``.
    #:
    #: :type: :class:`str`
    dependency_source = variable(str, value='unresolved', loggable=True)

    #: The reference file the figures were compared with, or ``none`` when
    #: the system has none and the figures are reported without bounds.
    #:
    #: :type: :class:`str`
    reference_file = variable(str, value='none', loggable=True)

    #: Variants of this check not generated because no configured
    #: partition can hold them (:mod:`hpc_acceptance.core.partition_limits`),
    #: in one sentence for the run's summary; empty if none.
    #:
    #: :type: :class:`str`
    variants_left_out = variable(str, value='', loggable=True)

    #: What produced this run's figures: the family's
    #: :attr:`identity_fields`, the ISA the binary was built for and the
    #: kind of dependency source, as ``name=value;...``
    #: (:mod:`hpc_acceptance.core.identity`). Set before the run (the
    #: built ISA as ``?`` until the program says) and again after it.
    #:
    #: :type: :class:`str`
    identity = variable(str, value='', loggable=True)

    #: The partition's own minimum bands for comparing its nodes with each
    #: other (``extras.fleet_floors``, e.g. ``{'Memory': 0.3}``), as
    #: ``Family=fraction ...``; empty: the families' defaults
    #: (:mod:`hpc_acceptance.tools.fleet`). Recorded so that whoever
    #: reads the results judges the fleet as the site set it.
    #:
    #: :type: :class:`str`
    fleet_floors = variable(str, value='', loggable=True)

    #: Attributes of the check whose values change its figures (problem
    #: class, sizes, ranks, threads, binding, ...): the family's part of
    #: :attr:`identity`, declared once per family.
    identity_fields = ()

    #: The binary this check runs; ``None`` for checks that need none.
    #:
    #: :type: :class:`hpc_acceptance.core.dependency.Requirement` or ``None``
    requirement = None

    def spans_nodes(self):
        '''Whether this variant needs more than one node. Such variants
        carry the tag ``multinode``: a fleet run (ReFrame's
        ``--distribute``, one test per node) leaves them out and runs them
        once, as the nightly does.'''
        return False

    @run_after('init')
    def tag_multinode(self):
        if self.spans_nodes():
            self.tags = self.tags | {'multinode'}

    def in_tree_build(self):
        '''This check's :class:`~hpc_acceptance.core.builds.InTreeBuild`
        fixture, or ``None`` if its benchmark has no in-tree implementation.'''
        return None

    def in_tree_dir(self):
        '''Directory of the in-tree build for this check's ISA variant;
        skips the check if that ISA could not be built.'''
        build = self.in_tree_build()
        if build is None:
            return None

        unsupported = build.unsupported(self.isa)
        if unsupported:
            self.skip(f'isa={self.isa}: {unsupported}')

        return build.isa_dir(self.isa)

    @property
    def processor_info(self):
        '''The partition's processor description; skips the check if the
        partition has no topology to size the benchmark from.'''
        info = self.current_partition.processor.info
        try:
            topology.cache_levels(info)
        except topology.TopologyError as err:
            self.skip(f'{self.current_partition.fullname}: {err}')

        return info

    @property
    def node_memory(self):
        '''Bytes of memory of one node of the partition; skips the check
        if the configuration does not say.'''
        partition = self.current_partition
        memory = partition.extras.get('memory_bytes')
        self.skip_if(
            not memory,
            f'{partition.fullname} does not say how much memory its nodes '
            f'have: set extras.memory_bytes (bytes of one node) in its '
            f'configuration'
        )
        return memory

    @run_after('setup')
    def record_fleet_floors(self):
        partition = self.current_partition
        floors = partition.extras.get('fleet_floors') or {}
        if not isinstance(floors, dict):
            raise ReframeError(
                f'{partition.fullname}: extras.fleet_floors must map check '
                f'families to fractions, e.g. {{"Memory": 0.3}}, not '
                f'{floors!r}')

        self.fleet_floors = ' '.join(f'{family}={value}' for
                                     family, value in sorted(floors.items()))

    @run_after('setup')
    def use_system_references(self):
        prefix = runtime.runtime().get_option('general/0/reference_prefix')
        path = references.reference_file(self.current_system.name, prefix)
        if path is None:
            self.reference_file = 'none'
            return

        self.reference = {'$ref': path}
        self.require_reference = True
        self.reference_file = path

    def identity_inputs(self, *, after_run):
        '''``{field: value}`` of this run's :attr:`identity`.'''
        # Before the run the built ISA is not known for sure: an in-tree
        # program says it once it runs, also when Spack built it for a
        # target (the kernels print avx512 where the target was icelake).
        built = self.isa_built if after_run else identity.UNKNOWN

        inputs = {name: getattr(self, name) for name in self.identity_fields}
        inputs.update(isa_built=built,
                      dependency=identity.dependency_kind(
                          self.dependency_source))
        return inputs

    @run_before('run')
    def check_reference_entry(self):
        '''Fail before the benchmark runs if the system's reference file has
        no entry for this variant and its inputs, or one that does not fit
        the check.'''
        self.identity = identity.render(self.identity_inputs(after_run=False))
        self._check_reference_entry()

    @run_before('performance')
    def check_reference_identity(self):
        '''Once the program said what it was built for: fail with the
        inputs that differ if no reference entry has this identity (ReFrame
        itself would only say that no reference was found).'''
        self.identity = identity.render(self.identity_inputs(after_run=True))
        self._check_reference_entry()

    def _check_reference_entry(self):
        if self.reference_file == 'none':
            return

        path = self.reference_file
        data = references.load(path)
        name = type(self).__name__
        if name not in data:
            raise references.ReferenceFileError(
                f'{path}: no entry for {name}'
            )

        where, entry = references.entry_for(path, data[name], self)
        units = {var: fn.unit for var, fn in self.perf_variables.items()}
        references.check_variables(path, where, entry, units)

    @run_after('setup')
    def resolve_dependency(self):
        if self.requirement is None:
            return

        found = dependency.resolve(
            self.requirement,
            partition_name=self.current_partition.fullname,
            partition_extras=self.current_partition.extras,
            in_tree_dir=self.in_tree_dir(),
            isa=self.isa,
            native_target=self.current_partition.processor.arch,
        )
        self.use_binary(found)

    def use_binary(self, found):
        '''Run the binary of a
        :class:`~hpc_acceptance.core.dependency.Resolution` and record where
        it came from; skip with its reason if none, fail with its failure
        (a package of the partition's Spack environment that did not
        install, or installed without the binary).'''
        if found.failure:
            raise SpackEnvironmentError(found.failure)

        if found.source == 'spack':
            self.require_installed(found.spack_env, found.spack_spec)

        self.skip_if(not found.found, found.reason)
        self.executable = found.executable
        self.prerun_cmds = found.prerun_cmds + self.prerun_cmds
        self.modules = found.modules + self.modules
        self.dependency_source = found.describe()
        if found.spack_spec:
            self.record_spack_spec(found.spack_env, found.spack_spec)

        if found.spack_target:
            self.isa_built = f'spack target={found.spack_target}'
