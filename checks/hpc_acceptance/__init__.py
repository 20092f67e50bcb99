'''The library behind the checks in ``checks/<family>/``.

Modelled on ReFrame's ``hpctestlib``: one base test per benchmark, the
site's checks derive from it.

- :mod:`hpc_acceptance.core`: what every check shares: the base check,
  dependency sources (Spack, system, in-tree), references, hardware
  variants (ISA, Turbo, SMT), topology-based sizing, builds, figures;
- one package per benchmark family, each importing only ``core``:
  :mod:`~hpc_acceptance.memory`, :mod:`~hpc_acceptance.stream`,
  :mod:`~hpc_acceptance.hpcc`, :mod:`~hpc_acceptance.npb`,
  :mod:`~hpc_acceptance.network`;
- :mod:`hpc_acceptance.tools`: the ``hpc-acceptance`` commands, above the
  families.

Imports run one way, tools -> families -> core (``tests/unit/
test_import_graph.py``).
'''
