'''A run's end: its verdict, its summary, what changed in where its
binaries came from (``hpc-acceptance verdict``, ``summary``,
``dependency-drift``).
'''
