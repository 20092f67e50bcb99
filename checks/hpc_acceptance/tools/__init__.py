'''The ``hpc-acceptance`` command (:mod:`.cli`), one room (package) per job,
each subcommand in the module of its name, with one contract
(``description``, ``setup_parser``, ``command``: :mod:`.cli`):

- :mod:`.common`: the options several commands share, and their usage
  error (:mod:`.common.arguments`); the settings a command reads once
  from its options and the environment (:mod:`.common.command_settings`);
  who may read the files the tool writes (:mod:`.common.file_modes`);
- :mod:`.results`: what runs stored, read one way (``db``);
- :mod:`.launch`: starting ReFrame (the run lock, the report file, the
  call and the :class:`.launch.reframe_call.Launcher` of a run's calls);
- :mod:`.references`: reference values and the noise model
  (``propose-references``, ``compare-published``);
- :mod:`.fleet`: every node against its siblings (``nodes``,
  ``suspects``; the comparison's model, grouping, rules and wording);
- :mod:`.node_jobs`: a fleet night as one Slurm job per node (the site's
  limits, the jobs, the run on each node, ``collect``);
- :mod:`.shifts`: each figure's nightly series and its shifts;
- :mod:`.export`: figures to the site's time-series store (``export``);
- :mod:`.outcome`: what a run came to: the run read once
  (:class:`.outcome.finished_run.FinishedRun`), its verdict, summary and
  binaries' sources (``verdict``, ``summary``, ``dependency-drift``);
- :mod:`.page`: the report page (``page``);
- :mod:`.pipeline`: a run from its start to its end (``run``, ``finish``);
- :mod:`.upgrade`: the before/after verdict (``post-upgrade``: its
  judgement, table, runs and command);
- :mod:`.new_system`: bringing a system in (``new-system``);
- :mod:`.topology`: what the suite would do on a node (``topology``).

Rooms import only the rooms listed before them (``new_system`` and
``topology`` none of the others but ``common`` and ``results``). A
command's module is its front-end alone: the work lives in library
modules named for what they do (``db``'s in ``results/database.py``,
``run``'s in ``pipeline/acceptance_run.py`` and ``pipeline/run_end.py``),
which other modules import; no module imports a command's.
``tests/unit/test_import_graph.py`` holds both rules.
'''
