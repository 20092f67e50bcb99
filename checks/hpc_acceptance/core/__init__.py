'''Machinery every check shares, whatever its benchmark.

The base class :class:`~hpc_acceptance.core.check.AcceptanceCheck` ties
together where the binary comes from (:mod:`.dependency`, :mod:`.spack`,
:mod:`.builds`), which reference values apply (:mod:`.references`), the
hardware variants and the state a job ran in (:mod:`.variants`, :mod:`.isa`,
:mod:`.node_state`), working-set sizes (:mod:`.topology`), where MPI ranks
go (:mod:`.rank_placement`) and how the kernels' output is read
(:mod:`.figures`, :mod:`.job_status`). Nothing here knows a benchmark.
'''
