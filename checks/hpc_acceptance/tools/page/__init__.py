'''The report page of a session: ``hpc-acceptance page``.
'''
