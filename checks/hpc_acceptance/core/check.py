'''The base every acceptance check derives from.

:class:`AcceptanceCheck` is a ReFrame mixin that gives a check

- its binary from the first available dependency source
  (:mod:`hpc_acceptance.core.dependency`), recorded as ``dependency_source``,
  with the partition's Spack environment installed once beforehand
  (:mod:`hpc_acceptance.core.spack`) and the spec it loaded as ``spack_spec``;
- the reference values of the system it runs on
  (:mod:`hpc_acceptance.core.references`), recorded as ``reference_file``;
- its processor topology, or a skip that says how to provide it (what
  each family counts of it: :mod:`hpc_acceptance.core.node_shape`);
- the hardware variants, ISA, Turbo and Hyper-Threading
  (:mod:`hpc_acceptance.core.variants`);
- its :attr:`~AcceptanceCheck.identity`: every input that changes its
  figures (:mod:`hpc_acceptance.core.identity`), which reference entries
  are keyed by;
- the reason of a skip, recorded as ``skip_reason``
  (:mod:`hpc_acceptance.core.skip_reason`).

The recorded values are loggable: they appear in the perflog and the JSON
report.

A family's check lists it before ReFrame's test class (``class
NpbCheck(AcceptanceCheck, rfm.RunOnlyRegressionTest, ...)``): its
``skip``, which records the reason, must come before ``RegressionTest``'s
in the method resolution order.
'''

import os

import reframe.core.runtime as runtime
import reframe.utility.typecheck as typ
from reframe.core.builtins import run_after, run_before, variable
from reframe.core.exceptions import ReframeError

from hpc_acceptance.core import (dependency, identity, node_facts,
                                 node_shape, node_view, references, site,
                                 topology, topology_change)
from hpc_acceptance.core.skip_reason import RecordedSkip
from hpc_acceptance.core.spack import (SpackEnvironmentError,
                                       SpackEnvironmentPlugin)
from hpc_acceptance.core.variants import HardwareVariants


#: ``optional``: runs that the reference file has no entry for run without
#: bounds (:attr:`AcceptanceCheck.reference_entry_required`).
REFERENCE_ENTRIES_VARIABLE = 'HPC_ACCEPTANCE_REFERENCE_ENTRIES'


