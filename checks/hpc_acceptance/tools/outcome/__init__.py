'''What a run came to, once ReFrame is done with it: the run read once
(:mod:`.finished_run`), judged (``hpc-acceptance verdict``), told in a few
lines (``summary``) and where its binaries came from against the runs
before (``dependency-drift``).
'''
