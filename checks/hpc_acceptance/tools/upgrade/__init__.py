'''The before/after verdict of an upgrade: ``hpc-acceptance post-upgrade``.
'''
