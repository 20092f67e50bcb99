'''Every figure of every run sent to the site's time-series store.

A site turns it on with one file in its site directory,
``<site>/export.yaml`` (:mod:`.settings`). ReFrame then hands each
performance record to the log handler of :mod:`.handler`, which turns it
into series (:mod:`.series`) and posts them to the store
(:mod:`.store`), a value stored only on the store's own answer (204);
what the store does not take waits in a spool beside the results database
(:mod:`.spool`), which also remembers what each store took, so that
nothing is sent to it twice, and lets one sender at a time send.
``hpc-acceptance export`` (:mod:`hpc_acceptance.tools.export.export`)
replays the spool, backfills stored sessions and reads the store back.
'''
