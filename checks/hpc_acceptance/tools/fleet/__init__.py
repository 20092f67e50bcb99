'''The fleet run, every node of a partition against its siblings:
``hpc-acceptance nodes``, ``suspects`` (drain, resume).
'''
