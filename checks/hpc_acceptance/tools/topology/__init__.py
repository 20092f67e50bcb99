'''What the suite would do on a node: ``hpc-acceptance topology``.
'''