class AcceptanceCheck(SpackEnvironmentPlugin, HardwareVariants,
                      RecordedSkip):
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

    #: Whether a run that the system's reference file has no entry for
    #: (its check, variant or inputs) fails before its benchmark runs. The
    #: nightly's: a system's file covers what it runs. A post-upgrade run
    #: (``hpc-acceptance post-upgrade`` sets
    #: ``HPC_ACCEPTANCE_REFERENCE_ENTRIES=optional``, the default of this
    #: variable, so that ReFrame's fixtures are not told of it) runs the
    #: variants and sizes only it runs (ISA, Turbo, SMT, HPL over 80 % of
    #: memory) without bounds, said in ``reference_file``, for the
    #: before/after verdict to judge.
    #:
    #: :type: :class:`bool`
    #: :default: ``True``, unless ``HPC_ACCEPTANCE_REFERENCE_ENTRIES`` is
    #:     ``optional``
    reference_entry_required = variable(
        typ.Bool,
        value=os.environ.get(REFERENCE_ENTRIES_VARIABLE) != 'optional')

    #: The partition's own minimum bands for comparing its nodes with each
    #: other (``extras.fleet_floors``, e.g. ``{'Memory': 0.3}``), as
    #: ``Family=fraction ...``; empty: the families' defaults
    #: (:mod:`hpc_acceptance.tools.fleet.comparison`). Recorded so that whoever
    #: reads the results judges the fleet as the site set it.
    #:
    #: :type: :class:`str`
    fleet_floors = variable(str, value='', loggable=True)

    #: The kinds of core of the partition's node where it has several (a
    #: hybrid CPU, :mod:`hpc_acceptance.core.core_kinds`), in one sentence;
    #: empty on a node of one kind of core.
    #:
    #: :type: :class:`str`
    core_kinds = variable(str, value='', loggable=True)

    #: On a hybrid CPU, which of its cores this run uses: ``all 14 cores
    #: (6 performance, 8 efficiency)``, ``the 6 performance cores``, ``4
    #: performance and 2 efficiency cores``; empty elsewhere.
    #:
    #: :type: :class:`str`
    core_choice = variable(str, value='', loggable=True)

    #: Where the partition's node is planned on less than the whole
    #: machine (the embedded default inside a Slurm job, a container or
    #: ``taskset``: :mod:`hpc_acceptance.core.node_view`), what the run may
    #: use and why, in one sentence (``6 of 32 CPUs, NUMA nodes 0-5 of 8,
    #: 96 of 126.2 GiB of memory: planned on what this run may use
    #: (...)``); empty where it may use the whole node.
    #:
    #: :type: :class:`str`
    allowed_view = variable(str, value='', loggable=True)

    #: Attributes of the check whose values change its figures (problem
    #: class, sizes, ranks, threads, binding, ...): the family's part of
    #: :attr:`identity`, declared once per family.
    identity_fields = ()

    #: Those of :attr:`identity_fields` the check sizes from the processor
    #: description alone (threads or ranks per core or hardware thread): a
    #: reference entry that differs in one was measured on a node of
    #: another topology (:mod:`hpc_acceptance.core.topology_change`).
    topology_fields = ()

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
        '''Directory of the in-tree build for this check's ISA variant, or
        ``None`` if its benchmark has no in-tree implementation.'''
        build = self.in_tree_build()
        return None if build is None else build.isa_dir(self.isa)

    def in_tree_unsupported(self):
        '''Why the in-tree build could not target this check's ISA
        variant, or ``None``.'''
        build = self.in_tree_build()
        return None if build is None else build.unsupported(self.isa)

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
    def node_kinds(self):
        '''The kinds of core of the partition's node
        (:func:`hpc_acceptance.core.node_facts.kinds_of`); ``None`` where the
        description has no usable cores.'''
        try:
            return node_facts.kinds_of(self.current_partition)
        except topology.TopologyError:
            return None

    def record_cores_used(self, cores):
        '''Say, on a hybrid CPU, which of its cores (CPU sets) this run
        uses (:attr:`core_kinds`, :attr:`core_choice`); call it from a
        setup hook once the cores are decided.'''
        kinds = self.node_kinds
        if kinds is None or not kinds.hybrid:
            return

        self.core_kinds = kinds.describe()
        self.core_choice = node_facts.core_choice(kinds, list(cores))

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
    def record_allowed_view(self):
        self.allowed_view = node_view.summary(
            node_shape.shape(self.current_partition.processor.info))

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
        # ReFrame's process is given no settings but its environment
        path = references.reference_file(
            self.current_system.name,
            references.search_dirs(prefix, site.named()))
        if path is None:
            self.reference_file = 'none'
            return

        references.load_for(path, [p.fullname for p in
                                   self.current_system.partitions])
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
        if self.reference_file == 'none' or not self.require_reference:
            return

        try:
            self._find_reference_entry()
        except references.MissingReferenceEntry as err:
            if self.reference_entry_required:
                raise

            # judged by the post-upgrade verdict against its own baseline
            self.reference = {}
            self.require_reference = False
            self.reference_file = (f'{self.reference_file} (no entry for '
                                   f'this run: not bounded)')
            self.logger.info(f'{self.display_name}: {err}: runs without '
                             f'bounds')

    def _find_reference_entry(self):
        path, name = self.reference_file, type(self).__name__
        data = references.load_for(path, [p.fullname for p in
                                          self.current_system.partitions])
        if name not in data:
            raise references.no_entry(path, name, data)

        if not self.reference.index:
            # keyed by system:partition only: ReFrame looks it up after
            # the run, and with require_reference fails a missing figure
            entry = next((data[name][key] for key in (
                self.current_partition.fullname, self.current_system.name,
                '*') if isinstance(data[name].get(key), dict)), None)
            self._leave_unbounded(entry)
            return

        # ReFrame's own lookup: its index walk, keys as anchored regular
        # expressions, and __ref_missing_identity__ below for identities.
        try:
            entry = self.reference[self]
        except KeyError as err:
            raise references.MissingReferenceEntry(
                f'{path}: {name}: {self._missing_entry(err.args[0])}'
            ) from None
        except references.IdentityMismatch as err:
            changed = topology_change.reference_problem(
                err, self.topology_fields,
                self.current_partition.processor.info)
            if changed:
                raise references.ReferenceFileError(changed) from None

            raise

        units = {var: fn.unit for var, fn in self.perf_variables.items()}
        references.check_variables(path, self.display_name, entry, units)
        self._leave_unbounded(entry)

    def _leave_unbounded(self, entry):
        '''A figure that needs no reference (:func:`.references.unbounded`,
        added once the program printed it) and that ``entry`` does not
        bound runs without bounds: ReFrame fails every figure without a
        reference while ``require_reference`` holds, and every other
        figure's is checked here.'''
        if entry is not None and all(
                var in entry for var in self.perf_variables
                if not references.unbounded(var)):
            self.require_reference = False

    def _missing_entry(self, key):
        '''What ReFrame's lookup did not find: the key ``key`` of the
        ``$index`` attribute that has it, or that attribute itself.'''
        index = self.reference.index
        if key in index and not key.startswith('$') and \
                not hasattr(self, key):
            return f'$index names {key!r}, which the check does not have'

        values = {'$system': self.current_system.name,
                  '$partition': self.current_partition.fullname,
                  '$environ': self.current_environ.name}
        names = [k for k in index
                 if values.get(k, getattr(self, k, None)) == key]
        missing = f'{names[0]}={key!r}' if names else repr(key)
        return (f'no entry for {missing} ({self.display_name}; $index: '
                f'{", ".join(index)})')

    def __ref_missing_identity__(self, data, key):
        '''ReFrame's hook for a reference level keyed by ``identity``
        that has no key equal to this run's: the entry of the identity
        this run may be compared with (the built ISA is not known before
        the run), else an error naming every input that differs.'''
        return data[references.identity_key(
            self.reference_file, self.display_name, list(data), key)]

    @run_after('setup')
    def resolve_dependency(self):
        if self.requirement is None:
            return

        found = dependency.resolve(
            self.requirement,
            partition_name=self.current_partition.fullname,
            partition_extras=self.current_partition.extras,
            in_tree_dir=self.in_tree_dir(),
            in_tree_unsupported=self.in_tree_unsupported(),
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

        prerun_cmds = found.prerun_cmds
        if found.source == 'spack':
            self.require_installed(found.spack_env, found.spack_spec)
            prerun_cmds = self.spack_load_cmds(
                found.spack_env, found.spack_spec, prerun_cmds)

        self.skip_if(not found.found, found.reason)
        self.executable = found.executable
        self.prerun_cmds = prerun_cmds + self.prerun_cmds
        self.modules = found.modules + self.modules
        self.dependency_source = found.describe()
        if found.spack_spec:
            self.record_spack_spec(found.spack_env, found.spack_spec)

        if found.spack_target:
            self.isa_built = f'spack target={found.spack_target}'
