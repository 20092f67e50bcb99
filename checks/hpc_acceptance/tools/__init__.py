'''The ``hpc-acceptance`` command (:mod:`.cli`), one room (package) per job,
each subcommand in the module of its name:

- :mod:`.results`: what runs stored, read one way (``db``);
- :mod:`.launch`: starting a ReFrame run (the run lock, its report file,
  the call);
- :mod:`.references`: reference values and the noise model
  (``propose-references``, ``compare-published``);
- :mod:`.fleet`: every node against its siblings (``nodes``,
  ``suspects``);
- :mod:`.export`: figures to the site's time-series store (``export``);
- :mod:`.outcome`: judging and telling a run (``verdict``, ``summary``,
  ``dependency-drift``);
- :mod:`.page`: the report page (``page``);
- :mod:`.pipeline`: a run from its start to its end (``run``, ``finish``);
- :mod:`.upgrade`: the before/after verdict (``post-upgrade``);
- :mod:`.new_system`: bringing a system in (``new-system``);
- :mod:`.topology`: what the suite would do on a node (``topology``).

Rooms import only the rooms listed before them (``new_system`` and
``topology`` none of the others but ``results``),
``tests/unit/test_import_graph.py`` holds it.
'''
