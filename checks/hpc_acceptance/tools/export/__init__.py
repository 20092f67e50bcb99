'''Every figure to the site's time-series store: ``hpc-acceptance export``.
'''
