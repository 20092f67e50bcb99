'''The ``hpc-acceptance`` commands (:mod:`.cli`): proposing references from
recent runs, comparing with published figures, judging an acceptance run,
a verdict per figure after an upgrade, printing this node's sizes;
:mod:`.results` reads ReFrame's results for them.
'''
