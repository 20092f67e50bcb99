'''Reference values and the noise model: ``hpc-acceptance propose-references``,
``compare-published``.
'''
