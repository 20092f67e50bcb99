'''Shared machinery of the acceptance checks.

Every check in ``checks/`` uses these modules for the things all checks have
in common: where the benchmark binary comes from (:mod:`.dependency`), which
reference values apply (:mod:`.references`), how big the working sets are
(:mod:`.topology`) and how the kernels' output is read (:mod:`.figures`).
The ReFrame base class that ties them together is :mod:`.base`.
'''
