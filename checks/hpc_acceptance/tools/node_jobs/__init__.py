'''A fleet night as Slurm jobs of one node each, or of several on a big
night (``hpc-acceptance run --fleet``, the default
``--fleet-mode=node-jobs``), each node running its whole set: the night's
folder and records
(:mod:`.night`), the node's own ReFrame configuration (:mod:`.node_system`),
the site's limits read from Slurm (:mod:`.site_limits`), the jobs submitted
and watched (:mod:`.slurm_jobs`), the run inside each job
(:mod:`.on_node`), and the nodes' reports collected into the fleet run's
one report (:mod:`.collect`, ``hpc-acceptance collect``) with their
perflogs (:mod:`.perflogs`).
'''
