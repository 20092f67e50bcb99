'''What runs stored, read one way: ReFrame's JSON run reports and its results
database (``hpc-acceptance db``).
'''
