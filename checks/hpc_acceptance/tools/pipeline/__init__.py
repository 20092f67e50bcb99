'''A run from its start to its end, the same for an acceptance run, a
fleet run and a post-upgrade run: ``hpc-acceptance run`` (what
``ci/acceptance.sh`` runs once it holds the run lock and has set the machine
up; post-upgrade starts its runs with the same steps) and ``hpc-acceptance
finish``, the end every run shares.
'''
