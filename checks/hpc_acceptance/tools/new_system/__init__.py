'''Bringing a site's system in: ``hpc-acceptance new-system``.
'''
