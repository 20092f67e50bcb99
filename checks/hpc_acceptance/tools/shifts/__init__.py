'''Persistent shifts across nights: each figure's stored nightly series
searched for change points (Apache Otava), named beside what changed that
night, and judged against the figure's tolerance or the site's limit.
'''
