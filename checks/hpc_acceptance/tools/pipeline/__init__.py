'''The run from start to end, the same for an acceptance run, a fleet run
and a post-upgrade run: ``hpc-acceptance finish``, the end every run shares
(``ci/acceptance.sh`` and ``ci/post-upgrade.sh`` are wrappers around it).
'''
